// The MCP door's cost over the API's: the fastest image model run to the end through MCP's
// `generate` (the official SDK client, Streamable HTTP, one connection) against the same run through
// POST /v1/generations with Prefer: wait, alternating, in the same server and run. The MCP answer
// also carries the image inline (scaled and re-encoded), which the REST answer does not.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { percentile } from "../lib/stats";
import { createAndWait, type FastestModel } from "./runs";

export async function mcpGenerateScenario(
  settings: BenchSettings,
  server: ServerHandle,
  key: string,
  model: FastestModel,
): Promise<Row[]> {
  const client = new Client({ name: "atelier-bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.api}/mcp`), { requestInit: { headers: { "x-api-key": key } } }),
  );
  const body = JSON.stringify({ model: model.id, input: model.input });
  const generate = async (): Promise<number> => {
    const started = performance.now();
    const result = await client.callTool({
      name: "generate",
      arguments: { model: model.id, input: model.input, wait_seconds: 30 },
    });
    const ms = performance.now() - started;
    const status = (result.structuredContent as { status?: string } | undefined)?.status;
    if (result.isError || status !== "succeeded")
      throw new Error(`MCP generate ended ${status ?? JSON.stringify(result.content)}`);
    return ms;
  };
  try {
    for (let i = 0; i < (settings.smoke ? 1 : 5); i++) {
      await generate();
      await createAndWait(server, key, body);
    }
    const viaMcp: number[] = [];
    const viaRest: number[] = [];
    for (let i = 0; i < (settings.smoke ? 3 : 50); i++) {
      viaMcp.push(await generate());
      viaRest.push((await createAndWait(server, key, body)).ms);
    }
    const mcp = percentile(viaMcp, 50)!;
    const rest = percentile(viaRest, 50)!;
    return [
      {
        scenario: `${model.id} end to end, MCP generate`,
        figure: "p50 (baseline: POST /v1/generations, Prefer: wait)",
        unit: "ms",
        value: mcp,
        baseline: rest,
        ratio: mcp / rest,
        target: "≤ REST + 20 ms",
        pass: mcp <= rest + 20,
      },
    ];
  } finally {
    await client.close();
  }
}
