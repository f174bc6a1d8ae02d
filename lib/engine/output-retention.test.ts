// Output retention on a real store and the disk blob store: exactly the runs finished before the
// retention lose their outputs (rows stay, blobs go after the commit), queued and running runs and
// kept files are never touched, a second turn finds nothing, batches walk on from the mark, and a
// failed blob delete is retried next turn. Both stores.
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { localBlobStore, type BlobStore } from "../blobs/blob-store";
import { s3BlobStore } from "../blobs/s3-blob-store";
import { startTestS3Server } from "../blobs/testing/test-s3-server";
import { loadConfig } from "../boot/config";
import { keepOutputAsFile } from "../core/files/files";
import { purgeOldOutputs } from "../core/runs/output-retention";
import { presentGeneration, type StoredOutput } from "../core/runs/generation-view";
import { createShareLink, readSharedRun } from "../core/shares/share-links";
import { seededRun, type HistorySeed } from "../core/testing/history-seed";
import { createWorkspace } from "../core/workspaces/workspaces";
import type { GenerationsTable } from "../store/database";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { startOutputRetention } from "./output-retention";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-28T12:00:00.000Z");

describe(`output retention (${testDialect()})`, () => {
  const opened: TestStore[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.cleanup();
  });

  /** A store of its own: the purge's mark is one per store. */
  async function fresh(bucket?: BlobStore) {
    const t = await openTestStore();
    opened.push(t);
    const ws = await createWorkspace({ db: t.store.db }, { name: "retention", creditMicros: 0 });
    const blobs = bucket ?? localBlobStore(t.dataDir);
    return { t, db: t.store.db, ws, blobs };
  }

  /**
   * `count` finished runs, one a day going back from NOW - 1 day, each succeeded run with an image
   * output and a preview in the blob store; plus a queued and a running run created long ago.
   */
  async function seedRuns(env: Awaited<ReturnType<typeof fresh>>, count: number) {
    const seed: HistorySeed = { workspaceId: env.ws.id, runs: count, newest: new Date(NOW), days: count };
    const rows: GenerationsTable[] = [];
    for (let i = 0; i < count; i++) {
      const row = seededRun(seed, i);
      // Run i finished (count - i) days before NOW, less an hour: clear of any day boundary.
      row.completed_at = new Date(NOW - (count - i) * DAY + 3600_000).toISOString();
      if (row.status === "succeeded") {
        const output: StoredOutput = {
          type: "image",
          blob: await env.blobs.put(Buffer.from(`output ${i}`), "image/png"),
          content_type: "image/png",
          bytes: 8,
          width: 1,
          height: 1,
        };
        row.output_json = JSON.stringify([output]);
        row.preview_json = JSON.stringify({
          blob: await env.blobs.put(Buffer.from(`preview ${i}`), "image/png"),
          content_type: "image/png",
          width: 1,
          height: 1,
        });
      }
      rows.push(row);
    }
    const old = new Date(NOW - 400 * DAY).toISOString();
    for (const status of ["queued", "running"] as const) {
      const row = seededRun(seed, 0);
      rows.push({
        ...row,
        id: `gen_${status}0000000001`,
        status,
        created_at: old,
        started_at: status === "running" ? old : null,
        completed_at: null,
        charged_micros: null,
        preview_json:
          status === "running"
            ? JSON.stringify({
                blob: await env.blobs.put(Buffer.from("live preview"), "image/png"),
                content_type: "image/png",
                width: 1,
                height: 1,
              })
            : null,
      });
    }
    for (let i = 0; i < rows.length; i += 100) {
      await env.db
        .insertInto("generations")
        .values(rows.slice(i, i + 100))
        .execute();
    }
    return rows;
  }

  const blobsOf = (row: GenerationsTable): string[] => [
    ...(JSON.parse(row.output_json) as StoredOutput[]).map((o) => o.blob),
    ...(row.preview_json ? [(JSON.parse(row.preview_json) as { blob: string }).blob] : []),
  ];

  async function stored(env: Awaited<ReturnType<typeof fresh>>) {
    return env.db.selectFrom("generations").selectAll().where("workspace_id", "=", env.ws.id).orderBy("id").execute();
  }

  it("is off unless OUTPUT_RETENTION_DAYS is set, and then purges nothing", async () => {
    const env = await fresh();
    const DATA_DIR = env.t.dataDir;
    expect(loadConfig({ DATA_DIR }).outputRetentionDays).toBeNull();
    expect(loadConfig({ DATA_DIR, OUTPUT_RETENTION_DAYS: "30" }).outputRetentionDays).toBe(30);
    expect(() => loadConfig({ DATA_DIR, OUTPUT_RETENTION_DAYS: "0" })).toThrow(/OUTPUT_RETENTION_DAYS/);
    const before = await seedRuns(env, 20);
    const retention = startOutputRetention({
      db: env.db,
      services: { blobs: env.blobs },
      logger: pino({ level: "silent" }),
      days: null,
      everyMs: 1,
    });
    await retention.stop();
    const after = await stored(env);
    expect(after.map((r) => [r.id, r.output_json, r.preview_json, r.outputs_purged_at])).toEqual(
      [...before].sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => [r.id, r.output_json, r.preview_json, null]),
    );
    for (const row of before) for (const blob of blobsOf(row)) expect(await env.blobs.size(blob)).not.toBeNull();
    const tasks = await env.db.selectFrom("scheduled_tasks").select("name").execute();
    expect(tasks.map((task) => task.name)).not.toContain("outputs_purge");
  });

  it("empties exactly the runs finished before the retention, keeps the rows, deletes the blobs; a second turn does nothing", async () => {
    const env = await fresh();
    const rows = await seedRuns(env, 40);
    // A file kept from an old run's output keeps that blob.
    const keptRun = rows.find((r, i) => i < 10 && r.status === "succeeded")!;
    const ctx = testCtx(env.t, env.ws.id);
    const file = await keepOutputAsFile(ctx, { id: keptRun.id, index: "0" });
    const keptBlob = (JSON.parse(keptRun.output_json) as StoredOutput[])[0]!.blob;
    const link = await createShareLink(ctx, { runId: keptRun.id });

    const result = await purgeOldOutputs({ db: env.db, blobs: env.blobs }, { olderThanDays: 15, now: NOW });
    const cutoff = new Date(NOW - 15 * DAY).toISOString();
    const isOld = (r: GenerationsTable) => r.completed_at !== null && r.completed_at < cutoff;
    const oldWithOutputs = rows.filter((r) => isOld(r) && r.status === "succeeded");
    expect(oldWithOutputs.length).toBeGreaterThan(20);
    expect(result.runs).toBe(oldWithOutputs.length);
    // Two blobs a run (output and preview), but the kept file's.
    expect(result.blobsDeleted).toBe(oldWithOutputs.length * 2 - 1);
    expect(result.blobsLeft).toBe(0);

    const after = new Map((await stored(env)).map((r) => [r.id, r]));
    expect(after.size).toBe(rows.length);
    for (const row of rows) {
      const now = after.get(row.id)!;
      expect(now.status).toBe(row.status);
      if (isOld(row) && row.status === "succeeded") {
        expect(now.output_json).toBe("[]");
        expect(now.preview_json).toBeNull();
        expect(now.outputs_purged_at).toBe(new Date(NOW).toISOString());
        for (const blob of blobsOf(row)) expect(await env.blobs.size(blob)).toBe(blob === keptBlob ? 8 : null);
      } else {
        // Newer runs, runs that had nothing to purge, and the queued and running runs.
        expect(now.output_json).toBe(row.output_json);
        expect(now.preview_json).toBe(row.preview_json);
        expect(now.outputs_purged_at ?? null).toBeNull();
        for (const blob of blobsOf(row)) expect(await env.blobs.size(blob)).not.toBeNull();
      }
    }
    expect(await env.db.selectFrom("blob_deletions").select("blob").execute()).toEqual([]);
    expect(await env.db.selectFrom("files").select("blob").where("id", "=", file.id).executeTakeFirstOrThrow()).toEqual(
      { blob: keptBlob },
    );

    // What the API and the share page say of a purged run.
    const shown = await presentGeneration(ctx.services, after.get(keptRun.id)!);
    expect(shown.status).toBe("succeeded");
    expect(shown.output).toEqual([]);
    expect(shown.preview).toBeNull();
    expect(shown.outputs_purged_at).toBe(new Date(NOW).toISOString());
    const shared = await readSharedRun({ db: env.db, services: ctx.services }, { token: link.token });
    expect(shared.outputs).toEqual([]);
    expect(shared.outputs_purged_at).toBe(new Date(NOW).toISOString());
    const recent = await presentGeneration(ctx.services, after.get(rows[35]!.id)!);
    expect(recent.outputs_purged_at).toBeNull();

    const again = await purgeOldOutputs({ db: env.db, blobs: env.blobs }, { olderThanDays: 15, now: NOW });
    expect(again).toEqual({ runs: 0, blobsDeleted: 0, blobsLeft: 0 });
    expect(new Map((await stored(env)).map((r) => [r.id, r]))).toEqual(after);

    // A day later, the next day's run goes too, and only it.
    const next = await purgeOldOutputs({ db: env.db, blobs: env.blobs }, { olderThanDays: 15, now: NOW + DAY });
    const dayMore = rows.filter(
      (r) => r.status === "succeeded" && !isOld(r) && r.completed_at! < new Date(NOW + DAY - 15 * DAY).toISOString(),
    );
    expect(next.runs).toBe(dayMore.length);
  });

  it("purges in several batches, walking on from where each stopped", async () => {
    const env = await fresh();
    const rows = await seedRuns(env, 60);
    const result = await purgeOldOutputs(
      { db: env.db, blobs: env.blobs },
      { olderThanDays: 5, now: NOW, batchSize: 7 },
    );
    const cutoff = new Date(NOW - 5 * DAY).toISOString();
    const purged = rows.filter((r) => r.status === "succeeded" && r.completed_at !== null && r.completed_at < cutoff);
    expect(result.runs).toBe(purged.length);
    expect(result.blobsDeleted).toBe(purged.length * 2);
    const left = await env.db
      .selectFrom("generations")
      .select("id")
      .where("workspace_id", "=", env.ws.id)
      .where("completed_at", "<", cutoff)
      .where("outputs_purged_at", "is", null)
      .where("output_json", "!=", "[]")
      .execute();
    expect(left).toEqual([]);
    const lastOld = rows.filter((r) => r.completed_at !== null && r.completed_at < cutoff).at(-1)!;
    expect(await env.db.selectFrom("retention_marks").select(["completed_at", "id"]).executeTakeFirst()).toEqual({
      completed_at: lastOld.completed_at,
      id: lastOld.id,
    });
    // Two turns at once (two processes): every run is purged once.
    const more = await Promise.all(
      [0, 1].map(() => purgeOldOutputs({ db: env.db, blobs: env.blobs }, { olderThanDays: 2, now: NOW, batchSize: 3 })),
    );
    const between = rows.filter(
      (r) =>
        r.status === "succeeded" &&
        r.completed_at! >= cutoff &&
        r.completed_at! < new Date(NOW - 2 * DAY).toISOString(),
    );
    expect(more[0]!.runs + more[1]!.runs).toBe(between.length);
  });

  it("deletes the objects from a bucket", async () => {
    const server = await startTestS3Server();
    const saved = { ...process.env };
    Object.assign(process.env, server.env(""));
    try {
      const bucket = s3BlobStore(server.settings("retention/"));
      const env = await fresh(bucket);
      const rows = await seedRuns(env, 12);
      const cutoff = new Date(NOW - 6 * DAY).toISOString();
      const old = rows.filter((r) => r.status === "succeeded" && r.completed_at! < cutoff);
      const result = await purgeOldOutputs({ db: env.db, blobs: bucket }, { olderThanDays: 6, now: NOW });
      expect(result).toEqual({ runs: old.length, blobsDeleted: old.length * 2, blobsLeft: 0 });
      const kept = rows.filter((r) => !old.includes(r)).flatMap(blobsOf);
      expect(await server.listKeys("retention/")).toEqual(kept.map((key) => `retention/${key}`).sort());
      bucket.close();
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      await server.close();
    }
  });

  it("keeps a blob whose delete failed queued, stops the turn there, and deletes it on the next turn", async () => {
    const env = await fresh();
    const rows = await seedRuns(env, 30);
    let failing = true;
    const flaky: BlobStore = {
      ...env.blobs,
      async delete(key) {
        if (failing) throw new Error("bucket unreachable");
        await env.blobs.delete(key);
      },
    };
    const turn = () => purgeOldOutputs({ db: env.db, blobs: flaky }, { olderThanDays: 6, now: NOW, batchSize: 10 });
    const first = await turn();
    // Only the first batch (the ten oldest runs): with the blob store failing, the turn stops.
    const firstBatch = rows.slice(0, 10).filter((r) => r.status === "succeeded");
    expect(first).toEqual({ runs: firstBatch.length, blobsDeleted: 0, blobsLeft: firstBatch.length * 2 });
    // The rows no longer name the blobs; the queue does.
    const queued = await env.db.selectFrom("blob_deletions").select("blob").orderBy("blob").execute();
    expect(queued.map((q) => q.blob)).toEqual(firstBatch.flatMap(blobsOf).sort());
    for (const blob of firstBatch.flatMap(blobsOf)) expect(await env.blobs.size(blob)).not.toBeNull();

    failing = false;
    const second = await turn();
    const old = rows.filter((r) => r.status === "succeeded" && r.completed_at! < new Date(NOW - 6 * DAY).toISOString());
    expect(second).toEqual({ runs: old.length - firstBatch.length, blobsDeleted: old.length * 2, blobsLeft: 0 });
    for (const blob of old.flatMap(blobsOf)) expect(await env.blobs.size(blob)).toBeNull();
    expect(await env.db.selectFrom("blob_deletions").select("blob").execute()).toEqual([]);
  });
});
