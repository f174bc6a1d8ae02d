// A budget's input from any door: the caps in US dollars and whom the budget is on. Every refusal
// is a 400 naming the field. A cap of 0 is a cap: nothing may be spent in that period (paid runs
// are refused, free ones still run); "no cap" is the absence of one (budget clear).
import { ApiError } from "../../primitives/errors";
import { hasIdPrefix, isPossibleId } from "../../primitives/ids";
import { parseUsd, type Micros } from "../../primitives/money";
import type { BudgetScope, Db } from "../../store/database";
import { normalEmail } from "../workspaces/emails";
import { memberRow } from "../workspaces/members";
import type { AuditTargetType } from "../audit/audit-actions";

/** A refused value as a message quotes it: short, control characters shown as "?". */
export function shown(value: unknown): string {
  if (typeof value !== "string") return typeof value === "number" ? String(value) : typeof value;
  return `"${value.slice(0, 40).replace(/\p{Cc}/gu, "?")}${value.length > 40 ? "…" : ""}"`;
}

/**
 * A cap: text or a number of US dollars, 0 to 999,999,999.999999, at most 6 decimals, no sign or
 * exponent; undefined when not given.
 */
export function parseCap(value: unknown, param: "daily" | "monthly"): Micros | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : null;
  const micros = text === null ? null : parseUsd(text);
  if (micros === null) {
    throw new ApiError(
      "invalid_parameter",
      `${param} must be an amount in US dollars such as 10 or 12.50: 0 (nothing may be spent) to 999999999.999999, at most 6 decimals, no sign; got ${shown(value)}.`,
      { param },
    );
  }
  return micros;
}

export interface BudgetSubject {
  scope: BudgetScope;
  subjectId: string;
  /** The member's email; null for the workspace and keys. */
  email: string | null;
  /** What the audit event names. */
  target: { type: AuditTargetType; id: string };
}

/** Whom a budget is on: the workspace (neither given), one of its members by email, or one of its keys. */
export async function findSubject(
  db: Db,
  workspaceId: string,
  input: { member?: unknown; key?: unknown },
  options: { live: boolean },
): Promise<BudgetSubject> {
  if (input.member !== undefined && input.key !== undefined) {
    throw new ApiError("invalid_parameter", "A budget is on a member or on an API key, not both.", { param: "key" });
  }
  if (input.member !== undefined) {
    const email = normalEmail(input.member);
    const row = email === null ? undefined : await memberRow(db, workspaceId, { email });
    if (!row) {
      throw new ApiError(
        "invalid_parameter",
        `member must be the email of a member of this workspace; got ${shown(input.member)}.`,
        {
          param: "member",
        },
      );
    }
    return { scope: "member", subjectId: row.user_id, email: row.email, target: { type: "user", id: row.user_id } };
  }
  if (input.key !== undefined) {
    const id = typeof input.key === "string" ? input.key.trim() : "";
    const row =
      isPossibleId(id) && hasIdPrefix("apiKey", id)
        ? await db
            .selectFrom("api_keys")
            .select(["id", "revoked_at"])
            .where("id", "=", id)
            .where("workspace_id", "=", workspaceId)
            .executeTakeFirst()
        : undefined;
    if (!row || (options.live && row.revoked_at !== null)) {
      const what = row ? "a live API key" : "the ID of an API key";
      throw new ApiError(
        "invalid_parameter",
        `key must be ${what} of this workspace (key_…); got ${shown(input.key)}.`,
        {
          param: "key",
        },
      );
    }
    return { scope: "key", subjectId: row.id, email: null, target: { type: "api_key", id: row.id } };
  }
  return { scope: "workspace", subjectId: workspaceId, email: null, target: { type: "workspace", id: workspaceId } };
}
