// Many concurrent `Prefer: wait=30` readers of queued runs (workers paused): the server's RSS
// growth while they wait, and its store queries per second with few and with many waiters.
import http from "node:http";
import type { BenchSettings } from "../lib/context";
import { holdIdleReaders, idleReaderRows } from "../lib/idle-readers";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";

export async function waitersScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
): Promise<Row[]> {
  const scenario = `${settings.smoke ? "50" : "5,000"} concurrent Prefer: wait=30 readers`;
  let answeredEarly = 0;
  let failed = 0;
  const measured = await holdIdleReaders(settings, server, ws, {
    open: (id, agent) => {
      const req = http.get(
        `${server.api}/v1/generations/${id}`,
        { agent, headers: { "x-api-key": ws.key, prefer: "wait=30" } },
        (res) => {
          answeredEarly += 1;
          res.resume();
        },
      );
      req.on("error", () => {
        failed += 1;
      });
      return req;
    },
    problems: () =>
      [
        answeredEarly > 0 ? `${answeredEarly} answered before the wait ended` : "",
        failed > 0 ? `${failed} requests failed` : "",
      ].filter(Boolean),
  });
  return idleReaderRows(scenario, "waiters", measured);
}
