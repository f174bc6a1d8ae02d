// A fresh, migrated store for one test file: an embedded SQLite file in its own temp directory,
// or, when STORE_TEST_DATABASE_URL is set, a PostgreSQL schema of its own. Tests create their
// own workspaces, so files never see each other's rows and run in parallel on both dialects.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { localBlobStore } from "../../blobs/blob-store";
import { examplePictureDirectory } from "../../blobs/picture-directory";
import { SCOPES, type Ctx, type Scope } from "../../core/context";
import { createRunSignals } from "../../engine/run-signals";
import { defaultFfmpegPath } from "../../media/ffmpeg";
import { compileBlocklist } from "../../core/catalog/moderation";
import { migrateStore, openStore, type Store } from "../store";
import { MIGRATIONS } from "../migrations";
import { Migrator } from "kysely";

export interface TestStore {
  store: Store;
  /** A temp directory of this store's own (the SQLite file lives here; blobs may too). */
  dataDir: string;
  /** PostgreSQL URL and schema when on PostgreSQL; null on SQLite. */
  postgres: { databaseUrl: string; schema: string } | null;
  cleanup(): Promise<void>;
}

export function testDatabaseUrl(): string | null {
  const url = process.env.STORE_TEST_DATABASE_URL;
  return url ? url : null;
}

/** Which dialect the store tests run on, for naming describe blocks. */
export function testDialect(): "sqlite" | "postgres" {
  return testDatabaseUrl() ? "postgres" : "sqlite";
}

async function withPgClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs the migrations up to and including `name` only: a store as an older release left it. */
async function migrateUpTo(store: Store, name: string, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableSchema: schema,
  });
  const result = await migrator.migrateTo(name);
  if (result.error) throw result.error;
}

/**
 * A fresh store, migrated to the latest schema, or with `olderSchema` to that migration only (an
 * upgrade test then calls migrateStore on it).
 */
export async function openTestStore(options: { olderSchema?: string } = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "atelier-test-"));
  const databaseUrl = testDatabaseUrl();
  if (!databaseUrl) {
    const store = openStore({ databaseUrl: null, dataDir });
    try {
      await (options.olderSchema ? migrateUpTo(store, options.olderSchema) : migrateStore(store));
    } catch (err) {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
    return {
      store,
      dataDir,
      postgres: null,
      async cleanup() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }

  const schema = `t_${randomBytes(8).toString("hex")}`;
  await withPgClient(databaseUrl, (client) => client.query(`CREATE SCHEMA "${schema}"`));
  const dropSchema = async () => {
    await withPgClient(databaseUrl, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const store = openStore({ databaseUrl, dataDir, searchPath: schema });
  try {
    await (options.olderSchema ? migrateUpTo(store, options.olderSchema, schema) : migrateStore(store));
  } catch (err) {
    await store.close();
    await dropSchema();
    throw err;
  }
  return {
    store,
    dataDir,
    postgres: { databaseUrl, schema },
    async cleanup() {
      await store.close();
      await dropSchema();
    },
  };
}

/** The context an API key of `workspaceId` would get: all scopes unless told otherwise. */
export function testCtx(
  testStore: Pick<TestStore, "store" | "dataDir">,
  workspaceId: string,
  options: { scopes?: readonly Scope[]; moderationBlocklist?: readonly string[]; webhookSchedule?: number[] } = {},
): Ctx {
  return {
    db: testStore.store.db,
    workspaceId,
    actor: { kind: "api_key", id: "key_test" },
    scopes: options.scopes ?? [...SCOPES],
    source: "api",
    services: {
      secretKey: "test-secret-key-test-secret-key-0123456789",
      publicBaseUrl: "http://localhost:3000",
      blobs: localBlobStore(testStore.dataDir),
      examplePictures: examplePictureDirectory(testStore.dataDir),
      signals: createRunSignals(),
      ffmpegPath: defaultFfmpegPath(process.env.PATH ?? ""),
      webhooks: { allowInsecure: true, retryScheduleSeconds: options.webhookSchedule ?? [0, 0.05, 0.05] },
      moderationBlocklist: compileBlocklist(options.moderationBlocklist ?? []),
    },
  };
}

/**
 * A fresh store for the enclosing `describe`, opened before its tests and removed after them.
 * Read `.t` and `.db` inside tests (they are set once the store is open).
 */
export function useTestStore(): { readonly t: TestStore; readonly db: Store["db"] } {
  let opened: TestStore | null = null;
  beforeAll(async () => {
    opened = await openTestStore();
  });
  afterAll(async () => {
    await opened?.cleanup();
  });
  const current = () => {
    if (!opened) throw new Error("useTestStore: the store is read before beforeAll opened it");
    return opened;
  };
  return {
    get t() {
      return current();
    },
    get db() {
      return current().store.db;
    },
  };
}

/** Another connection to the test store, as a second process would open it (close it yourself). */
export function openSameStore(t: TestStore): Store {
  return openStore({
    databaseUrl: t.postgres?.databaseUrl ?? null,
    dataDir: t.dataDir,
    searchPath: t.postgres?.schema,
  });
}
