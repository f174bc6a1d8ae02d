// The fair queue (issue 38) on one server's worker slots: a busy workspace queues 200 runs of the
// fastest model (batches), then a quiet one queues 5. Under first come, first served the quiet
// runs would wait for all 200; in the fair order they start within about two run-times of being
// queued. Throughput is measured against the same 205 runs queued by one workspace alone (no
// other workspace to interleave: the plain order), in the same run.
import type { BenchSettings } from "../lib/context";
import { queueRuns } from "../lib/idle-readers";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { endedRuns as ended, type RunTimes } from "../lib/ended-runs";
import { percentile } from "../lib/stats";
import type { FastestModel } from "./runs";

const span = (rows: RunTimes[]) =>
  Math.max(...rows.map((r) => Date.parse(r.completed_at!))) - Math.min(...rows.map((r) => Date.parse(r.created_at)));

export async function fairQueueScenario(
  settings: BenchSettings,
  server: ServerHandle,
  workspaces: { busy: { workspaceId: string; key: string }; quiet: { workspaceId: string; key: string } },
  alone: { workspaceId: string; key: string },
  model: FastestModel,
  storeName: string,
): Promise<Row[]> {
  const busyRuns = settings.smoke ? 20 : 200;
  const quietRuns = 5;
  const request = { model: model.id, input: model.input };

  // The plain order first: one workspace's runs, as many, nothing to be fair between.
  await queueRuns(server, alone.key, busyRuns + quietRuns, request);
  const plain = await ended(server, [alone.workspaceId], busyRuns + quietRuns);

  await queueRuns(server, workspaces.busy.key, busyRuns, request);
  await queueRuns(server, workspaces.quiet.key, quietRuns, request);
  const fair = await ended(server, [workspaces.busy.workspaceId, workspaces.quiet.workspaceId], busyRuns + quietRuns);

  const runMs = percentile(
    fair.map((r) => Date.parse(r.completed_at!) - Date.parse(r.started_at!)),
    50,
  )!;
  const quietWaits = fair
    .filter((r) => r.workspace_id === workspaces.quiet.workspaceId)
    .map((r) => (Date.parse(r.started_at!) - Date.parse(r.created_at)) / Math.max(1, runMs));
  const firstStart = Math.min(...quietWaits);
  const lastStart = Math.max(...quietWaits);
  const throughput = (busyRuns + quietRuns) / span(fair);
  const plainThroughput = (busyRuns + quietRuns) / span(plain);
  return [
    {
      scenario: `fair queue: a quiet workspace's ${quietRuns} runs after a busy one's ${busyRuns}, ${storeName}`,
      figure: "first start, in run-times after queued",
      unit: "×",
      value: firstStart,
      baseline: null,
      ratio: null,
      target: "≤ 2 run-times",
      pass: settings.smoke ? null : firstStart <= 2,
      note: `run-time: median ${Math.round(runMs)} ms; its last run started after ${lastStart.toFixed(1)} run-times; first come, first served: ~${busyRuns / 2} (two slots)`,
    },
    {
      scenario: `fair queue: ${busyRuns + quietRuns} runs of two workspaces, ${storeName}`,
      figure: "runs/s (baseline: one workspace alone)",
      unit: "/s",
      value: throughput * 1000,
      baseline: plainThroughput * 1000,
      ratio: throughput / plainThroughput,
      target: "≥ 95 % of the plain order",
      pass: settings.smoke ? null : throughput / plainThroughput >= 0.95,
    },
  ];
}
