// Waiting for a bench's queued runs to end, read from the store: every run of the workspaces,
// once none is queued or running (and all succeeded), with their times.
import { openStore } from "../../lib/store/store";
import type { ServerHandle } from "./server";
import { sleep } from "./stats";

export type RunTimes = {
  workspace_id: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
};

/** Every run of these workspaces once all have ended, from the store. */
export async function endedRuns(server: ServerHandle, workspaceIds: string[], n: number): Promise<RunTimes[]> {
  const store = openStore({ databaseUrl: server.store.databaseUrl || null, dataDir: server.store.dataDir });
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const rows = await store.db
        .selectFrom("generations")
        .select(["workspace_id", "status", "created_at", "started_at", "completed_at"])
        .where("workspace_id", "in", workspaceIds)
        .execute();
      const open = rows.filter((r) => r.status === "queued" || r.status === "running").length;
      if (rows.length >= n && open === 0) {
        const failed = rows.filter((r) => r.status !== "succeeded").length;
        if (failed > 0) throw new Error(`${failed} of ${n} runs did not succeed`);
        return rows;
      }
      if (Date.now() > deadline) throw new Error(`${open} of ${n} runs still open after 5 minutes`);
      await sleep(100);
    }
  } finally {
    await store.close();
  }
}
