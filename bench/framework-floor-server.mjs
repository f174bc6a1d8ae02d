// The framework floor: Atelier's arrangement (a node:http server handing the request to a Hono
// app through @hono/node-server, as server.ts does, the answers of one turn of the event loop
// written out together in its check phase, as api/app.ts does) answering the exact bytes Atelier
// answered with no work of its own, read from the JSON file named by argv[2]. Prints its port
// once listening. Between this and the bare server (baseline-server.mjs) is the framework's
// cost; between this and Atelier is Atelier's own. Run with --import tsx (lib/primitives/event-loop.ts).
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import process from "node:process";
/* global Response */
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { thisTurnsCheckPhase } from "../lib/primitives/event-loop.ts";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const body = Buffer.from(spec.body, "base64");
const headers = { ...spec.headers, "content-length": String(body.length) };

const app = new Hono();
app.all("*", async (c) => {
  // Read the request body as a real route must, then answer.
  if (c.req.method !== "GET" && c.req.method !== "HEAD") await c.req.arrayBuffer();
  await thisTurnsCheckPhase();
  return new Response(body, { status: spec.status, headers });
});
const listener = getRequestListener(app.fetch);
const server = createServer({ requireHostHeader: false }, (req, res) => void listener(req, res));
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
