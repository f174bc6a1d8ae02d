// POST /mcp: the MCP door (Streamable HTTP, stateless: a new server and transport per request,
// so any replica answers). Authenticated and rate limited like /v1 (the app's middleware counts
// the IP, this counts the key); the SDK speaks the protocol, the tools call the core verbs.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ListToolsRequestSchema, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Hono } from "hono";
import { z } from "zod";
import type { Ctx } from "../../lib/core/context";
import { ApiError } from "../../lib/primitives/errors";
import { findJsonProblem, paramName } from "../../lib/primitives/http/json-body-check";
import { validateModelInput } from "../../lib/core/catalog/input-validation";
import { LIMITS } from "../../lib/primitives/limits";
import type { ApiDeps, ApiEnv } from "../env";
import { loggedError } from "../respond";
import { keyCtx, readLimitedBytes } from "../route";
import { ARGUMENTS, RESULTS, type ToolName } from "./schemas";
import { TOOLS, type ToolCall } from "./tools";

const INSTRUCTIONS =
  "Atelier runs image, video and audio models. list_models finds one, get_model shows its input, quote prices a run, generate runs it (spending the workspace's credit) and returns the result, get_generation waits for a run that is still going.";

/**
 * tools/call with any params. The SDK's Server checks them against CallToolRequestSchema itself
 * and answers -32602 Invalid params with what is wrong; registering the strict schema would make
 * the base class's own parse fail first, which it reports as -32603 Internal error.
 */
const ToolsCallRequest = z.looseObject({ method: z.literal("tools/call") });

function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOLS, name);
}

/** Checks the arguments as the API checks a body: no U+0000, bounded nesting, then the tool's schema. */
function checkedArguments(name: ToolName, raw: unknown): Record<string, unknown> {
  const args = raw ?? {};
  const problem = findJsonProblem(args);
  if (problem?.kind === "nul") {
    const param = paramName(problem.path);
    throw new ApiError(
      "invalid_parameter",
      `${param ?? "A key of the arguments"} holds the character U+0000 (NUL), which no field accepts.`,
      { param },
    );
  }
  if (problem) {
    // The top-level argument the deep part sits in; the full path would be the limit's length.
    const top = typeof problem.path[0] === "string" ? problem.path[0] : null;
    throw new ApiError(
      "invalid_parameter",
      `The arguments are nested too deeply${top ? ` in ${top}` : ""}: at most ${LIMITS.jsonNestingDepth} levels.`,
      { param: top },
    );
  }
  try {
    return validateModelInput(ARGUMENTS[name], args, { modelId: `the ${name} tool`, paramPrefix: "arguments" });
  } catch (err) {
    if (err instanceof ApiError && err.param)
      throw new ApiError(err.code, err.message, { param: err.param.replace(/^arguments\.?/, "") || null });
    throw err;
  }
}

function createMcpServer(ctx: Ctx, deps: ApiDeps, requestId: string): Server {
  const server = new Server(
    { name: "atelier", title: "Atelier", version: "1.0.0" },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(TOOLS).map(([name, tool]) => ({
      name,
      title: tool.title,
      description: tool.description,
      inputSchema: ARGUMENTS[name as ToolName] as { type: "object" },
      outputSchema: RESULTS[name as ToolName] as { type: "object" },
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }));

  server.setRequestHandler(ToolsCallRequest, async (raw, extra): Promise<CallToolResult> => {
    const request = raw as unknown as CallToolRequest; // checked by the Server (above)
    const { name } = request.params;
    try {
      if (!isToolName(name)) {
        throw new ApiError(
          "invalid_parameter",
          `There is no tool "${name}". The tools are: ${Object.keys(TOOLS).join(", ")}.`,
          { param: "name" },
        );
      }
      const token = request.params._meta?.progressToken;
      const call: ToolCall = {
        signal: extra.signal,
        progress:
          token === undefined
            ? null
            : (progress, total, message) =>
                extra.sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, progress, total, message },
                }),
      };
      return await TOOLS[name].run(ctx, checkedArguments(name, request.params.arguments), call);
    } catch (err) {
      // A failed call is a result the agent reads, never a protocol error. The details are in
      // the text only: the SDK's client checks structuredContent against the output schema.
      const { body } = loggedError(deps, err, { requestId, method: "POST", path: `/mcp tools/call ${name}` });
      return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
    }
  });
  return server;
}

export function mcpRoutes(app: Hono<ApiEnv>, deps: ApiDeps): void {
  app.post("/mcp", async (c) => {
    const ctx = await keyCtx(c, deps, "mcp");
    const bytes = await readLimitedBytes(
      c.req.raw,
      LIMITS.mcpBodyBytes,
      `An MCP message is at most ${LIMITS.mcpBodyBytes / 1024 / 1024} MB.`,
    );
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(bytes.toString("utf8"));
    } catch {
      parsedBody = undefined;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await createMcpServer(ctx, deps, c.get("requestId")).connect(transport);
    // Not JSON: the transport reads the bytes itself and answers the JSON-RPC parse error.
    if (parsedBody === undefined) {
      return transport.handleRequest(
        new Request(c.req.url, { method: "POST", headers: c.req.raw.headers, body: new Uint8Array(bytes) }),
      );
    }
    return transport.handleRequest(c.req.raw, { parsedBody });
  });

  // Stateless: no stream to resume (GET) and no session to end (DELETE).
  for (const method of ["GET", "DELETE", "PUT", "PATCH"] as const) {
    app.on(method, "/mcp", () => {
      throw new ApiError(
        "method_not_allowed",
        `${method} /mcp is not served: this MCP endpoint is stateless and takes POST only.`,
        { headers: { Allow: "POST" } },
      );
    });
  }
}
