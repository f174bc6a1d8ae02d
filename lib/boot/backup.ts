// `admin backup` and `admin restore` (docs/operating.md, "Backups"). A backup is a directory: the
// embedded store copied by SQLite's online backup API while the server runs, the blobs that copy
// names (not those of the live store, which moves on), DATA_DIR/secret-key when the key lives
// there, and manifest.json, written last, with each file's size and sha256. A restore copies it
// into an empty DATA_DIR and checks every file against the manifest before anything is in place.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { isBlobKey, shardedDirectory } from "../blobs/blob-store";
import { blobsNamedByStore } from "../core/files/blob-references";
import { ApiError } from "../primitives/errors";
import { copySqliteStore, openSqliteCopy } from "../store/sqlite-backup";
import { sqliteFileIn } from "../store/store";
import { secretKeyFile, type StorageSettings } from "./config";

export const MANIFEST = "manifest.json";
const FORMAT = 1;
const DATABASE_FILE = "atelier.sqlite";
const SECRET_KEY_FILE = "secret-key";
/** Files copied at once. */
const COPIES_AT_ONCE = 8;
/** Snapshots taken when blobs the copy names were deleted before they were copied (output retention). */
const SNAPSHOT_TRIES = 3;

export interface ManifestFile {
  /** Relative to the backup (and to DATA_DIR), "/"-separated. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  object: "atelier_backup";
  format: typeof FORMAT;
  created_at: string;
  /** "sqlite": atelier.sqlite is in the backup; "postgres": the database is not (pg_dump, PITR). */
  database: "sqlite" | "postgres";
  /** "disk": the blobs are in the backup; "s3": they stay in the bucket. */
  blobs: "disk" | "s3";
  /** "file": secret-key is in the backup; "environment": SECRET_KEY was set and is not. */
  secret_key: "file" | "environment" | "none";
  files: ManifestFile[];
}

export interface BackupReport {
  object: "backup";
  to: string;
  database: BackupManifest["database"];
  database_copied: boolean;
  /** Snapshots of the store taken: more than 1 when blobs the first named were deleted before they were copied. */
  snapshots: number;
  blobs: BackupManifest["blobs"];
  blobs_copied: number;
  secret_key: BackupManifest["secret_key"];
  secret_key_copied: boolean;
  files: number;
  bytes: number;
  /** What the operator must know or keep beside the backup. */
  notes: string[];
}

export interface RestoreReport {
  object: "restore";
  from: string;
  data_dir: string;
  database: BackupManifest["database"];
  blobs: BackupManifest["blobs"];
  secret_key: BackupManifest["secret_key"];
  files: number;
  bytes: number;
  notes: string[];
}

const relative = (file: string) => file.split("/").join(path.sep);
const blobPath = (key: string) => `blobs/${key.slice(0, 2)}/${key}`;

/** Copies `source` to a new file `destination`, hashing on the way; throws ENOENT (and writes nothing) when `source` is gone. */
async function copyHashing(source: string, destination: string, mode?: number): Promise<Omit<ManifestFile, "path">> {
  const handle = await open(source, "r");
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    await mkdir(path.dirname(destination), { recursive: true });
    await pipeline(
      handle.createReadStream({ autoClose: false }),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          bytes += chunk.byteLength;
          yield chunk;
        }
      },
      createWriteStream(destination, { flags: "wx", mode }),
    );
  } finally {
    await handle.close();
  }
  return { bytes, sha256: hash.digest("hex") };
}

async function hashFile(file: string): Promise<Omit<ManifestFile, "path">> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/**
 * Runs `work` on every item, COPIES_AT_ONCE at a time. The first failure stops it: it throws once
 * every copy under way has settled, so nothing writes after the caller cleans up.
 */
async function eachAtOnce<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      try {
        await work(items[next++]!);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(COPIES_AT_ONCE, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === "ENOENT";

/** The directory's entries, or null when it does not exist; throws a clear error when it is a file. */
async function entriesOf(dir: string, param: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (isMissing(err)) return null;
    if ((err as NodeJS.ErrnoException).code === "ENOTDIR")
      throw new ApiError("invalid_parameter", `${dir} is a file, not a directory.`, { param });
    throw err;
  }
}

function listed(entries: string[]): string {
  const shown = entries.slice(0, 3).join(", ");
  return entries.length > 3 ? `${shown} and ${entries.length - 3} more` : shown;
}

/** Every blob key with a file under DATA_DIR/blobs (a PostgreSQL install's blobs on disk: no snapshot names them). */
async function blobsOnDisk(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, "blobs");
  const keys: string[] = [];
  for (const shard of (await entriesOf(root, "to")) ?? []) {
    for (const name of (await entriesOf(path.join(root, shard), "to")) ?? []) {
      if (isBlobKey(name) && name.slice(0, 2) === shard) keys.push(name);
    }
  }
  return keys.sort();
}

/**
 * Copies a running install into `to`, a new or empty directory: on SQLite the store (online
 * backup) and the blobs on disk it names; on PostgreSQL only the blobs on disk (the database is
 * pg_dump's or PITR's). Then DATA_DIR/secret-key when the key lives there, and the manifest.
 */
export async function backupInstall(
  settings: StorageSettings,
  options: {
    to: string;
    /** Runs after each snapshot, before its blobs are copied (tests: a purge in between). */
    afterSnapshot?: () => Promise<void>;
  },
): Promise<BackupReport> {
  const to = path.resolve(options.to);
  const existing = await entriesOf(to, "to");
  if (existing && existing.length > 0) {
    throw new ApiError(
      "invalid_parameter",
      `--to ${to} is not empty (it holds ${listed(existing)}): a backup goes into a new or empty directory, so that it holds only what it lists. Name a new directory, such as ${path.join(path.dirname(to), `atelier-${new Date().toISOString().slice(0, 10)}`)}.`,
      { param: "to" },
    );
  }
  const onSqlite = settings.databaseUrl === null;
  const source = sqliteFileIn(settings.dataDir);
  if (onSqlite && !existsSync(source)) {
    throw new ApiError(
      "invalid_parameter",
      `There is no store at ${source}: DATA_DIR (${settings.dataDir}) must be the server's. Run the command with the server's DATA_DIR.`,
      { param: "to" },
    );
  }
  await mkdir(to, { recursive: true });
  const notes: string[] = [];
  const files: ManifestFile[] = [];
  const blobs: Map<string, ManifestFile> = new Map();
  const blobStore = settings.s3 ? "s3" : "disk";
  const into = shardedDirectory(path.join(to, "blobs"));
  const from = shardedDirectory(path.join(settings.dataDir, "blobs"));
  /** Copies the blobs not copied yet; answers those gone from DATA_DIR. */
  let snapshots = 0;
  const copyBlobs = async (keys: string[]): Promise<string[]> => {
    const gone: string[] = [];
    await eachAtOnce(
      keys.filter((key) => !blobs.has(key)),
      async (key) => {
        try {
          blobs.set(key, { path: blobPath(key), ...(await copyHashing(from.pathOf(key), into.pathOf(key))) });
        } catch (err) {
          if (!isMissing(err)) throw err;
          gone.push(key);
        }
      },
    );
    return gone;
  };
  try {
    if (onSqlite) {
      const copy = path.join(to, DATABASE_FILE);
      let named = new Set<string>();
      for (let attempt = 1; ; attempt++) {
        await rm(copy, { force: true });
        await copySqliteStore(source, copy);
        snapshots = attempt;
        await options.afterSnapshot?.();
        if (blobStore === "s3") break;
        const db = openSqliteCopy(copy);
        try {
          named = new Set([...(await blobsNamedByStore(db))].filter(isBlobKey));
        } finally {
          await db.destroy();
        }
        // Gone since the snapshot: output retention emptied their runs after it. A newer snapshot no longer names them.
        const gone = await copyBlobs([...named].sort());
        if (gone.length === 0) break;
        if (attempt === SNAPSHOT_TRIES) {
          throw new ApiError(
            "invalid_request",
            `${gone.length} blobs the store named were deleted before they could be copied (${listed(gone)}), in ${SNAPSHOT_TRIES} snapshots in a row. Something is deleting blobs as fast as the backup copies them: run the backup again.`,
          );
        }
      }
      // Copied for an earlier snapshot, named no more by the one kept.
      for (const key of [...blobs.keys()].filter((key) => !named.has(key))) {
        await rm(into.pathOf(key), { force: true });
        blobs.delete(key);
      }
      files.push({ path: DATABASE_FILE, ...(await hashFile(copy)) });
      notes.push(
        `The store was copied with SQLite's online backup: it is the store as one commit left it, taken while the server ran.`,
      );
    } else {
      notes.push(
        "DATABASE_URL is set: the PostgreSQL database is not in this backup. Back it up with pg_dump (or the server's point-in-time recovery) and keep that dump with this directory.",
      );
      if (blobStore === "disk") {
        // Blobs are written before their rows and deleted after them: blobs copied after a dump
        // hold every blob the dump names (but outputs purged by OUTPUT_RETENTION_DAYS in between).
        await copyBlobs(await blobsOnDisk(settings.dataDir));
        notes.push(
          "The blobs on disk were copied (every one there now): take the pg_dump first and this backup right after it, so that they hold every blob the dump names.",
        );
      }
    }
    if (blobStore === "s3") {
      notes.push(
        `Files and outputs are in the bucket ${settings.s3!.bucket}, not in this backup: turn on the bucket's versioning (and a lifecycle rule for old versions) so that a deleted or overwritten blob can be brought back.`,
      );
    }
    files.push(...[...blobs.values()].sort((a, b) => a.path.localeCompare(b.path)));

    let secretKey: BackupManifest["secret_key"] = "none";
    if (settings.secretKeyInEnv) {
      secretKey = "environment";
      notes.push(
        "SECRET_KEY is set in the environment, so it is not in this backup: keep its value with the backup (as safely). Without it, stored provider keys cannot be read and share links and signed links stop working.",
      );
    } else if (existsSync(secretKeyFile(settings.dataDir))) {
      secretKey = "file";
      files.push({
        path: SECRET_KEY_FILE,
        ...(await copyHashing(secretKeyFile(settings.dataDir), path.join(to, SECRET_KEY_FILE), 0o600)),
      });
      notes.push(
        `The install's SECRET_KEY lives in ${secretKeyFile(settings.dataDir)}: it was copied as secret-key. It unlocks stored provider keys and signs share links: keep this backup as safe as DATA_DIR itself.`,
      );
    } else {
      notes.push(
        "Neither SECRET_KEY nor DATA_DIR/secret-key is set: this install has never started, so there is no key to keep.",
      );
    }

    const manifest: BackupManifest = {
      object: "atelier_backup",
      format: FORMAT,
      created_at: new Date().toISOString(),
      database: onSqlite ? "sqlite" : "postgres",
      blobs: blobStore,
      secret_key: secretKey,
      files,
    };
    // Last, and whole: a directory without it is a backup that did not finish.
    await writeFile(path.join(to, `${MANIFEST}.tmp`), JSON.stringify(manifest, null, 2) + "\n");
    await rename(path.join(to, `${MANIFEST}.tmp`), path.join(to, MANIFEST));
    return {
      object: "backup",
      to,
      database: manifest.database,
      database_copied: onSqlite,
      snapshots,
      blobs: blobStore,
      blobs_copied: blobs.size,
      secret_key: secretKey,
      secret_key_copied: secretKey === "file",
      files: files.length,
      bytes: files.reduce((sum, f) => sum + f.bytes, 0),
      notes,
    };
  } catch (err) {
    // Nothing half-made is left to be taken for a backup.
    for (const entry of await readdir(to)) await rm(path.join(to, entry), { recursive: true, force: true });
    throw err;
  }
}

/** What a backup's manifest may list: the store, the key, blobs in their shards. Nothing else, nothing outside. */
function isBackupPath(file: string): boolean {
  if (file === DATABASE_FILE || file === SECRET_KEY_FILE) return true;
  const match = /^blobs\/([0-9A-Za-z]{2})\/([0-9A-Za-z]{32})$/.exec(file);
  return match !== null && match[2]!.startsWith(match[1]!);
}

async function readManifest(from: string): Promise<BackupManifest> {
  const file = path.join(from, MANIFEST);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === "ENOTDIR") {
      throw new ApiError(
        "invalid_parameter",
        `${from} holds no ${MANIFEST}: it is not an Atelier backup, or one that did not finish. Name the directory \`admin backup --to\` made.`,
        { param: "from" },
      );
    }
    throw err;
  }
  const bad = (why: string) =>
    new ApiError("invalid_request", `${file} is not a manifest this version can restore: ${why}.`, { param: "from" });
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw bad("it is not valid JSON");
  }
  if (manifest?.object !== "atelier_backup") throw bad('its "object" is not "atelier_backup"');
  if (manifest.format !== FORMAT) throw bad(`its format is ${String(manifest.format)}, this version reads ${FORMAT}`);
  if (!["sqlite", "postgres"].includes(manifest.database)) throw bad('"database" is neither sqlite nor postgres');
  if (!["disk", "s3"].includes(manifest.blobs)) throw bad('"blobs" is neither disk nor s3');
  if (!["file", "environment", "none"].includes(manifest.secret_key))
    throw bad('"secret_key" is not file, environment or none');
  if (!Array.isArray(manifest.files)) throw bad('"files" is not a list');
  const seen = new Set<string>();
  for (const entry of manifest.files) {
    const name = typeof entry?.path === "string" ? entry.path.slice(0, 100) : "?";
    if (!isBackupPath(entry?.path)) throw bad(`it lists "${name}", which is not a file a backup holds`);
    if (seen.has(entry.path)) throw bad(`it lists ${name} twice`);
    seen.add(entry.path);
    if (!Number.isSafeInteger(entry.bytes) || entry.bytes < 0) throw bad(`the size of ${name} is not a whole number`);
    if (typeof entry.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(entry.sha256))
      throw bad(`the sha256 of ${name} is not 64 hex digits`);
  }
  if (manifest.database === "sqlite" && !seen.has(DATABASE_FILE)) throw bad(`it lists no ${DATABASE_FILE}`);
  return manifest;
}

/**
 * Copies the backup in `from` into DATA_DIR, which must be empty or new: every file through a
 * directory of its own inside DATA_DIR, checked against the manifest's size and sha256, and moved
 * into place only once all of them are. A missing or changed file stops it with DATA_DIR left empty.
 */
export async function restoreInstall(settings: StorageSettings, options: { from: string }): Promise<RestoreReport> {
  const from = path.resolve(options.from);
  const dataDir = settings.dataDir;
  if ((await entriesOf(from, "from")) === null)
    throw new ApiError("invalid_parameter", `--from ${from} does not exist.`, { param: "from" });
  const manifest = await readManifest(from);
  if (manifest.database === "sqlite" && settings.databaseUrl !== null) {
    throw new ApiError(
      "invalid_parameter",
      "This backup holds an embedded SQLite store, but DATABASE_URL is set: unset it to restore the store into DATA_DIR.",
      { param: "from" },
    );
  }
  const existing = await entriesOf(dataDir, "from");
  if (existing && existing.length > 0) {
    throw new ApiError(
      "invalid_parameter",
      `DATA_DIR (${dataDir}) is not empty (it holds ${listed(existing)}): a restore goes into an empty or new directory, so that nothing of another install is mixed in. Point DATA_DIR at a new directory, or move this one aside.`,
      { param: "from" },
    );
  }
  await mkdir(dataDir, { recursive: true });
  const staging = await mkdtemp(path.join(dataDir, ".restoring-"));
  try {
    await eachAtOnce(manifest.files, async (entry) => {
      const source = path.join(from, relative(entry.path));
      const size = await stat(source).then(
        (s) => s.size,
        (err: unknown) => {
          if (isMissing(err)) return null;
          throw err;
        },
      );
      if (size === null) {
        throw new ApiError(
          "invalid_request",
          `${entry.path} is listed in the manifest but missing from ${from}: the backup is incomplete. Restore another backup, or copy the file back.`,
          { param: "from" },
        );
      }
      const corrupt = (what: string) =>
        new ApiError(
          "invalid_request",
          `${entry.path} in ${from} is not the file the backup wrote: ${what}. The backup is damaged; restore another one.`,
          { param: "from" },
        );
      if (size !== entry.bytes) throw corrupt(`it has ${size} bytes, the manifest says ${entry.bytes}`);
      const mode = entry.path === SECRET_KEY_FILE ? 0o600 : undefined;
      const copied = await copyHashing(source, path.join(staging, relative(entry.path)), mode);
      if (copied.sha256 !== entry.sha256 || copied.bytes !== entry.bytes)
        throw corrupt(`its sha256 is ${copied.sha256}, the manifest says ${entry.sha256}`);
    });
    for (const entry of await readdir(staging)) await rename(path.join(staging, entry), path.join(dataDir, entry));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }

  const notes: string[] = [];
  if (manifest.database === "postgres")
    notes.push(
      "The database is not in this backup: restore the pg_dump (or the point in time) taken just before it into the database DATABASE_URL names.",
    );
  if (manifest.blobs === "s3")
    notes.push(
      "Files and outputs are in the bucket: set the same S3_* variables (and restore object versions if needed).",
    );
  if (manifest.secret_key === "file")
    notes.push(
      settings.secretKeyInEnv
        ? "SECRET_KEY is set and wins over the restored DATA_DIR/secret-key: it must be the backed-up install's key, or unset it."
        : "The install's SECRET_KEY was restored as DATA_DIR/secret-key.",
    );
  if (manifest.secret_key === "environment")
    notes.push("The backed-up install's SECRET_KEY was set in its environment: set the same value before starting.");
  notes.push(`Start the server with DATA_DIR=${dataDir}; it brings the store's schema up to date if it is older.`);
  return {
    object: "restore",
    from,
    data_dir: dataDir,
    database: manifest.database,
    blobs: manifest.blobs,
    secret_key: manifest.secret_key,
    files: manifest.files.length,
    bytes: manifest.files.reduce((sum, f) => sum + f.bytes, 0),
    notes,
  };
}
