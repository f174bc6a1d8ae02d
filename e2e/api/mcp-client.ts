// An MCP client of the e2e tests: the SDK's own, over Streamable HTTP with an API key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ServerSpec } from "./servers";

export async function connect(spec: ServerSpec, key: string): Promise<Client> {
  const client = new Client({ name: "atelier-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${spec.baseURL}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  onprogress?: (p: { progress: number; message?: string }) => void,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 90_000,
    ...(onprogress ? { onprogress } : {}),
  })) as CallToolResult;
}
