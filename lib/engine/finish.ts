// Ending a run: status, outputs, charge or release, and the event row, in one transaction.
import type { Services } from "../core/context";
import { settleHold } from "../core/credits";
import type { StoredOutput } from "../core/generation-view";
import { appendRunEndedEvent } from "../core/run-events";
import { observeRunEnded } from "../metrics";
import type { Db, GenerationsTable } from "../store/database";
import { withTransaction } from "../store/store";

export type RunOutcome = { status: "succeeded"; outputs: StoredOutput[] } | { status: "failed"; message: string };

/**
 * Ends a run this worker holds, and gives its row as committed. Returns null, changing nothing,
 * when the run is no longer ours (canceled meanwhile, or recovered by another worker): its
 * result is thrown away.
 */
export async function finishRun(
  db: Db,
  services: Services,
  input: { id: string; owner: string; outcome: RunOutcome },
): Promise<GenerationsTable | null> {
  const ended = await withTransaction(db, async (trx) => {
    const now = new Date().toISOString();
    const { outcome } = input;
    const row = await trx
      .updateTable("generations")
      .set((eb) => ({
        status: outcome.status,
        output_json: outcome.status === "succeeded" ? JSON.stringify(outcome.outputs) : "[]",
        error_message: outcome.status === "failed" ? outcome.message : null,
        charged_micros: outcome.status === "succeeded" ? eb.ref("price_micros") : null,
        completed_at: now,
        lease_owner: null,
        lease_expires_at: null,
      }))
      .where("id", "=", input.id)
      .where("lease_owner", "=", input.owner)
      .where("status", "=", "running")
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    if (row.hold_id) await settleHold(trx, { holdId: row.hold_id, outcome: outcome.status === "succeeded" ? "charge" : "release" });
    await appendRunEndedEvent(trx, services, row as GenerationsTable);
    return row as GenerationsTable;
  });
  // Counted once the transaction committed (in memory, lib/metrics.ts).
  if (ended) observeRunEnded(ended);
  return ended;
}
