// Idempotency-Key (docs/api.md, "Create, wait and idempotency"): scoped to the workspace, never expires; the same key with the same
// body replays what the first request started, with another body it is a 409 conflict.
import { createHash } from "node:crypto";
import type { Compilable } from "kysely";
import type { Db } from "../../store/database";
import { ApiError } from "../../primitives/errors";
import { LIMITS } from "../../primitives/limits";
import { insertRow } from "../../store/reused-sql";

const KEY_PATTERN = /^[\x21-\x7e]+$/;

export function validateIdempotencyKey(key: string | undefined): string | null {
  if (key === undefined) return null;
  const { min, max } = LIMITS.idempotencyKeyLength;
  if (key.length < min || key.length > max || !KEY_PATTERN.test(key)) {
    throw new ApiError(
      "invalid_parameter",
      `Idempotency-Key must be ${min} to ${max} printable ASCII characters (no spaces), such as a UUID.`,
      { param: "Idempotency-Key" },
    );
  }
  return key;
}

/** JSON with sorted object keys, so {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function requestHash(endpoint: string, body: unknown): string {
  return createHash("sha256")
    .update(`${endpoint}\n${canonicalJson(body)}`)
    .digest("hex");
}

/** The resource a key already started, or null; 409 when the key came with another request. */
export async function findIdempotentReplay(
  db: Db,
  input: { workspaceId: string; key: string; endpoint: string; hash: string },
): Promise<string | null> {
  const row = await db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("workspace_id", "=", input.workspaceId)
    .where("key", "=", input.key)
    .executeTakeFirst();
  if (!row) return null;
  if (row.endpoint !== input.endpoint || row.request_hash !== input.hash) {
    throw new ApiError(
      "conflict",
      `This Idempotency-Key was already used with a different request (${row.resource_id}). Use a new key for a new request.`,
    );
  }
  return row.resource_id;
}

/** The key's record, written with what it starts (writeList), so both land or neither does. */
export function recordIdempotencyKey(
  db: Db,
  input: { workspaceId: string; key: string; endpoint: string; hash: string; resourceId: string; now: string },
): Compilable {
  return insertRow(db, "idempotency_keys", {
    workspace_id: input.workspaceId,
    key: input.key,
    endpoint: input.endpoint,
    request_hash: input.hash,
    resource_id: input.resourceId,
    created_at: input.now,
  });
}
