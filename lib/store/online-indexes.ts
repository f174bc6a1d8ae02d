// Indexes added to big tables after the fact, built once the migrations have run. On PostgreSQL
// each is built with CREATE INDEX CONCURRENTLY, outside any transaction, so a large install keeps
// writing runs while it builds (docs/operating.md gives the time one takes on a million runs); a
// build cut short leaves an invalid index, which the next start drops and builds again. SQLite has
// no such build: there it is a plain CREATE INDEX, holding the write lock while it runs.
import { sql, type Kysely } from "kysely";
import type { Database } from "./database";
import { onPostgres } from "./dialects";

export interface OnlineIndex {
  name: string;
  table: string;
  columns: readonly string[];
  /** An older index this one serves for, dropped once this one is built. */
  replaces?: string;
  /**
   * PostgreSQL only: an index over an expression with an index method and an operator class of
   * an extension (which is created first). Where the extension cannot be created the index is
   * skipped: the reads it serves still work, only slower. SQLite has its own (see `sqlite`).
   */
  postgres?: { method: string; expression: string; extension: string; opclass: string };
}

/** The index a history filter's pages walk: the workspace's runs of one value, newest first. */
function historyIndex(name: string, filter: string): OnlineIndex {
  return { name, table: "generations", columns: ["workspace_id", filter, "created_at", "id"] };
}

/** In the order they are built; a name never changes once landed. */
export const ONLINE_INDEXES: readonly OnlineIndex[] = [
  // History pages walk one of these, newest first (lib/core/runs/history-query.ts).
  historyIndex("generations_workspace_model", "model_base"),
  historyIndex("generations_workspace_status", "status"),
  historyIndex("generations_workspace_source", "source"),
  { ...historyIndex("generations_workspace_creator", "created_by"), replaces: "generations_creator" },
  historyIndex("generations_workspace_batch", "batch_id"),
  // The ops page: the newest runs of every workspace, runs in the last minute, failures of the last day.
  { name: "generations_recent", table: "generations", columns: ["created_at", "id"] },
  { name: "generations_failures", table: "generations", columns: ["status", "completed_at"] },
  // A model's last succeeded runs in the order they are read (lib/core/runs/run-timings.ts).
  {
    name: "generations_model_finished",
    table: "generations",
    columns: ["model_base", "status", "completed_at", "id"],
    replaces: "generations_model_ends",
  },
  // Prompt search: LIKE '%…%' over the lower-cased input (history-query.ts). SQLite's is the FTS5
  // table of migration 019.
  {
    name: "generations_input_trgm",
    table: "generations",
    columns: [],
    postgres: { method: "gin", expression: "lower(input_json)", extension: "pg_trgm", opclass: "gin_trgm_ops" },
  },
];

/** Another process is building them: wait this long between looks. */
const LOCK_POLL_MS = 250;
/** The advisory lock that lets one process at a time build (PostgreSQL). */
const BUILD_LOCK = 7193522016400210019n;

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

function createStatement(index: OnlineIndex, concurrently: boolean, opclassSchema?: string): string {
  const head = `create index ${concurrently ? "concurrently " : ""}if not exists ${quoted(index.name)} on ${quoted(index.table)}`;
  const pg = index.postgres;
  if (pg && opclassSchema !== undefined) {
    return `${head} using ${pg.method} ((${pg.expression}) ${quoted(opclassSchema)}.${pg.opclass})`;
  }
  return `${head} (${index.columns.map(quoted).join(", ")})`;
}

/**
 * The schema an extension lives in, creating it if need be: in public, where every schema's
 * indexes can share it (a schema dropped with CASCADE would take an extension inside it, and
 * other schemas' indexes with it), else in the current schema. Null when it cannot be created
 * (a trusted extension still needs CREATE on the database); the caller then skips its indexes.
 */
async function extensionSchema(
  connection: Kysely<Database>,
  extension: string,
  warn: (message: string) => void,
): Promise<string | null> {
  const find = () =>
    sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where e.extname = ${extension}`.execute(connection);
  let found = (await find()).rows[0];
  if (found) return found.schema;
  const errors: string[] = [];
  for (const where of ["schema public", ""]) {
    try {
      await sql.raw(`create extension if not exists ${quoted(extension)} ${where}`).execute(connection);
      found = (await find()).rows[0];
      if (found) return found.schema;
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  warn(`the ${extension} extension cannot be created (${errors.join("; ")}); its indexes are skipped`);
  return null;
}

/** Builds every index of ONLINE_INDEXES that is missing (or, on PostgreSQL, left invalid). */
export async function buildOnlineIndexes(
  db: Kysely<Database>,
  warn: (message: string) => void = (message) => process.emitWarning(message),
): Promise<string[]> {
  if (!onPostgres(db)) {
    const built: string[] = [];
    for (const index of ONLINE_INDEXES) {
      if (index.postgres) continue;
      const exists = await sql<{
        n: number;
      }>`select count(*) as n from sqlite_master where type = 'index' and name = ${index.name}`.execute(db);
      if (Number(exists.rows[0]?.n ?? 0) > 0) continue;
      await sql.raw(createStatement(index, false)).execute(db);
      if (index.replaces) await sql.raw(`drop index if exists ${quoted(index.replaces)}`).execute(db);
      built.push(index.name);
    }
    return built;
  }
  return db.connection().execute(async (connection) => {
    // One connection holds a session lock: its statements run outside any transaction, as
    // CREATE INDEX CONCURRENTLY needs. Others poll rather than block, so that no waiting
    // statement holds a snapshot the build would have to wait for.
    while (
      !(await sql<{ ok: boolean }>`select pg_try_advisory_lock(${BUILD_LOCK}) as ok`.execute(connection)).rows[0]?.ok
    ) {
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    try {
      const built: string[] = [];
      const schemas = new Map<string, string | null>();
      for (const index of ONLINE_INDEXES) {
        let opclassSchema: string | undefined;
        if (index.postgres) {
          const { extension } = index.postgres;
          if (!schemas.has(extension)) schemas.set(extension, await extensionSchema(connection, extension, warn));
          const schema = schemas.get(extension);
          if (!schema) continue;
          opclassSchema = schema;
        }
        const { rows } = await sql<{ valid: boolean }>`
          select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
          where c.relname = ${index.name} and c.relnamespace = current_schema()::regnamespace`.execute(connection);
        if (rows[0]?.valid !== true) {
          if (rows[0]) await sql.raw(`drop index concurrently if exists ${quoted(index.name)}`).execute(connection);
          await sql.raw(createStatement(index, true, opclassSchema)).execute(connection);
          built.push(index.name);
        }
        if (index.replaces)
          await sql.raw(`drop index concurrently if exists ${quoted(index.replaces)}`).execute(connection);
      }
      return built;
    } finally {
      await sql`select pg_advisory_unlock(${BUILD_LOCK})`.execute(connection);
    }
  });
}
