// The API suite's global setup: the admin CLI and the server bundled, then the S3-compatible bucket and every
// server of SERVERS but those a spec file starts (server-start.ts) started side by side on fresh
// stores. Returns their teardown.
import { buildServerBundle } from "../../scripts/server-bundle";
import { buildAdminCli } from "../admin-cli";
import { startServers } from "../server-processes";
import { serverProcess } from "./server-start";
import { SERVERS, TEST_S3 } from "./servers";

export default async function globalSetup(): Promise<() => Promise<void>> {
  buildAdminCli();
  buildServerBundle();
  // The bucket first: the PostgreSQL runs servers keep their files and outputs in it.
  const stopBucket = await startServers([
    {
      name: "s3",
      args: [
        "lib/blobs/testing/test-s3-server.ts",
        ...["--port", String(TEST_S3.port), "--dir", TEST_S3.dataDir, "--bucket", TEST_S3.bucket],
      ],
      env: {},
      url: `${TEST_S3.endpoint}/`,
    },
  ]);
  let stopServers: () => Promise<void>;
  try {
    stopServers = await startServers(
      Object.values(SERVERS)
        .filter((spec) => !spec.startedBySpec)
        .map(serverProcess),
    );
  } catch (err) {
    await stopBucket();
    throw err;
  }
  return async () => {
    await stopServers();
    await stopBucket();
  };
}
