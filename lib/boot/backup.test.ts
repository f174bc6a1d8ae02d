// admin backup and restore on a real SQLite file and a real blobs directory: a backup taken while
// runs are created and finished by the engine restores into a store where every run, file and
// blob is there and the ledger adds up, and a damaged backup or a used DATA_DIR is refused.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localBlobStore } from "../blobs/blob-store";
import type { Ctx, Services } from "../core/context";
import { readBalance, sumLedger } from "../core/credits/credits";
import { blobsNamedByStore } from "../core/files/blob-references";
import { createImageFile } from "../core/files/files";
import { authenticateApiKey, createApiKey, type CreatedApiKey } from "../core/keys/api-keys";
import type { StoredOutput } from "../core/runs/generation-view";
import { createGeneration } from "../core/runs/generations";
import { purgeOldOutputs } from "../core/runs/output-retention";
import { createShareLink, readSharedRun } from "../core/shares/share-links";
import { createWorkspace } from "../core/workspaces/workspaces";
import { startEngine, type Engine } from "../engine/engine";
import { ApiError } from "../primitives/errors";
import { openTestStore, testCtx, testDialect, type TestStore } from "../store/testing/test-store";
import { migrateStore, openStore, type Store } from "../store/store";
import { backupInstall, MANIFEST, restoreInstall, type BackupManifest } from "./backup";
import type { StorageSettings } from "./config";

const USD = 1_000_000;
const WAIT_MS = 30_000;
const DAY_MS = 86_400_000;
const silent = pino({ level: "silent" });

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** The blob keys with a file under `dataDir`/blobs. */
function blobFilesIn(dataDir: string): string[] {
  const root = path.join(dataDir, "blobs");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .flatMap((shard) => readdirSync(path.join(root, shard)))
    .sort();
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe.skipIf(testDialect() === "postgres")("admin backup and restore (sqlite)", () => {
  let t: TestStore;
  let ctx: Ctx;
  let engine: Engine | null = null;
  let restored: Store | null = null;
  const dirs: string[] = [];
  const newDir = (name: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `atelier-${name}-`));
    dirs.push(dir);
    return dir;
  };
  /** A path no one made yet: a new DATA_DIR. */
  const freshPath = (name: string) => path.join(newDir(name), "data");
  let settings: StorageSettings;
  let backupDir: string;

  beforeAll(async () => {
    t = await openTestStore();
    ctx = testCtx(t, (await createWorkspace({ db: t.store.db }, { name: "backup test", creditMicros: 100 * USD })).id);
    // As a first start leaves it when SECRET_KEY is unset (config.ts).
    writeFileSync(path.join(t.dataDir, "secret-key"), ctx.services.secretKey + "\n", { mode: 0o600 });
    settings = { dataDir: t.dataDir, databaseUrl: null, secretKeyInEnv: false, s3: null };
  });
  afterAll(async () => {
    await engine?.stop();
    await restored?.close();
    await t?.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("backs up while runs are created and finished; the restore has every run, file and blob, the ledger exact, keys and share links working", async () => {
    const db = t.store.db;
    const key: CreatedApiKey = await createApiKey({ db }, { workspaceId: ctx.workspaceId, prefix: "atl" });
    engine = startEngine({
      db,
      dialect: t.store.dialect,
      services: ctx.services,
      logger: silent,
      concurrency: 2,
      idlePollMs: 25,
    });
    const run = (seed: number) =>
      createGeneration(ctx, { model: "atelier/gradient", input: { prompt: "backup dusk", num_images: 2, seed } });
    const shared = (await run(1)).generation;
    await ctx.services.signals.waitForFinish(shared.id, WAIT_MS);
    const share = await createShareLink(ctx, { runId: shared.id });
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#2255aa" } })
      .png()
      .toBuffer();

    // The load: runs created while the engine finishes others (a few in flight), and files uploaded.
    const createdBeforeBackup: string[] = [];
    let backupStarted = false;
    let loading = true;
    let made = 0;
    const load = (async () => {
      const inFlight: Promise<unknown>[] = [];
      for (let seed = 2; loading; seed++) {
        const { generation } = await run(seed);
        if (!backupStarted) createdBeforeBackup.push(generation.id);
        inFlight.push(ctx.services.signals.waitForFinish(generation.id, WAIT_MS));
        if (seed % 3 === 0) await createImageFile(ctx, { data: png, filename: `upload-${seed}.png` });
        made += 1;
        if (inFlight.length > 3) await inFlight.shift();
      }
      await Promise.all(inFlight);
    })();
    const loaded = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => (made >= n ? resolve() : setTimeout(check, 20));
        load.catch(reject);
        check();
      });
    await loaded(8);
    backupStarted = true;
    backupDir = freshPath("backup");
    const report = await backupInstall(settings, { to: backupDir });
    const madeAtBackup = made;
    // And on after it: what is written now is the live store's, not the backup's.
    await loaded(madeAtBackup + 4);
    loading = false;
    await load;
    await engine.stop();
    engine = null;

    const manifest = JSON.parse(readFileSync(path.join(backupDir, MANIFEST), "utf8")) as BackupManifest;
    expect(manifest).toMatchObject({ object: "atelier_backup", database: "sqlite", blobs: "disk", secret_key: "file" });
    expect(report).toMatchObject({ database_copied: true, secret_key_copied: true, files: manifest.files.length });
    expect(manifest.files.filter((f) => f.path.startsWith("blobs/"))).toHaveLength(report.blobs_copied);
    expect(report.notes.join(" ")).toMatch(/secret-key/);

    const dataDir = freshPath("restored");
    const restoreReport = await restoreInstall({ ...settings, dataDir }, { from: backupDir });
    expect(restoreReport).toMatchObject({ data_dir: dataDir, files: manifest.files.length });
    expect(readdirSync(dataDir).sort()).toEqual(["atelier.sqlite", "blobs", "secret-key"]);
    restored = openStore({ databaseUrl: null, dataDir });
    await migrateStore(restored);
    const rdb = restored.db;
    const services: Services = {
      ...ctx.services,
      secretKey: readFileSync(path.join(dataDir, "secret-key"), "utf8").trim(),
      blobs: localBlobStore(dataDir),
    };

    // Every run created before the backup began is there; none the live store lacks.
    const runs = await rdb.selectFrom("generations").selectAll().where("workspace_id", "=", ctx.workspaceId).execute();
    const ids = new Set(runs.map((r) => r.id));
    for (const id of [shared.id, ...createdBeforeBackup]) expect(ids.has(id)).toBe(true);
    const live = await db.selectFrom("generations").select("id").where("workspace_id", "=", ctx.workspaceId).execute();
    expect(live.length).toBeGreaterThan(runs.length);
    // Outputs and files: the very bytes the live install holds.
    const liveBlobs = localBlobStore(t.dataDir);
    let outputs = 0;
    for (const row of runs.filter((r) => r.status === "succeeded")) {
      for (const output of JSON.parse(row.output_json) as StoredOutput[]) {
        const bytes = await services.blobs.readAll(output.blob);
        expect(bytes.byteLength).toBe(output.bytes);
        expect(sha256(bytes)).toBe(sha256(await liveBlobs.readAll(output.blob)));
        outputs += 1;
      }
    }
    expect(outputs).toBeGreaterThanOrEqual(2 * (1 + 8 - 4));
    const files = await rdb.selectFrom("files").selectAll().where("workspace_id", "=", ctx.workspaceId).execute();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect((await services.blobs.readAll(file.blob)).equals(png)).toBe(true);
    // Exactly the blobs the restored store names: none it lacks, none written after the snapshot.
    expect(blobFilesIn(dataDir)).toEqual([...(await blobsNamedByStore(rdb))].sort());
    expect(blobFilesIn(t.dataDir).length).toBeGreaterThan(blobFilesIn(dataDir).length);

    // The ledger adds up to the balance, with runs caught mid-flight holding their credit.
    const balance = await readBalance(rdb, ctx.workspaceId);
    expect(await sumLedger(rdb, ctx.workspaceId)).toEqual(balance);
    expect(balance.grantedMicros).toBe(100 * USD);
    expect(balance.grantedMicros).toBe(balance.availableMicros + balance.heldMicros + balance.chargedMicros);

    // The API key authenticates, the share link opens with the restored secret key (and only with it).
    const authenticated = await authenticateApiKey({ db: rdb }, { xApiKey: key.key, authorization: undefined }, "atl");
    expect(authenticated.workspaceId).toBe(ctx.workspaceId);
    const page = await readSharedRun({ db: rdb, services }, { token: share.token });
    expect(page.outputs).toHaveLength(2);
    const otherKey = { ...services, secretKey: "another-secret-key-another-secret-key-0000" };
    expect((await refusal(readSharedRun({ db: rdb, services: otherKey }, { token: share.token }))).code).toBe(
      "resource_not_found",
    );
  });

  it("refuses to restore into a DATA_DIR that holds anything, and leaves it as it was", async () => {
    const dataDir = newDir("used");
    writeFileSync(path.join(dataDir, "notes.txt"), "mine");
    const err = await refusal(restoreInstall({ ...settings, dataDir }, { from: backupDir }));
    expect(err.message).toContain(`DATA_DIR (${dataDir}) is not empty (it holds notes.txt)`);
    expect(readdirSync(dataDir)).toEqual(["notes.txt"]);
  });

  it("refuses to back up into a directory that holds anything", async () => {
    const err = await refusal(backupInstall(settings, { to: backupDir }));
    expect(err.message).toMatch(/is not empty \(it holds .*manifest\.json/);
  });

  /** A copy of the backup, changed by `damage`; restoring it must fail with `message` and leave DATA_DIR empty. */
  async function expectDamaged(damage: (dir: string, manifest: BackupManifest) => void, message: RegExp) {
    const copy = path.join(newDir("damaged"), "backup");
    cpSync(backupDir, copy, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(copy, MANIFEST), "utf8")) as BackupManifest;
    damage(copy, manifest);
    const dataDir = freshPath("restore-damaged");
    const err = await refusal(restoreInstall({ ...settings, dataDir }, { from: copy }));
    expect(err.message).toMatch(message);
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
  }

  it("refuses a blob whose bytes changed, naming it", async () => {
    await expectDamaged((dir, manifest) => {
      const blob = manifest.files.find((f) => f.path.startsWith("blobs/"))!;
      const file = path.join(dir, blob.path);
      const bytes = readFileSync(file);
      bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
      writeFileSync(file, bytes);
    }, /^blobs\/\w\w\/\w{32} in .* is not the file the backup wrote: its sha256 is [0-9a-f]{64}, the manifest says/);
  });

  it("refuses a manifest entry whose sha256 was changed", async () => {
    await expectDamaged((dir, manifest) => {
      const entry = manifest.files.find((f) => f.path === "atelier.sqlite")!;
      entry.sha256 = entry.sha256.replace(/^./, (c) => (c === "0" ? "1" : "0"));
      writeFileSync(path.join(dir, MANIFEST), JSON.stringify(manifest));
    }, /^atelier\.sqlite in .* is not the file the backup wrote: its sha256/);
  });

  it("refuses a manifest entry outside the backup's files", async () => {
    await expectDamaged((dir, manifest) => {
      manifest.files[0]!.path = "../../etc/passwd";
      writeFileSync(path.join(dir, MANIFEST), JSON.stringify(manifest));
    }, /is not a manifest this version can restore: it lists "\.\.\/\.\.\/etc\/passwd", which is not a file a backup holds/);
  });

  it("refuses a backup with a file missing, naming it", async () => {
    await expectDamaged((dir, manifest) => {
      rmSync(path.join(dir, manifest.files.find((f) => f.path.startsWith("blobs/"))!.path));
    }, /^blobs\/\w\w\/\w{32} is listed in the manifest but missing from /);
  });

  it("on PostgreSQL copies every blob on disk and the key file, not the database, and says what else to keep", async () => {
    const to = freshPath("backup-pg");
    const report = await backupInstall(
      { ...settings, databaseUrl: "postgres://atelier@127.0.0.1:5432/atelier", secretKeyInEnv: true },
      { to },
    );
    expect(report).toMatchObject({ database: "postgres", database_copied: false, secret_key: "environment" });
    expect(report.notes.join(" ")).toMatch(/pg_dump/);
    expect(report.notes.join(" ")).toMatch(/SECRET_KEY is set in the environment/);
    expect(existsSync(path.join(to, "atelier.sqlite"))).toBe(false);
    expect(blobFilesIn(to)).toEqual(blobFilesIn(t.dataDir));

    const withBucket = await backupInstall(
      {
        ...settings,
        databaseUrl: "postgres://atelier@127.0.0.1:5432/atelier",
        s3: { bucket: "atelier-files" } as never,
      },
      { to: freshPath("backup-s3") },
    );
    expect(withBucket).toMatchObject({ blobs: "s3", blobs_copied: 0, secret_key_copied: true });
    expect(withBucket.notes.join(" ")).toMatch(/bucket atelier-files.*versioning/);
  });

  it("takes a newer snapshot when output retention deletes blobs the first one named before they are copied", async () => {
    const db = t.store.db;
    const before = await db
      .selectFrom("generations")
      .select("id")
      .where("workspace_id", "=", ctx.workspaceId)
      .where("status", "=", "succeeded")
      .where("outputs_purged_at", "is", null)
      .execute();
    expect(before.length).toBeGreaterThan(0);
    let purged = 0;
    const to = freshPath("backup-purged");
    const report = await backupInstall(settings, {
      to,
      afterSnapshot: async () => {
        if (purged > 0) return;
        // Every finished run is past its retention two days from now: their rows lose their outputs, then the blobs go.
        purged = (
          await purgeOldOutputs(
            { db, blobs: localBlobStore(t.dataDir) },
            { olderThanDays: 1, now: Date.now() + 2 * DAY_MS },
          )
        ).runs;
      },
    });
    expect(purged).toBeGreaterThanOrEqual(before.length);
    expect(report.snapshots).toBe(2);

    const dataDir = freshPath("restored-purged");
    await restoreInstall({ ...settings, dataDir }, { from: to });
    const again = openStore({ databaseUrl: null, dataDir });
    try {
      const rows = await again.db
        .selectFrom("generations")
        .select(["id", "output_json", "outputs_purged_at"])
        .where(
          "id",
          "in",
          before.map((r) => r.id),
        )
        .execute();
      expect(rows.map((r) => [r.output_json, r.outputs_purged_at !== null])).toEqual(rows.map(() => ["[]", true]));
      // The files kept their blobs; nothing named is missing, nothing purged came along.
      expect(blobFilesIn(dataDir)).toEqual([...(await blobsNamedByStore(again.db))].sort());
      expect(blobFilesIn(dataDir).length).toBeGreaterThan(0);
    } finally {
      await again.close();
    }
  });
});
