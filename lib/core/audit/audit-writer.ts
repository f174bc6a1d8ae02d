// Writing the audit log: one row per change, inside the transaction that makes the change, so a
// change that rolls back (refused, failed, raced) leaves no event and a committed one always has
// its event. There is no other write to the table: no update path, and only the retention purge
// deletes (audit-retention.ts).
import type { Db } from "../../store/database";
import { newId } from "../../primitives/ids";
import { nowIso, type Actor } from "../context";
import type { AuditAction, AuditActorType, AuditTargetType } from "./audit-actions";

/**
 * Who makes a change, for its event: a door's Ctx (its actor and address), or what a caller of a
 * SystemCtx verb names (the admin CLI: CLI_AUDIT; ops in the studio: their user and address).
 */
export interface AuditBy {
  actor: Actor;
  ip?: string;
}

/** The admin CLI: no address. */
export const CLI_AUDIT: AuditBy = { actor: { kind: "cli", id: "cli" } };

export type AuditValue = string | number | boolean | null | readonly AuditValue[] | { [key: string]: AuditValue };
/** What changed: `{role: {from: "viewer", to: "creator"}}`, `{keys_revoked: ["key_…"]}`. */
export type AuditChanges = Record<string, AuditValue>;

export interface AuditRecord {
  /** null: the install's own (a model pause, a user's password or ops flag); seen by ops only. */
  workspaceId: string | null;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  changes?: AuditChanges;
}

/** Names a field may never have: what changed is written for people to read, never a credential. */
const SECRET_NAME = /secret|password|token|hash|credential/i;

function checkNoSecrets(value: AuditValue | undefined, path: string): void {
  if (value === null || typeof value !== "object") return;
  for (const [name, inner] of Object.entries(value)) {
    if (SECRET_NAME.test(name)) throw new Error(`audit: ${path}.${name} looks like a secret; it is never recorded.`);
    checkNoSecrets(inner as AuditValue, `${path}.${name}`);
  }
}

/** The actor as the log shows it. The engine and other internal work make no audited change. */
export function auditActorOf(actor: Actor): { type: AuditActorType; id: string } {
  switch (actor.kind) {
    case "user":
      return { type: "user", id: actor.id };
    case "api_key":
    case "mcp_client":
      return { type: "key", id: actor.id };
    case "cli":
      return { type: "cli", id: "cli" };
    default:
      throw new Error(`audit: an audited change names a user, a key or the CLI, not "${actor.kind}".`);
  }
}

/**
 * Records one change inside `trx`, the transaction that makes it. A user actor's email is read in
 * the same statement (as it is now: a later change of email leaves the event as it was).
 */
export async function recordAudit(trx: Db, by: AuditBy, record: AuditRecord): Promise<void> {
  if (!trx.isTransaction) throw new Error("audit: recordAudit runs inside the transaction of the change it records.");
  const changes = record.changes ?? {};
  checkNoSecrets(changes, "changes");
  const actor = auditActorOf(by.actor);
  await trx
    .insertInto("audit_events")
    .values((eb) => ({
      id: newId("auditEvent"),
      workspace_id: record.workspaceId,
      action: record.action,
      actor_type: actor.type,
      actor_id: actor.id,
      actor_email:
        actor.type === "user" ? eb.selectFrom("users").select("users.email").where("users.id", "=", actor.id) : null,
      target_type: record.target.type,
      target_id: record.target.id,
      ip: by.ip ?? null,
      changes_json: JSON.stringify(changes),
      created_at: nowIso(),
    }))
    .execute();
}

/** `{from, to}` when a value changed; for changes objects. */
export function fromTo<T extends AuditValue>(from: T, to: T): { from: T; to: T } {
  return { from, to };
}
