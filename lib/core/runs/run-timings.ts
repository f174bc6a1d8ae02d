// How long a model's runs usually take: the studio's estimate of progress for a running run whose
// model reports none ("about 3 s left"). Across every workspace: a model's speed is the server's,
// not the workspace's.
import type { Db } from "../../store/database";
import { splitModelId } from "../catalog/catalog";

/** The succeeded runs the typical time is taken over, newest first. */
export const TYPICAL_RUN_SAMPLE = 20;

/** The median of `values` (the mean of the middle two for an even count); null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The query of a model's last TYPICAL_RUN_SAMPLE succeeded runs, newest first (ops reads many at once). */
export function recentSucceededRuns(db: Db, model: string) {
  let query = db
    .selectFrom("generations")
    .select(["started_at", "completed_at"])
    // model_base first: the index of migration 012 serves both forms.
    .where("model_base", "=", splitModelId(model).base);
  if (model.includes("@")) query = query.where("model", "=", model);
  return query
    .where("status", "=", "succeeded")
    .where("started_at", "is not", null)
    .where("completed_at", "is not", null)
    .orderBy("completed_at", "desc")
    .orderBy("id", "desc")
    .limit(TYPICAL_RUN_SAMPLE);
}

/** Seconds from start to end of each run (runs whose times make no sense are left out). */
export function runSeconds(rows: ReadonlyArray<{ started_at: string | null; completed_at: string | null }>): number[] {
  return rows
    .map((row) => (Date.parse(row.completed_at!) - Date.parse(row.started_at!)) / 1000)
    .filter((s) => Number.isFinite(s) && s >= 0);
}

/**
 * Seconds from start to end of a typical run of `model`: the median over its last
 * TYPICAL_RUN_SAMPLE succeeded runs, or null when it has none. A versioned ID ("…@2") counts that
 * version only; an ID without version counts every version, as the runs list filter does.
 */
export async function typicalRunSeconds(db: Db, model: string): Promise<number | null> {
  return median(runSeconds(await recentSucceededRuns(db, model).execute()));
}
