// GET /v1/usage's parameters from untrusted text: each refused with a 400 naming its parameter,
// never a query that could fail. The empty string counts as absent (a form's blank field).
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";
import { MODEL_ID_PATTERN } from "../catalog/catalog";
import { USAGE_GROUPS, type UsageGroup } from "./usage-shape";

export interface UsageQuery {
  from?: string;
  to?: string;
  group_by?: string;
  model?: string;
}

export interface UsageRange {
  /** First and last day, `YYYY-MM-DD` (UTC), both included. */
  from: string;
  to: string;
  groupBy: UsageGroup;
  /** A model ID: without `@version` it matches every version (as the runs list's filter does). */
  model: string | null;
}

const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Text safe to echo in a message: short, no control characters. */
function shown(value: string): string {
  return value.slice(0, 40).replace(/\p{Cc}/gu, "?");
}

/** The instant a day starts (UTC), or null when the text is no calendar day of years 0001–9999. */
function dayStartMs(value: string, param: "from" | "to"): number {
  const match = value.length === 10 ? DAY.exec(value) : null;
  if (match) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    // setUTCFullYear, not Date.UTC: that reads years 0–99 as 1900–1999.
    const at = new Date(0);
    at.setUTCFullYear(year, month - 1, day);
    if (year >= 1 && at.getUTCMonth() === month - 1 && at.getUTCDate() === day) return at.getTime();
  }
  throw new ApiError("invalid_parameter", `${param} is a day such as "2026-05-01" (UTC); got "${shown(value)}".`, {
    param,
  });
}

// includes, not `in`: "constructor" must not pass as a group.
const isUsageGroup = (value: string): value is UsageGroup => (USAGE_GROUPS as readonly string[]).includes(value);

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The query checked; `now` gives today when `to` is absent. */
export function parseUsageQuery(query: UsageQuery, now: Date): UsageRange {
  const groupBy = query.group_by || "day";
  if (!isUsageGroup(groupBy)) {
    throw new ApiError("invalid_parameter", `group_by is one of ${USAGE_GROUPS.join(", ")}; got "${shown(groupBy)}".`, {
      param: "group_by",
    });
  }
  const model = query.model || null;
  if (model !== null && (model.length > LIMITS.modelIdLength || !MODEL_ID_PATTERN.test(model))) {
    throw new ApiError(
      "invalid_parameter",
      `model is a catalog ID such as "atelier/gradient", at most ${LIMITS.modelIdLength} characters; got "${shown(model)}".`,
      { param: "model" },
    );
  }
  const toMs = query.to ? dayStartMs(query.to, "to") : Date.parse(now.toISOString().slice(0, 10));
  const fromMs = query.from ? dayStartMs(query.from, "from") : toMs - (LIMITS.usageRange.defaultDays - 1) * DAY_MS;
  if (fromMs > toMs) {
    throw new ApiError("invalid_parameter", `from (${dayOf(fromMs)}) is after to (${dayOf(toMs)}).`, {
      param: "from",
    });
  }
  const days = (toMs - fromMs) / DAY_MS;
  if (days > LIMITS.usageRange.maxDays) {
    throw new ApiError(
      "invalid_parameter",
      `to is at most ${LIMITS.usageRange.maxDays} days after from; ${dayOf(toMs)} is ${days} days after ${dayOf(fromMs)}${query.to ? "" : " (to is today when absent)"}.`,
      { param: query.to ? "to" : "from" },
    );
  }
  return { from: dayOf(fromMs), to: dayOf(toMs), groupBy, model };
}
