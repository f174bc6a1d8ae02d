// Output retention (OUTPUT_RETENTION_DAYS): the outputs of runs finished more than N days ago are
// deleted; the run rows stay, with `output: []` and `outputs_purged_at` saying why. A turn walks
// the finished runs by completed_at (the generations_completed index) from where the last batch
// stopped (retention_marks), a batch per short transaction: the rows lose their outputs and the
// blobs they named are queued in blob_deletions, all in one commit; the blobs go after it. A
// delete that fails stays queued and is tried again next turn, so no row ever names a missing blob.
// Queued and running runs have no completed_at and are never in the walk.
// Kept files (POST /v1/generations/{id}/outputs/{index}/file) share their output's blob: those
// blobs stay. Share links of a purged run still open, and their page says the outputs are gone.
import type { BlobStore } from "../../blobs/blob-store";
import type { Db } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { FINAL_STATUSES } from "./run-states";
import type { StoredOutput, StoredPreview } from "./generation-view";

/** Runs per purge transaction. */
export const OUTPUT_PURGE_BATCH = 500;

const MARK = "outputs";
const DAY_MS = 24 * 3600 * 1000;

export interface OutputPurgeResult {
  /** Runs whose outputs were emptied this turn. */
  runs: number;
  /** Blobs deleted this turn (queued now or left over from an earlier turn). */
  blobsDeleted: number;
  /** Blobs whose delete failed: still queued for the next turn. */
  blobsLeft: number;
}

/** Another process moved the mark meanwhile: it is purging, this turn stops. */
class MarkMoved extends Error {}

/**
 * One retention turn: empties the outputs of runs that finished before `now - olderThanDays`,
 * `batchSize` runs per transaction, then deletes their blobs. `shouldStop` is asked between batches.
 */
export async function purgeOldOutputs(
  deps: { db: Db; blobs: BlobStore },
  input: { olderThanDays: number; now?: number; batchSize?: number; shouldStop?: () => boolean },
): Promise<OutputPurgeResult> {
  const now = input.now ?? Date.now();
  const before = new Date(now - input.olderThanDays * DAY_MS).toISOString();
  const batchSize = input.batchSize ?? OUTPUT_PURGE_BATCH;
  const result: OutputPurgeResult = { runs: 0, blobsDeleted: 0, blobsLeft: 0 };
  // What an earlier turn could not delete first.
  const leftOver = await deleteQueuedBlobs(deps, null, batchSize);
  result.blobsDeleted += leftOver.deleted;
  result.blobsLeft += leftOver.left;
  for (;;) {
    if (input.shouldStop?.()) break;
    let batch: { runs: number; scanned: number; blobs: string[] };
    try {
      batch = await purgeBatch(deps.db, { before, batchSize, at: new Date(now).toISOString() });
    } catch (err) {
      if (err instanceof MarkMoved) break;
      throw err;
    }
    result.runs += batch.runs;
    if (batch.blobs.length > 0) {
      const deleted = await deleteQueuedBlobs(deps, batch.blobs, batchSize);
      result.blobsDeleted += deleted.deleted;
      result.blobsLeft += deleted.left;
      // The blob store is failing: empty no more runs this turn, their blobs would only queue up.
      if (deleted.left > 0) break;
    }
    if (batch.scanned < batchSize) break;
  }
  return result;
}

/** The blobs a run's stored outputs and preview name, but those of outputs kept as files. */
function blobsOf(row: { output_json: string; preview_json: string | null }, keptIndexes: Set<number>): string[] {
  const blobs: string[] = [];
  (JSON.parse(row.output_json) as StoredOutput[]).forEach((output, index) => {
    if (!keptIndexes.has(index)) blobs.push(output.blob);
    if (output.poster) blobs.push(output.poster.blob);
  });
  if (row.preview_json !== null) blobs.push((JSON.parse(row.preview_json) as StoredPreview).blob);
  return blobs;
}

async function purgeBatch(
  db: Db,
  input: { before: string; batchSize: number; at: string },
): Promise<{ runs: number; scanned: number; blobs: string[] }> {
  return withTransaction(db, async (trx) => {
    const mark = await trx
      .selectFrom("retention_marks")
      .select(["completed_at", "id"])
      .where("name", "=", MARK)
      .executeTakeFirst();
    // An index range on completed_at from the mark: (completed_at, id) > mark, completed_at < before.
    let walk = trx
      .selectFrom("generations")
      .select(["id", "completed_at", "status", "output_json", "preview_json", "outputs_purged_at"])
      .where("completed_at", "<", input.before);
    if (mark) {
      walk = walk
        .where("completed_at", ">=", mark.completed_at)
        .where((eb) => eb.or([eb("completed_at", ">", mark.completed_at), eb("id", ">", mark.id)]));
    } else {
      walk = walk.where("completed_at", "is not", null);
    }
    const rows = await walk.orderBy("completed_at").orderBy("id").limit(input.batchSize).execute();
    if (rows.length === 0) return { runs: 0, scanned: 0, blobs: [] };
    const finals: readonly string[] = FINAL_STATUSES;
    const due = rows.filter(
      (row) =>
        finals.includes(row.status) &&
        !row.outputs_purged_at &&
        (row.output_json !== "[]" || row.preview_json !== null),
    );
    const kept = new Map<string, Set<number>>();
    if (due.length > 0) {
      const files = await trx
        .selectFrom("files")
        .select(["generation_id", "output_index"])
        .where(
          "generation_id",
          "in",
          due.map((row) => row.id),
        )
        .execute();
      for (const file of files) {
        if (file.generation_id === null || file.output_index === null) continue;
        const indexes = kept.get(file.generation_id) ?? new Set<number>();
        indexes.add(Number(file.output_index));
        kept.set(file.generation_id, indexes);
      }
    }
    const queued = due.flatMap((row) =>
      blobsOf(row, kept.get(row.id) ?? new Set()).map((blob) => ({
        blob,
        generation_id: row.id,
        queued_at: input.at,
      })),
    );
    if (due.length > 0) {
      await trx
        .updateTable("generations")
        .set({ output_json: "[]", preview_json: null, outputs_purged_at: input.at })
        .where(
          "id",
          "in",
          due.map((row) => row.id),
        )
        .where("status", "in", FINAL_STATUSES)
        .where("outputs_purged_at", "is", null)
        .execute();
    }
    for (let i = 0; i < queued.length; i += 500) {
      await trx
        .insertInto("blob_deletions")
        .values(queued.slice(i, i + 500))
        .onConflict((oc) => oc.column("blob").doNothing())
        .execute();
    }
    // Compare and swap: a process that finds the mark moved under it rolls back and stops.
    const last = rows[rows.length - 1]!;
    const next = { completed_at: last.completed_at!, id: last.id };
    const moved = mark
      ? await trx
          .updateTable("retention_marks")
          .set(next)
          .where("name", "=", MARK)
          .where("completed_at", "=", mark.completed_at)
          .where("id", "=", mark.id)
          .executeTakeFirst()
          .then((r) => r.numUpdatedRows > 0n)
      : await trx
          .insertInto("retention_marks")
          .values({ name: MARK, ...next })
          .onConflict((oc) => oc.column("name").doNothing())
          .executeTakeFirst()
          .then((r) => (r.numInsertedOrUpdatedRows ?? 0n) > 0n);
    if (!moved) throw new MarkMoved();
    return { runs: due.length, scanned: rows.length, blobs: queued.map((q) => q.blob) };
  });
}

/**
 * Deletes queued blobs (`only` those, or every queued one), then their queue rows. A blob a file
 * was kept from since it was queued stays (only its queue row goes).
 */
async function deleteQueuedBlobs(
  deps: { db: Db; blobs: BlobStore },
  only: string[] | null,
  batchSize: number,
): Promise<{ deleted: number; left: number }> {
  let deleted = 0;
  let left = 0;
  let after = "";
  for (;;) {
    let query = deps.db.selectFrom("blob_deletions").select(["blob", "generation_id"]).where("blob", ">", after);
    if (only) query = query.where("blob", "in", only);
    const queued = await query.orderBy("blob").limit(batchSize).execute();
    if (queued.length === 0) break;
    after = queued[queued.length - 1]!.blob;
    const keptFiles = await deps.db
      .selectFrom("files")
      .select("blob")
      .where("generation_id", "in", [...new Set(queued.map((q) => q.generation_id))])
      .execute();
    const kept = new Set(keptFiles.map((f) => f.blob));
    const done: string[] = [];
    for (const { blob } of queued) {
      if (kept.has(blob)) {
        done.push(blob);
        continue;
      }
      try {
        await deps.blobs.delete(blob);
        done.push(blob);
        deleted += 1;
      } catch {
        left += 1;
      }
    }
    if (done.length > 0) await deps.db.deleteFrom("blob_deletions").where("blob", "in", done).execute();
    if (queued.length < batchSize) break;
  }
  return { deleted, left };
}
