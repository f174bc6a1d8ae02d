// Carrying run signals between processes that share one store. PostgreSQL: LISTEN/NOTIFY on
// one connection. Both stores: one shared poll for runs that ended elsewhere, one query a tick
// whatever the number of waiters, and only while someone waits. On SQLite the tick is short and
// first asks `PRAGMA data_version` (which changes only when another connection commits, and
// costs no disk read), so a run finished by a worker process wakes its waiters within ~25 ms
// while an idle store costs one trivial statement a tick.
import { sql } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import type { Store } from "../store/store";
import type { RunSignals } from "./run-signals";

const CHANNEL = "atelier_runs";
/** Finishes committed by other processes may land slightly out of order; look back this far. */
const LOOKBACK_MS = 5_000;

export interface CrossProcessSignals {
  close(): Promise<void>;
}

export async function connectCrossProcessSignals(
  store: Store,
  databaseUrl: string | null,
  signals: RunSignals,
  logger: Logger,
  options: { pollMs?: number } = {},
): Promise<CrossProcessSignals> {
  let client: pg.Client | null = null;
  if (store.dialect === "postgres" && databaseUrl) {
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    client.on("notification", (message) => {
      try {
        if (message.payload) signals.receive(JSON.parse(message.payload));
      } catch (err) {
        logger.warn({ err }, "bad run signal");
      }
    });
    client.on("error", (err) => logger.error({ err }, "run signal connection failed"));
    await client.query(`LISTEN ${CHANNEL}`);
    const listener = client;
    signals.setPublisher((message) => {
      listener.query("select pg_notify($1, $2)", [CHANNEL, JSON.stringify(message)]).catch((err) => logger.warn({ err }, "NOTIFY failed"));
    });
  }

  const pollMs = options.pollMs ?? (client ? 2_000 : 25);
  let since = new Date(Date.now() - LOOKBACK_MS).toISOString();
  let polling = false;
  let seenDataVersion: number | null = null;
  /** SQLite: whether another connection committed since the last look (always true on PostgreSQL). */
  const storeChanged = async (): Promise<boolean> => {
    if (store.dialect !== "sqlite") return true;
    const result = await sql<{ data_version: number }>`PRAGMA data_version`.execute(store.db);
    const version = result.rows[0]?.data_version ?? null;
    const changed = version === null || version !== seenDataVersion;
    seenDataVersion = version;
    return changed;
  };
  const timer = setInterval(async () => {
    if (polling || signals.waitedIds().length === 0) return;
    polling = true;
    try {
      if (!(await storeChanged())) return;
      const rows = await store.db
        .selectFrom("generations")
        .select(["id", "completed_at"])
        .where("completed_at", ">", since)
        .orderBy("completed_at")
        .limit(5000)
        .execute();
      const waited = new Set(signals.waitedIds());
      for (const row of rows) if (waited.has(row.id)) signals.receive({ kind: "finished", id: row.id });
      since = new Date(Date.now() - LOOKBACK_MS).toISOString();
    } catch (err) {
      logger.warn({ err }, "finish poll failed");
    } finally {
      polling = false;
    }
  }, pollMs);
  timer.unref();

  return {
    async close() {
      clearInterval(timer);
      signals.setPublisher(null);
      await client?.end();
    },
  };
}
