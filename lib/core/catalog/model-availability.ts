// Whether a catalog entry takes runs now. Two different kinds of "no":
// - Out of service, for a while: ops paused the entry (admin CLI), a remote provider was found
//   down by some process (API server or worker: the store carries it to all of them), or a
//   preset's step is out of service. Quotes and new runs answer 503 with Retry-After, its catalog
//   entry says so, and its queued runs wait.
// - Not installed: something it needs is missing from this server (ModelDefinition.missingInstall),
//   a fact about the install that no waiting mends. Quotes and new runs answer 503 without
//   Retry-After, with a message that names what is missing and the fix; its catalog entry says
//   not_installed. Its queued runs wait too: another process on the same store may have what this
//   one lacks (a worker is not failed for a program only it is missing), and after the install
//   and a restart they run here.
import { sql } from "kysely";
import type { Db } from "../../store/database";
import { ApiError } from "../../primitives/errors";
import { freshPauseRowsOf, pauseRowsOf, pausesChanged, type PauseRow } from "./pause-cache";
import type { ModelDefinition } from "./model-definition";
import type { Availability } from "./model-shape";

export type { Availability };

const AVAILABLE: Availability = { status: "available", message: null, until: null };

/** Without a known end, clients are told to come back in this many seconds. */
const OPEN_ENDED_RETRY_SECONDS = 60;

interface Pause {
  until: string | null;
  reason: string;
}

/** What the store says is out of service now: paused entries by catalog id, down providers by provider id. */
export interface PauseMap {
  models: Map<string, Pause>;
  providers: Map<string, Pause>;
}

/** Every stored pause and provider outage, lapsed ones included: one query for both. */
function readPauseRows(db: Db): Promise<PauseRow[]> {
  return db
    .selectFrom("model_pauses")
    .select(["model_id as key", "paused_until as until", "reason", sql<string>`'model'`.as("kind")])
    .unionAll(
      db
        .selectFrom("provider_outages")
        .select(["provider_id as key", "down_until as until", "reason", sql<string>`'provider'`.as("kind")]),
    )
    .execute();
}

/** The map made from a set of kept rows, valid from one time to just before the next pause ends (ms). */
const pauseMaps = new WeakMap<PauseRow[], { pauses: PauseMap; from: number; before: number }>();

/**
 * Pauses and provider outages in force now (lapsed ones are ignored, not deleted), from memory
 * in the server and worker processes (pause-cache.ts).
 */
export async function activePauses(db: Db, now: Date | number = Date.now()): Promise<PauseMap> {
  // A number by default: no Date made for every quote and create.
  const nowMs = typeof now === "number" ? now : now.getTime();
  return pausesFrom(await pauseRowsOf(db, () => readPauseRows(db), nowMs), nowMs);
}

function pausesFrom(rows: PauseRow[], nowMs: number): PauseMap {
  // The same kept rows give the same map until the next pause among them ends.
  const known = pauseMaps.get(rows);
  if (known && known.from <= nowMs && nowMs < known.before) return known.pauses;
  const nowIso = new Date(nowMs).toISOString();
  const pauses: PauseMap = { models: new Map(), providers: new Map() };
  let before = Infinity;
  for (const row of rows) {
    if (row.until !== null && row.until <= nowIso) continue;
    if (row.until !== null) before = Math.min(before, Date.parse(row.until));
    (row.kind === "provider" ? pauses.providers : pauses.models).set(row.key, { until: row.until, reason: row.reason });
  }
  pauseMaps.set(rows, { pauses, from: nowMs, before });
  return pauses;
}

interface MissingInstall {
  /** The step that lacks it (a preset's), or null when it is the entry itself. */
  stepId: string | null;
  what: string;
  install: string;
}

/** What this install lacks for the entry or, for a preset, for one of its steps; null when nothing. */
function missingInstallOf(definition: ModelDefinition): MissingInstall | null {
  const own = definition.missingInstall?.() ?? null;
  if (own) return { stepId: null, ...own };
  for (const step of definition.steps ?? []) {
    const missing = missingInstallOf(step);
    if (missing) return { ...missing, stepId: missing.stepId ?? step.id };
  }
  return null;
}

/** "atelier/x cannot run on this server: it needs the y program, which is not installed. Install it (…) and restart Atelier." */
function notInstalledMessage(id: string, missing: MissingInstall): string {
  const who = missing.stepId === null ? "it" : `its step ${missing.stepId}`;
  return `${id} cannot run on this server: ${who} needs ${missing.what}, which is not installed. Install it (${missing.install}) and restart Atelier.`;
}

/** Its provider's outage; a routed entry's only when all its providers are down (the soonest back). */
function providerPause(definition: ModelDefinition, pauses: PauseMap): Pause | undefined {
  const providers = definition.routeProviders ?? (definition.provider ? [definition.provider] : []);
  let soonest: Pause | undefined;
  for (const provider of providers) {
    const down = pauses.providers.get(provider);
    if (!down) return undefined;
    // A pause with no end (null) lasts longest.
    if (!soonest || (down.until !== null && (soonest.until === null || down.until < soonest.until))) soonest = down;
  }
  return soonest;
}

export function availabilityOf(definition: ModelDefinition, pauses: PauseMap): Availability {
  // First: no pause ending or provider recovering makes it runnable while something is missing.
  const missing = missingInstallOf(definition);
  if (missing) return { status: "not_installed", message: notInstalledMessage(definition.id, missing), until: null };
  const pause = pauses.models.get(definition.id) ?? providerPause(definition, pauses);
  if (pause) return { status: "out_of_service", message: pause.reason, until: pause.until };
  const unavailable = definition.unavailableReason?.() ?? null;
  if (unavailable) return { status: "out_of_service", ...unavailable };
  // A preset cannot finish while one of its steps is out: say so up front rather than fail later.
  for (const step of definition.steps ?? []) {
    const stepAvailability = availabilityOf(step, pauses);
    if (stepAvailability.status !== "available") {
      return {
        status: "out_of_service",
        message: `its step ${step.id} is out of service (${stepAvailability.message})`,
        until: stepAvailability.until,
      };
    }
  }
  return AVAILABLE;
}

/**
 * Throws 503 service_unavailable when the entry cannot run now: with Retry-After when it is out of
 * service for a while, without it when something is not installed (the message says what and the fix).
 * Synchronous (no promise, undefined) when this process keeps the pauses fresh in memory, as on
 * almost every quote and create; else a promise of the same.
 */
export function requireInService(db: Db, definition: ModelDefinition, now = Date.now()): Promise<void> | undefined {
  const fresh = freshPauseRowsOf(db, now);
  if (fresh) return refuseUnlessAvailable(definition, pausesFrom(fresh, now), now);
  return activePauses(db, now).then((pauses) => refuseUnlessAvailable(definition, pauses, now));
}

function refuseUnlessAvailable(definition: ModelDefinition, pauses: PauseMap, now: number): undefined {
  const availability = availabilityOf(definition, pauses);
  if (availability.status === "available") return undefined;
  if (availability.status === "not_installed")
    throw new ApiError("service_unavailable", availability.message ?? `${definition.id} cannot run on this server.`);
  const retryAfter = availability.until
    ? Math.max(1, Math.ceil((Date.parse(availability.until) - now) / 1000))
    : OPEN_ENDED_RETRY_SECONDS;
  const back = availability.until ? ` It is expected back at ${availability.until}.` : "";
  const why = (availability.message ?? "").replace(/\.?$/, ".");
  throw new ApiError("service_unavailable", `${definition.id} is out of service for a while: ${why}${back}`, {
    headers: { "Retry-After": String(retryAfter) },
  });
}

/**
 * Tells every process sharing the store what one process learnt of a remote provider: down
 * until `down.until` (an earlier end already stored is pushed out, never pulled in), or back up
 * (null: the outage row goes).
 */
export async function shareProviderHealth(
  db: Db,
  providerId: string,
  down: { until: string; reason: string } | null,
): Promise<void> {
  if (down === null) {
    // Every good remote answer says "up": only one that ended a stored outage is news.
    const deleted = await db.deleteFrom("provider_outages").where("provider_id", "=", providerId).executeTakeFirst();
    if (deleted.numDeletedRows > 0n) pausesChanged(db);
    return;
  }
  const row = {
    provider_id: providerId,
    down_until: down.until,
    reason: down.reason,
    updated_at: new Date().toISOString(),
  };
  await db
    .insertInto("provider_outages")
    .values(row)
    .onConflict((oc) =>
      oc.column("provider_id").doUpdateSet({
        down_until: sql<string>`CASE WHEN excluded.down_until > provider_outages.down_until THEN excluded.down_until ELSE provider_outages.down_until END`,
        reason: row.reason,
        updated_at: row.updated_at,
      }),
    )
    .execute();
  pausesChanged(db);
}
