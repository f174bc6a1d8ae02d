// Webhook deliveries to a local node:http receiver answering 204: event → delivered latency with
// runs made one at a time, then the delivery rate of a backlog (every run's event fanned out to
// 20 endpoints, the most a workspace may have).
import { createServer, type Server } from "node:http";
import type { BenchSettings } from "../lib/context";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { percentile, sleep } from "../lib/stats";
import type { FastestModel } from "./runs";

interface Receipt {
  at: number;
  eventAt: number;
}

async function receiver(receipts: Receipt[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const m = /"timestamp":"([^"]+)"/.exec(Buffer.concat(chunks).toString("utf8"));
      receipts.push({ at, eventAt: m ? Date.parse(m[1]!) : NaN });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook` };
}

async function api(server: ServerHandle, key: string, method: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${server.api}${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function waitForReceipts(receipts: Receipt[], count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receipts.length < count && Date.now() < deadline) await sleep(50);
  if (receipts.length < count)
    throw new Error(`webhooks: ${receipts.length} of ${count} deliveries arrived within ${timeoutMs / 1000} s`);
}

export async function webhooksScenario(
  settings: BenchSettings,
  server: ServerHandle,
  key: string,
  model: FastestModel,
): Promise<Row[]> {
  const scenario = "webhook deliveries to a local receiver";
  const receipts: Receipt[] = [];
  const { server: hook, url } = await receiver(receipts);
  const body = { model: model.id, input: model.input };
  try {
    await api(server, key, "POST", "/v1/webhooks", { url: `${url}?endpoint=0` });

    // Latency: one run at a time, each delivered before the next.
    const sequential = settings.smoke ? 3 : 100;
    for (let i = 0; i < sequential; i++) {
      const before = receipts.length;
      await fetch(`${server.api}/v1/generations`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json", prefer: "wait=30" },
        body: JSON.stringify(body),
      }).then((r) => r.arrayBuffer());
      await waitForReceipts(receipts, before + 1, 30_000);
    }
    const latencies = receipts.map((r) => r.at - r.eventAt);

    // Rate: 20 endpoints, runs queued in batches of 50; deliveries per second from the first to the last.
    for (let i = 1; i < 20; i++) await api(server, key, "POST", "/v1/webhooks", { url: `${url}?endpoint=${i}` });
    receipts.length = 0;
    const runs = settings.smoke ? 2 : 150;
    for (let made = 0; made < runs; made += 50) {
      await api(server, key, "POST", "/v1/batches", {
        requests: Array.from({ length: Math.min(50, runs - made) }, () => body),
      });
    }
    await waitForReceipts(receipts, runs * 20, 120_000);
    const first = Math.min(...receipts.map((r) => r.at));
    const last = Math.max(...receipts.map((r) => r.at));
    const rate = (receipts.length - 1) / Math.max(0.001, (last - first) / 1000);
    const p50 = percentile(latencies, 50)!;
    return [
      {
        scenario,
        figure: `deliveries/s (${runs} runs × 20 endpoints)`,
        unit: "/s",
        value: rate,
        baseline: null,
        ratio: null,
        target: "≥ 500/s",
        pass: rate >= 500,
      },
      {
        scenario,
        figure: "event → delivered p50",
        unit: "ms",
        value: p50,
        baseline: null,
        ratio: null,
        target: "≤ 50 ms",
        pass: p50 <= 50,
      },
    ];
  } finally {
    hook.closeAllConnections();
    hook.close();
  }
}
