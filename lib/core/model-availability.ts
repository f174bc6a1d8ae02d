// Out of service: ops pause a catalog entry for a while (admin CLI), or an entry cannot run here
// now (a remote provider is down, a program it needs is missing). Quotes and new runs on it then
// answer 503 with Retry-After, its catalog entry says so, and its queued runs wait.
import type { Db } from "../store/database";
import { ApiError } from "./errors";
import type { ModelDefinition } from "../models/types";

export interface Availability {
  status: "available" | "out_of_service";
  /** Why it is out of service, for people; null when available. */
  message: string | null;
  /** When it is expected back (ISO 8601); null when available or not known. */
  until: string | null;
}

const AVAILABLE: Availability = { status: "available", message: null, until: null };

/** Without a known end, clients are told to come back in this many seconds. */
const OPEN_ENDED_RETRY_SECONDS = 60;

export type PauseMap = Map<string, { until: string | null; reason: string }>;

/** Pauses in force now, by catalog id (lapsed ones are ignored, not deleted). */
export async function activePauses(db: Db, now = new Date()): Promise<PauseMap> {
  const rows = await db.selectFrom("model_pauses").selectAll().execute();
  const nowIso = now.toISOString();
  return new Map(
    rows.filter((r) => r.paused_until === null || r.paused_until > nowIso).map((r) => [r.model_id, { until: r.paused_until, reason: r.reason }]),
  );
}

export function availabilityOf(definition: ModelDefinition, pauses: PauseMap): Availability {
  const pause = pauses.get(definition.id);
  if (pause) return { status: "out_of_service", message: pause.reason, until: pause.until };
  const unavailable = definition.unavailableReason?.() ?? null;
  return unavailable ? { status: "out_of_service", ...unavailable } : AVAILABLE;
}

/** Throws 503 service_unavailable, with Retry-After, when the entry is out of service now. */
export async function requireInService(db: Db, definition: ModelDefinition, now = new Date()): Promise<void> {
  const availability = availabilityOf(definition, await activePauses(db, now));
  if (availability.status === "available") return;
  const retryAfter = availability.until
    ? Math.max(1, Math.ceil((Date.parse(availability.until) - now.getTime()) / 1000))
    : OPEN_ENDED_RETRY_SECONDS;
  const back = availability.until ? ` It is expected back at ${availability.until}.` : "";
  const why = (availability.message ?? "").replace(/\.?$/, ".");
  throw new ApiError("service_unavailable", `${definition.id} is out of service for a while: ${why}${back}`, {
    headers: { "Retry-After": String(retryAfter) },
  });
}
