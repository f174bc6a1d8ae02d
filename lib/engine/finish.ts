// Ending a run: status, outputs, charge or release (with its provider cost, ops-only), and the
// event row, in one transaction.
import { randomUUID } from "node:crypto";
import { sql, type Compilable } from "kysely";
import { nowIso, type Services } from "../core/context";
import { endHoldQuery, settledHoldWrites } from "../core/credits/credits";
import { budgetReleaseWrite } from "../core/budgets/budget-spend";
import type { StoredOutput } from "../core/runs/generation-view";
import type { RouteAttempt } from "../core/catalog/model-definition";
import { runEndedEventWrites } from "../core/webhooks/run-events";
import { webhookEndpointsQuery } from "../core/webhooks/webhook-deliveries";
import { observeRunEnded } from "../primitives/metrics";
import { GENERATIONS_COLUMNS, type Db, type GenerationsTable, type WebhookEndpointsTable } from "../store/database";
import { planOnce } from "../store/dialects";
import { writeList } from "../store/writes";

export type RunOutcome =
  | {
      status: "succeeded";
      outputs: StoredOutput[];
      /** What the run cost upstream (lib/core/runs/provider-cost.ts); null or absent: not known. Ops-only. */
      providerCostMicros?: number | null;
      /** A routed entry's target that made the outputs: the run's `provider` from now on. */
      provider?: string;
      attempts?: RouteAttempt[];
    }
  | {
      status: "failed";
      message: string;
      /** What the failed job cost upstream, where the provider reported billed time; else null or absent. */
      providerCostMicros?: number | null;
      provider?: string;
      attempts?: RouteAttempt[];
    };

/**
 * Ends a run this worker holds, and gives its row as committed. Returns null, changing nothing,
 * when the run is no longer ours (canceled meanwhile, or recovered by another worker): its
 * result is thrown away.
 *
 * A write list that reads first (lib/store/writes.ts): the run, its hold and the workspace's
 * webhook endpoints, then the event, its deliveries, the ledger entry and the balance with the commit.
 * While the transaction runs, the run's lease_owner is a name of this finish alone, so that the
 * hold ends in the first step only if this finish ended the run.
 */
export async function finishRun(
  db: Db,
  services: Services,
  input: { id: string; owner: string; outcome: RunOutcome },
): Promise<GenerationsTable | null> {
  const { outcome } = input;
  const at = nowIso();
  const finishing = `finishing ${randomUUID()}`;
  const holdOutcome = outcome.status === "succeeded" ? "charge" : "release";
  const thisRun = () => db.selectFrom("generations").where("id", "=", input.id);
  let ended = null as GenerationsTable | null;
  const committed = await writeList(db, {
    reads: [
      endRunQuery(db, input, { at, finishing }),
      planOnce(
        endHoldQuery(db, {
          hold: thisRun().select("hold_id").where("lease_owner", "=", finishing).$asScalar(),
          outcome: holdOutcome,
          at,
        }),
      ),
      webhookEndpointsQuery(db, thisRun().select("workspace_id").$asScalar()),
    ],
    writes: async ([runs, holds, endpoints]) => {
      const stored = runs![0] as GenerationsTable | undefined;
      if (!stored) return null;
      const row: GenerationsTable = { ...stored, lease_owner: null };
      const hold = holds![0] as { workspace_id: string; amount_micros: number } | undefined;
      ended = row;
      return [
        ...(await runEndedEventWrites(db, services, row, endpoints as WebhookEndpointsTable[])),
        thisRunLeaseCleared(db, input.id, finishing),
        ...(hold && row.hold_id
          ? settledHoldWrites(db, {
              holdId: row.hold_id,
              workspaceId: hold.workspace_id,
              amountMicros: hold.amount_micros,
              outcome: holdOutcome,
              at,
            })
          : []),
        // A released hold goes back to the budgets of the day and month the run started in.
        ...(hold && row.hold_id && holdOutcome === "release" && row.created_by
          ? [
              budgetReleaseWrite(db, {
                workspaceId: hold.workspace_id,
                creatorId: row.created_by,
                amountMicros: Number(hold.amount_micros),
                at: row.created_at,
              }),
            ]
          : []),
      ].map((write) => planOnce(write.compile()));
    },
  });
  // Counted once the transaction committed (in memory, lib/primitives/metrics.ts).
  if (!committed || !ended) return null;
  observeRunEnded(ended);
  return ended;
}

function thisRunLeaseCleared(db: Db, id: string, finishing: string): Compilable {
  return db
    .updateTable("generations")
    .set({ lease_owner: null })
    .where("id", "=", id)
    .where("lease_owner", "=", finishing);
}

/** The run ended, if this worker still holds it, read back whole (GENERATIONS_COLUMNS, planned once). */
function endRunQuery(
  db: Db,
  input: { id: string; owner: string; outcome: RunOutcome },
  by: { at: string; finishing: string },
) {
  const { outcome } = input;
  return planOnce(
    db
      .updateTable("generations")
      .set((eb) => ({
        status: outcome.status,
        output_json: outcome.status === "succeeded" ? JSON.stringify(outcome.outputs) : "[]",
        error_message: outcome.status === "failed" ? outcome.message : null,
        charged_micros: outcome.status === "succeeded" ? eb.ref("price_micros") : null,
        // Beside the charge, in the same statement: the margin's two sides are never apart.
        provider_cost_micros: outcome.providerCostMicros ?? null,
        // Always both parameters (the statement is planned once): null keeps the provider as it is.
        provider: sql<string>`coalesce(${outcome.provider ?? null}, provider)`,
        route_attempts_json: outcome.attempts ? JSON.stringify(outcome.attempts) : null,
        completed_at: by.at,
        lease_owner: by.finishing,
        lease_expires_at: null,
      }))
      .where("id", "=", input.id)
      .where("lease_owner", "=", input.owner)
      .where("status", "=", "running")
      .returning(GENERATIONS_COLUMNS)
      .compile(),
  );
}
