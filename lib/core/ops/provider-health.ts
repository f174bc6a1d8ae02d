// What the store says of remote providers' health, for the ops Providers page (issue 37): each
// one's outage in force (provider_outages: whichever process saw the failure wrote it) and its
// last few failed runs of the last day. Plain reads; only an operator makes them (OpsCtx).
import type { OpsCtx } from "./ops-principal";

/** How far back a provider's failures are listed, and how many of them. */
export const PROVIDER_FAILURE_WINDOW_MS = 24 * 3_600_000;
export const PROVIDER_FAILURES_SHOWN = 5;

export interface ProviderFailure {
  id: string;
  model: string;
  at: string;
  message: string | null;
}

export interface ProviderHealthRecord {
  /** Null while in service; else until when and why (the reason the failing process recorded). */
  outage: { until: string; reason: string; since: string } | null;
  /** The last few failed runs through it in the window, newest first. */
  failures: ProviderFailure[];
}

export async function providerHealthRecords(
  ctx: OpsCtx,
  providerIds: readonly string[],
  options: { now?: Date } = {},
): Promise<Map<string, ProviderHealthRecord>> {
  const now = options.now ?? new Date();
  const nowIso = now.toISOString();
  const since = new Date(now.getTime() - PROVIDER_FAILURE_WINDOW_MS).toISOString();
  const reads = ctx.reads ?? ctx.db;
  const [outages, failures] = await Promise.all([
    ctx.db.selectFrom("provider_outages").selectAll().where("down_until", ">", nowIso).execute(),
    // One read per provider: each gets its newest few, however many runs the others failed.
    Promise.all(
      providerIds.map((id) =>
        reads
          .selectFrom("generations")
          .select(["id", "model", "completed_at", "error_message"])
          .where("provider", "=", id)
          .where("status", "=", "failed")
          .where("completed_at", ">=", since)
          .orderBy("completed_at", "desc")
          .limit(PROVIDER_FAILURES_SHOWN)
          .execute(),
      ),
    ),
  ]);
  const outageOf = new Map(outages.map((o) => [o.provider_id, o] as const));
  return new Map(
    providerIds.map((id, i) => {
      const outage = outageOf.get(id);
      return [
        id,
        {
          outage: outage ? { until: outage.down_until, reason: outage.reason, since: outage.updated_at } : null,
          failures: failures[i]!.map((r) => ({
            id: r.id,
            model: r.model,
            at: r.completed_at ?? "",
            message: r.error_message,
          })),
        },
      ];
    }),
  );
}
