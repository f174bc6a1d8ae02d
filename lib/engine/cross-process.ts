// Carrying run signals between processes that share one store. PostgreSQL: LISTEN/NOTIFY on
// one connection. Both stores: one shared poll for runs that ended elsewhere, one query a tick
// whatever the number of waiters, and only while someone waits. On SQLite the tick is short and
// first asks `PRAGMA data_version` (which changes only when another connection commits, and
// costs no disk read), so a run finished by a worker process wakes its waiters, and a run queued
// by another process wakes this one's idle engine, within ~25 ms, while an idle store costs one
// trivial statement a tick.
//
// The LISTEN connection survives the database: when it is lost (PostgreSQL restarted, the
// network cut it) it reconnects with backoff (100 ms doubling to 5 s, until closed), LISTENs
// again and catches up on what it could not hear meanwhile: it wakes this process's engine (runs
// may have been queued) and the waiters whose runs ended, and sends the signals this process
// could not send.
import { sql } from "kysely";
import type pg from "pg";
import { pgPackage } from "../store/pg-package";
import type { Logger } from "pino";
import type { Store } from "../store/store";
import { outageSummary, storeUnreachable } from "../primitives/unreachable";
import { joinProcessMesh, meshFolder, sendToMesh } from "./process-mesh";
import { reportsOnly, type RunChange } from "../core/run-signals";
import type { RunSignals, SignalMessage } from "./run-signals";

const CHANNEL = "atelier_runs";
/** Finishes committed by other processes may land slightly out of order; look back this far. */
const LOOKBACK_MS = 5_000;
/** Reconnect delays of the LISTEN connection: the first, doubled after each failure up to the last. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/** Finishes waiting to be sent (while disconnected: sent once back); past this many, the finish poll covers. */
const PENDING_FINISHES_MAX = 1_000;
/** IDs per catch-up query. */
const CATCH_UP_CHUNK = 500;
/** application_name of the LISTEN connection in pg_stat_activity, unless the URL names one. */
export const LISTEN_APPLICATION_NAME = "atelier-signals";

export interface CrossProcessSignals {
  close(): Promise<void>;
}

export interface CrossProcessOptions {
  /** The fallback poll's period (2 s on PostgreSQL, 25 ms on SQLite). */
  pollMs?: number;
  /** application_name of the LISTEN connection. */
  applicationName?: string;
  /** SQLite: the store's file; the processes sharing it then signal each other at once (process-mesh.ts). */
  sqliteFile?: string;
}

export async function connectCrossProcessSignals(
  store: Store,
  databaseUrl: string | null,
  signals: RunSignals,
  logger: Logger,
  options: CrossProcessOptions = {},
): Promise<CrossProcessSignals> {
  const listener =
    store.dialect === "postgres" && databaseUrl
      ? await listenForSignals(store, databaseUrl, signals, logger, options.applicationName ?? LISTEN_APPLICATION_NAME)
      : null;

  const folder = store.dialect === "sqlite" && options.sqliteFile ? meshFolder(options.sqliteFile) : null;
  const mesh = folder ? await joinProcessMesh(folder, (m) => signals.receive(m), logger) : null;
  // A revocation or an availability change must reach every process, even one that joined a
  // moment ago and is not among this one's peers yet: it goes to each socket in the folder now.
  if (mesh && folder)
    signals.setPublisher((m) => (reachesEveryProcess(m) ? void sendToMesh(folder, m) : mesh.publish(m)));

  const pollMs = options.pollMs ?? (listener ? 2_000 : 25);
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
  const sqlite = store.dialect === "sqlite";
  /** SQLite: what followed runs looked like at the last look, to tell followers what changed. */
  const seen = new Map<string, string>();
  const timer = setInterval(async () => {
    // SQLite has no NOTIFY: the tick always runs there, and a commit by another connection is
    // also taken as "a run may have been queued", so an idle engine claims within a tick (its own
    // fallback poll is a second). On PostgreSQL the tick is only the waiters' fallback.
    if (polling || (!sqlite && signals.waitedIds().length === 0)) return;
    polling = true;
    try {
      if (!(await storeChanged())) return;
      if (sqlite) signals.receive({ kind: "queued" });
      if (signals.waitedIds().length === 0) {
        seen.clear();
        return;
      }
      if (sqlite) {
        await lookAtFollowedRuns(store, signals, seen);
        return;
      }
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
      if (storeUnreachable(err))
        logger.debug({ cause: outageSummary(err) }, "finish poll: the store cannot be reached");
      else logger.warn({ err }, "finish poll failed");
    } finally {
      polling = false;
    }
  }, pollMs);
  timer.unref();

  return {
    async close() {
      clearInterval(timer);
      await listener?.close();
      if (mesh) {
        signals.setPublisher(null);
        await mesh.close();
      }
    },
  };
}

/** The server process of a connected client's session (pg keeps it from the BackendKeyData message). */
function backendPid(client: pg.Client): number | null {
  return (client as unknown as { processID?: number | null }).processID ?? null;
}

/** Ends a client without throwing, and without waiting long for a connection that is already gone. */
async function endQuietly(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.end().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 2_000);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

/**
 * SQLite, after another process committed: reads the followed runs (one query per 500, however
 * many follow each) and tells of those that started, passed their cancel point or ended there.
 */
async function lookAtFollowedRuns(store: Store, signals: RunSignals, seen: Map<string, string>): Promise<void> {
  const followed = signals.waitedIds();
  const current = new Set(followed);
  for (const id of seen.keys()) if (!current.has(id)) seen.delete(id);
  for (let i = 0; i < followed.length; i += CATCH_UP_CHUNK) {
    const rows = await store.db
      .selectFrom("generations")
      .select([
        "id",
        "status",
        "uncancelable_reason",
        "completed_at",
        sql<number>`preview_json is not null`.as("previewed"),
      ])
      .where("id", "in", followed.slice(i, i + CATCH_UP_CHUNK))
      .execute();
    for (const row of rows) {
      const print = `${row.status}|${row.uncancelable_reason}|${row.previewed}`;
      const before = seen.get(row.id);
      seen.set(row.id, print);
      // First sight: the follower may have read it just before another process changed it.
      if (before === print) continue;
      signals.receive(row.completed_at !== null ? { kind: "finished", id: row.id } : { kind: "changed", id: row.id });
    }
  }
}

/** Wakes the waiters whose runs ended (anywhere) while this process could not hear it. */
async function wakeFinishedWaiters(store: Store, signals: RunSignals): Promise<number> {
  const waited = signals.waitedIds();
  let woken = 0;
  for (let i = 0; i < waited.length; i += CATCH_UP_CHUNK) {
    const rows = await store.db
      .selectFrom("generations")
      .select("id")
      .where("id", "in", waited.slice(i, i + CATCH_UP_CHUNK))
      .where("completed_at", "is not", null)
      .execute();
    for (const row of rows) signals.receive({ kind: "finished", id: row.id });
    woken += rows.length;
  }
  return woken;
}

/**
 * The LISTEN connection and the publisher that NOTIFYs over it; reconnects until closed. The
 * first connection must succeed (the caller has just reached the store); later losses never throw.
 */
async function listenForSignals(
  store: Store,
  databaseUrl: string,
  signals: RunSignals,
  logger: Logger,
  applicationName: string,
): Promise<{ close(): Promise<void> }> {
  let closed = false;
  /** Connected and LISTENing: NOTIFYs go over it. */
  let live: pg.Client | null = null;
  /** The client being connected, or the live one: close() ends it. */
  let current: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let retryDelayMs = RECONNECT_FIRST_MS;
  /** While disconnected: since when, and how many reconnect attempts were made. */
  let outage: { since: number; attempts: number } | null = null;
  // Signals of this process not yet sent: NOTIFYs go one batch at a time (one query, whatever
  // came meanwhile); while disconnected they wait here and go once back.
  let pendingQueued = false;
  const pendingFinishes = new Set<string>();
  /**
   * Changes not yet sent, per run; dropped while disconnected. What it reported is merged field by
   * field (the latest progress and provider queue place), and a change of state is kept beside it:
   * one message replacing another would lose a clear of the provider's place (null) to a later
   * progress, or a state change to a report, and nothing would send it again.
   */
  const pendingChanges = new Map<string, { reported: RunChange | null; state: boolean }>();
  /** Revoked API keys and ended sessions not yet announced: kept through an outage (they must stop everywhere). */
  const pendingRevocations = new Set<string>();
  const pendingSessionEnds = new Set<string>();
  /** A pause or outage changed here and is not announced yet: kept through an outage too. */
  let pendingAvailability = false;
  /** The remote catalog changed here and is not announced yet: kept through an outage too. */
  let pendingCatalog = false;
  /**
   * Runs whose provider pushed news here (a webhook), not announced yet. Dropped while
   * disconnected like progress: a nudge is worth something only now, and the poll goes on without it.
   */
  const pendingProviderEvents = new Set<string>();
  let sending = false;
  /** A NOTIFY failed since the connection was last up: logged once per outage. */
  let notifyFailureLogged = false;

  const enqueue = (message: SignalMessage) => {
    if (message.kind === "queued") pendingQueued = true;
    else if (message.kind === "key_revoked") pendingRevocations.add(message.id);
    else if (message.kind === "sessions_ended") pendingSessionEnds.add(message.id);
    else if (message.kind === "availability_changed") pendingAvailability = true;
    else if (message.kind === "catalog_changed") pendingCatalog = true;
    else if (message.kind === "provider_event") {
      if (live && pendingProviderEvents.size < PENDING_FINISHES_MAX) pendingProviderEvents.add(message.id);
    } else if (message.kind === "changed") {
      // While disconnected they are dropped: the state is in the store, progress soon stale.
      const pending = pendingChanges.get(message.id);
      if (live && (pending || pendingChanges.size < PENDING_FINISHES_MAX)) {
        const { kind: _kind, id, ...change } = message;
        const entry = pending ?? { reported: null, state: false };
        if (reportsOnly(change)) entry.reported = { ...entry.reported, ...definedFields(change) };
        else entry.state = true;
        pendingChanges.set(id, entry);
      }
    }
    // Past the cap (a long outage under load) the finish poll wakes their waiters instead.
    else if (pendingFinishes.size < PENDING_FINISHES_MAX) pendingFinishes.add(message.id);
  };

  const flush = async () => {
    if (sending) return;
    sending = true;
    try {
      while (
        live &&
        (pendingQueued ||
          pendingAvailability ||
          pendingCatalog ||
          pendingFinishes.size > 0 ||
          pendingChanges.size > 0 ||
          pendingProviderEvents.size > 0 ||
          pendingRevocations.size > 0 ||
          pendingSessionEnds.size > 0)
      ) {
        const client = live;
        const batch: SignalMessage[] = [
          ...[...pendingRevocations].map((id) => ({ kind: "key_revoked", id }) as const),
          ...[...pendingSessionEnds].map((id) => ({ kind: "sessions_ended", id }) as const),
          ...(pendingAvailability ? [{ kind: "availability_changed" } as const] : []),
          ...(pendingCatalog ? [{ kind: "catalog_changed" } as const] : []),
          ...(pendingQueued ? [{ kind: "queued" } as const] : []),
          ...[...pendingProviderEvents].map((id) => ({ kind: "provider_event", id }) as const),
          ...[...pendingChanges]
            .filter(([id]) => !pendingFinishes.has(id))
            .flatMap(([id, { reported, state }]) => [
              ...(state ? [{ kind: "changed", id } as const] : []),
              ...(reported ? [{ kind: "changed", id, ...reported } as const] : []),
            ]),
          ...[...pendingFinishes].map((id) => ({ kind: "finished", id }) as const),
        ];
        pendingQueued = false;
        pendingAvailability = false;
        pendingCatalog = false;
        pendingRevocations.clear();
        pendingSessionEnds.clear();
        pendingFinishes.clear();
        pendingChanges.clear();
        pendingProviderEvents.clear();
        try {
          await client.query("select pg_notify($1, payload) from unnest($2::text[]) as payload", [
            CHANNEL,
            batch.map((m) => JSON.stringify(m)),
          ]);
        } catch (err) {
          if (!storeUnreachable(err)) {
            logger.warn({ err }, "NOTIFY failed");
            continue;
          }
          // The connection is going: its "error"/"end" starts the reconnect, which sends these then.
          for (const message of batch) enqueue(message);
          if (!notifyFailureLogged) {
            notifyFailureLogged = true;
            logger.warn(
              { cause: outageSummary(err) },
              "NOTIFY failed: run signals are held until the connection is back",
            );
          }
          // Already back on a new connection (its catch-up found this flush busy): go on there.
          if (live && live !== client) continue;
          return;
        }
      }
    } finally {
      sending = false;
    }
  };

  const publish = (message: SignalMessage) => {
    enqueue(message);
    if (live) void flush();
  };

  const connect = async (): Promise<void> => {
    // keepAlive: a peer gone without a word (a cut network) is noticed too, not only a closed socket.
    const client = new (pgPackage().Client)({
      connectionString: databaseUrl,
      application_name: applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    current = client;
    let state: "connecting" | "live" | "lost" = "connecting";
    const lost = (err?: unknown) => {
      // While connecting, the attempt's own failure reports it; once lost, later events repeat it.
      if (state !== "live") return;
      state = "lost";
      void endQuietly(client);
      if (live !== client) return;
      live = null;
      current = null;
      connectionLost(err);
    };
    // pg emits "error" (maybe twice: the server's FATAL, then the cut) and "end"; never unheard.
    client.on("error", (err) => lost(err));
    client.on("end", () => lost());
    client.on("notification", (message) => {
      try {
        if (!message.payload) return;
        const signal = JSON.parse(message.payload) as SignalMessage;
        // PostgreSQL tells a session its own NOTIFYs too. A provider's nudge sent from here was
        // delivered here when it was published: its echo would make the job's poll look twice.
        if (signal?.kind === "provider_event" && message.processId === backendPid(client)) return;
        signals.receive(signal);
      } catch (err) {
        logger.warn({ err }, "bad run signal");
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (closed) throw new Error("closed");
    } catch (err) {
      state = "lost";
      if (current === client) current = null;
      void endQuietly(client);
      throw err;
    }
    state = "live";
    live = client;
  };

  const connectionLost = (err: unknown) => {
    if (closed) return;
    if (!outage) {
      outage = { since: Date.now(), attempts: 0 };
      logger.warn({ cause: err === undefined ? null : outageSummary(err) }, "run signal connection lost; reconnecting");
    }
    scheduleReconnect();
  };

  const scheduleReconnect = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => void reconnect(), retryDelayMs);
    retryTimer.unref();
  };

  const reconnect = async () => {
    retryTimer = null;
    if (closed || !outage) return;
    outage.attempts += 1;
    try {
      await connect();
    } catch (err) {
      if (closed) return;
      logger.debug(
        { cause: outageSummary(err), attempt: outage.attempts, nextInMs: retryDelayMs * 2 },
        "run signal connection: reconnect failed",
      );
      retryDelayMs = Math.min(retryDelayMs * 2, RECONNECT_MAX_MS);
      scheduleReconnect();
      return;
    }
    const { since, attempts } = outage;
    outage = null;
    retryDelayMs = RECONNECT_FIRST_MS;
    const held = (pendingQueued ? 1 : 0) + pendingFinishes.size;
    logger.info({ downMs: Date.now() - since, attempts, held }, "run signal connection restored; catching up");
    notifyFailureLogged = false;
    await catchUp();
  };

  /** Once back: say what this process could not say, and hear what it could not hear. */
  const catchUp = async () => {
    if (!live) return;
    void flush();
    // Runs may have been queued elsewhere meanwhile: idle slots look at the queue.
    signals.receive({ kind: "queued" });
    // Keys may have been revoked elsewhere meanwhile, unheard: the key cache forgets every key.
    signals.receive({ kind: "key_revoked", id: "*" });
    signals.receive({ kind: "sessions_ended", id: "*" });
    // And models paused or providers found down: the availability cache reads the store again.
    signals.receive({ kind: "availability_changed" });
    // And the remote catalog may have changed: it is read again.
    signals.receive({ kind: "catalog_changed" });
    try {
      await wakeFinishedWaiters(store, signals);
    } catch (err) {
      // The fallback poll still wakes them.
      logger.warn({ cause: outageSummary(err) }, "run signal catch-up could not read the store");
    }
  };

  await connect();
  signals.setPublisher(publish);

  return {
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      signals.setPublisher(null);
      const client = current;
      live = null;
      current = null;
      if (client) await endQuietly(client);
    },
  };
}

/** Signals every process must hear at once, not only the peers this one knows of yet. */
function reachesEveryProcess(message: SignalMessage): boolean {
  return (
    message.kind === "key_revoked" ||
    message.kind === "sessions_ended" ||
    message.kind === "availability_changed" ||
    message.kind === "catalog_changed"
  );
}

/**
 * Tells every process on the store that an API key was revoked or that a pause changed, from a
 * process without a signal bridge of its own (the admin CLI): a NOTIFY on PostgreSQL, a line to
 * each process of the mesh on SQLite. Processes with a bridge call `signals.keyRevoked` or
 * `signals.availabilityChanged` instead.
 */
export async function announceToEveryProcess(
  store: Store,
  sqliteFile: string | null,
  message: Extract<
    SignalMessage,
    { kind: "key_revoked" | "sessions_ended" | "availability_changed" | "catalog_changed" }
  >,
): Promise<void> {
  if (store.dialect === "postgres")
    await sql`select pg_notify(${CHANNEL}, ${JSON.stringify(message)})`.execute(store.db);
  else if (sqliteFile) await sendToMesh(meshFolder(sqliteFile), message);
}

/** The fields of a change that say something (a field set to undefined would erase an earlier one when merged). */
function definedFields(change: RunChange): RunChange {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)) as RunChange;
}
