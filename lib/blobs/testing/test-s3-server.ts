// A real S3-compatible server for tests: s3rver (in this process) on 127.0.0.1, with one bucket
// that allows cross-origin GET/PUT/HEAD (browsers PUT to presigned URLs and load media from it).
// s3rver accepts any well-formed SigV4 request without checking the signature.
//
// As a program, for Playwright's webServer (answers GET / with 200 once ready):
//   npx tsx lib/blobs/testing/test-s3-server.ts --port 3390 --dir .data-e2e/s3 --bucket atelier-e2e
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ListObjectsCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3Settings } from "../s3-blob-store";

export interface TestS3Server {
  /** "http://127.0.0.1:<port>" */
  endpoint: string;
  bucket: string;
  port: number;
  /** s3rver's data directory. */
  directory: string;
  /** The environment a server process needs to store blobs in this bucket under `prefix`. */
  env(prefix: string): Record<string, string>;
  settings(prefix: string): S3Settings;
  /** Every object key in the bucket (under `prefix` when given), sorted. */
  listKeys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

const REGION = "us-east-1";
/** s3rver's built-in account. */
const ACCESS_KEY = "S3RVER";

const CORS_XML = `<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>PUT</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>*</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <ExposeHeader>Content-Length</ExposeHeader>
    <ExposeHeader>Content-Range</ExposeHeader>
    <ExposeHeader>Accept-Ranges</ExposeHeader>
    <MaxAgeSeconds>3000</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>`;

// s3rver ships no types: the little of it used here.
interface S3rverInstance {
  run(): Promise<{ port: number; address: string }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string; configs: string[] }[];
}) => S3rverInstance;

export async function startTestS3Server(
  options: { port?: number; directory?: string; bucket?: string } = {},
): Promise<TestS3Server> {
  const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;
  const bucket = options.bucket ?? "atelier-test";
  const ownDirectory = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(path.join(os.tmpdir(), "atelier-s3rver-")));
  const server = new S3rver({
    address: "127.0.0.1",
    port: options.port ?? 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [CORS_XML] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: REGION,
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });

  return {
    endpoint,
    bucket,
    port,
    directory,
    env(prefix) {
      return {
        S3_BUCKET: bucket,
        S3_PREFIX: prefix,
        S3_ENDPOINT: endpoint,
        S3_REGION: REGION,
        S3_FORCE_PATH_STYLE: "1",
        AWS_ACCESS_KEY_ID: ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: ACCESS_KEY,
        AWS_EC2_METADATA_DISABLED: "true",
      };
    },
    settings(prefix) {
      return { bucket, prefix, endpoint, region: REGION, forcePathStyle: true, publicEndpoint: null };
    },
    async listKeys(prefix) {
      // ListObjects (v1) paged by Marker: s3rver makes ListObjectsV2's continuation tokens with
      // DES, which Node 20's OpenSSL 3 refuses without --openssl-legacy-provider.
      const keys: string[] = [];
      let marker: string | undefined;
      for (;;) {
        const page = await client.send(
          new ListObjectsCommand({
            Bucket: bucket,
            MaxKeys: 1000,
            ...(prefix ? { Prefix: prefix } : {}),
            ...(marker ? { Marker: marker } : {}),
          }),
        );
        const found = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
        keys.push(...found);
        if (!page.IsTruncated || found.length === 0) break;
        marker = found[found.length - 1];
      }
      return keys.sort();
    },
    async close() {
      client.destroy();
      await server.close();
      if (ownDirectory) await rm(directory, { recursive: true, force: true });
    },
  };
}

function argumentOf(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const port = Number(argumentOf(args, "--port") ?? "3390");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad --port ${argumentOf(args, "--port")}`);
  const dir = argumentOf(args, "--dir");
  const bucket = argumentOf(args, "--bucket") ?? "atelier-e2e";
  let directory: string | undefined;
  if (dir) {
    // A fresh bucket for every run.
    directory = path.resolve(dir);
    await rm(directory, { recursive: true, force: true });
  }
  const server = await startTestS3Server({ port, bucket, ...(directory ? { directory } : {}) });
  console.log(`s3rver ready at ${server.endpoint} (bucket ${server.bucket}, directory ${server.directory})`);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    // Open keep-alive connections (a browser's) would hold close() up: do not wait for long.
    setTimeout(() => process.exit(0), 3_000).unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
