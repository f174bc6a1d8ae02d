// For tests of the connection check (connection-check*.test.ts): a provider's config built as the
// providers file would give it, and a port nothing listens on.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { ProviderConfig, RemoteEntryConfig } from "../common/types";

/** A provider of `kind` at `baseUrl`; its entries name `upstream` models (only what a check reads is filled). */
export function providerConfig(
  kind: string,
  baseUrl: string,
  apiKey: string | null,
  more: { options?: Record<string, unknown>; upstream?: string[]; timeoutMs?: number } = {},
): ProviderConfig {
  return {
    id: `test-${kind}`,
    kind,
    baseUrl,
    apiKey,
    timeoutMs: more.timeoutMs ?? 5_000,
    jobTimeoutMs: null,
    options: more.options ?? {},
    entries: (more.upstream ?? []).map(
      (upstreamModel, i) =>
        ({
          id: `test/entry-${i}`,
          upstreamModel,
          name: upstreamModel,
          creator: "Test",
          description: "A test entry.",
          modality: "image",
          tasks: ["text-to-image"],
          revision: "1",
          status: "stable",
          lifecycle: null,
          inputSchema: { type: "object", additionalProperties: false, properties: {} },
          pricing: { unit: "run", usd: "0.01" },
          options: {},
        }) as unknown as RemoteEntryConfig,
    ),
  };
}

/** http://127.0.0.1:<port> where nothing listens any more (the port was bound, then closed). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
