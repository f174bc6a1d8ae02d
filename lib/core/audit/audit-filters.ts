// The audit log's filters from untrusted text (query parameters, the studio's form): each refused
// with a 400 naming its parameter, never a query that could fail. `from` and `to` take an RFC 3339
// time (any offset) or a day (UTC), as the runs history does: `from` is inclusive, and so is `to`
// (a day: through its end; a time: to the millisecond).
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import { actionsNamed, AUDIT_FAMILIES, type AuditAction } from "./audit-actions";

export interface AuditFilters {
  /** The actions to keep (one, or a family's); null: all. */
  actions: AuditAction[] | null;
  /** usr_…, key_… or "cli"; null: anyone. */
  actor: string | null;
  /** created_at ≥ this (ISO). */
  from: string | null;
  /** created_at < this (ISO): the end of `to`. */
  before: string | null;
  /** What the cursor is bound to. */
  canonical: string;
}

export interface AuditQuery {
  action?: string;
  actor?: string;
  from?: string;
  to?: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i;

/** Text safe to echo in a message: short, no control characters. */
function shown(value: string): string {
  return value.slice(0, 40).replace(/\p{Cc}/gu, "?");
}

function badTime(param: string, value: string): ApiError {
  return new ApiError(
    "invalid_parameter",
    `${param} is an RFC 3339 time such as "2026-05-01T09:30:00Z" or a day such as "2026-05-01"; got "${shown(value)}".`,
    { param },
  );
}

/** The instant a day starts (UTC), or NaN when it is no calendar day of years 0001–9999. */
function dayStartMs(year: number, month: number, day: number): number {
  // setUTCFullYear, not Date.UTC: that reads years 0–99 as 1900–1999.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  const real = year >= 1 && at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
  return real ? at.getTime() : NaN;
}

/** Where ISO text stops comparing as text (year 10000); no event is that late. */
const LAST_MS = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * The bound a `from` or `to` value sets, as ISO text that compares with created_at: from's own
 * instant; to's end (the next day's start, or the millisecond after the time).
 */
export function parseAuditTime(value: string, param: "from" | "to"): string {
  if (value.length > 40) throw badTime(param, value);
  let ms: number;
  const day = DAY.exec(value);
  const time = day ? null : TIME.exec(value);
  if (day) {
    const start = dayStartMs(Number(day[1]), Number(day[2]), Number(day[3]));
    if (Number.isNaN(start)) throw badTime(param, value);
    ms = start + (param === "to" ? 86_400_000 : 0);
  } else if (time) {
    const [y, m, d, hh, mm, ss] = time.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const offsetOk = time[8]!.toUpperCase() === "Z" || (Number(time[9]) <= 23 && Number(time[10]) <= 59);
    if (Number.isNaN(dayStartMs(y, m, d)) || hh > 23 || mm > 59 || ss > 59 || !offsetOk) throw badTime(param, value);
    ms = Date.parse(value.toUpperCase());
    if (Number.isNaN(ms)) throw badTime(param, value);
    if (param === "to") ms += 1;
  } else {
    throw badTime(param, value);
  }
  if (param === "to" && ms > LAST_MS) ms = LAST_MS;
  const iso = new Date(ms).toISOString();
  // An offset can push a time before year 0001, where ISO text no longer compares as text.
  if (!/^\d{4}-/.test(iso) || iso.startsWith("0000")) throw badTime(param, value);
  return iso;
}

function parseActions(value: string | undefined): AuditAction[] | null {
  if (value === undefined || value === "") return null;
  const actions = value.length <= 64 ? actionsNamed(value) : null;
  if (actions) return actions;
  throw new ApiError(
    "invalid_parameter",
    `action is an action such as "member.invited" or a family of them (${AUDIT_FAMILIES.join(", ")}); got "${shown(value)}".`,
    { param: "action" },
  );
}

function parseActor(value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  if (value === "cli") return value;
  if (isPossibleId(value) && (hasIdPrefix("user", value) || hasIdPrefix("apiKey", value))) return value;
  throw new ApiError(
    "invalid_parameter",
    `actor is a user's ID (usr_…), an API key's (key_…) or "cli"; got "${shown(value)}".`,
    { param: "actor" },
  );
}

/** The filters of a query, checked; the empty string counts as absent (a form's blank field). */
export function parseAuditFilters(query: AuditQuery): AuditFilters {
  const actions = parseActions(query.action);
  const actor = parseActor(query.actor);
  const from = query.from ? parseAuditTime(query.from, "from") : null;
  const before = query.to ? parseAuditTime(query.to, "to") : null;
  if (from !== null && before !== null && from >= before)
    throw new ApiError("invalid_parameter", "from must not be after to.", { param: "from" });
  const canonical = JSON.stringify(["audit", query.action || null, actor, from, before]);
  return { actions, actor, from, before, canonical };
}
