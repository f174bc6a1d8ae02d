// For Vitest only (it registers vitest hooks): what the "ai-sdk" kind's run tests share
// (ai-sdk-run.test.ts, ai-sdk-labs.test.ts, ai-sdk-hosts.test.ts): catalog entries and their
// schemas, the models of one provider, the run's failure, one fake server per test, a server
// elsewhere for result links, and decoding a sound with ffmpeg.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, expect } from "vitest";
import { testRunTools } from "../../../models/testing/test-tools";
import { ModelError, type ModelDefinition } from "../../../core/catalog/model-definition";
import { fakePng } from "../../testing/fake-media";
import { remoteModels } from "../../index";
import { parseProvidersFile } from "../../providers-file";
import { failureOf as failureOfType } from "../../testing/test-failures";
import { startTestServer, type Handler, type TestServer } from "../../testing/test-server";

/** An input schema: an object of `properties`, nothing else, `required` required. */
export const object = (required: string[], properties: Record<string, unknown>) => ({
  type: "object",
  additionalProperties: false,
  required,
  properties,
});

/** The catalog fields every test entry shares. */
export function entry(
  id: string,
  upstream: string,
  modality: string,
  schema: unknown,
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    upstream_model: upstream,
    name: id,
    description: "A test entry.",
    modality,
    tasks: ["test"],
    input_schema: schema,
    pricing: { unit: "run", usd: "0.01" },
    ...extra,
  };
}

/** The models of a providers file holding this one provider, by ID; its api_key_env TEST_KEY is `key`. */
export function modelsOf(provider: Record<string, unknown>, key: string): Record<string, ModelDefinition> {
  const text = JSON.stringify({ providers: [provider] });
  return Object.fromEntries(remoteModels(parseProvidersFile(text, { TEST_KEY: key })).map((m) => [m.id, m]));
}

/** The run's failure: a ModelError (a message fit for the person). */
export const failureOf = (run: Promise<unknown>) => failureOfType(run, ModelError);

/**
 * One fake provider server per test: `start` serves `handler` (read it back as `current`), and
 * the server is closed after each test.
 */
export function useFakeServer(): { readonly current: TestServer | null; start(handler: Handler): Promise<TestServer> } {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  return {
    get current() {
      return server;
    },
    async start(handler: Handler): Promise<TestServer> {
      server = await startTestServer(handler);
      return server;
    },
  };
}

/**
 * A server on another local address (127.0.0.2) serving a PNG at any path: where a provider's
 * result links must never lead. Runs `test` with its origin and the paths it was asked for.
 */
export async function withServerElsewhere(test: (origin: string, asked: string[]) => Promise<void>): Promise<void> {
  const asked: string[] = [];
  const other = createServer((req, res) => {
    asked.push(req.url ?? "");
    void fakePng(8, 8, "elsewhere").then((png) => res.writeHead(200, { "content-type": "image/png" }).end(png));
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.2", resolve));
  try {
    await test(`http://127.0.0.2:${(other.address() as AddressInfo).port}`, asked);
  } finally {
    other.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
  }
}

/**
 * Decodes sounds with ffmpeg, each written as `name` in a scratch directory (named from `prefix`,
 * removed after all the file's tests): the duration in seconds, as ffmpeg measured the PCM it decoded.
 */
export function useSoundDecoder(prefix: string): (data: Buffer, name: string) => number {
  const ffmpegPath = testRunTools().ffmpegPath;
  const scratch = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  return (data, name) => {
    const file = path.join(scratch, name);
    writeFileSync(file, data);
    const result = spawnSync(ffmpegPath, ["-v", "error", "-i", file, "-f", "s16le", "-ac", "1", "-ar", "8000", "-"], {
      maxBuffer: 16 << 20,
    });
    expect(result.status, String(result.stderr)).toBe(0);
    return result.stdout.length / 2 / 8000;
  };
}
