// What the audit log records: the one table of its actions, each `<family>.<what happened>`, and
// the kinds of thing an event names as its target. A reader filters on one action or on a whole
// family ("member": every member.* action). Adding an audited change starts here.
export const AUDIT_ACTIONS = [
  // Members and roles (workspaces/members.ts, invitations.ts, users.ts).
  "member.added",
  "member.invited",
  "member.invitation_revoked",
  "member.joined",
  "member.role_changed",
  "member.removed",
  // The workspace itself (workspaces.ts, members.ts).
  "workspace.created",
  "workspace.creator_keys_changed",
  "workspace.queue_changed",
  // A user across the install (users.ts): no workspace of its own.
  "user.password_reset",
  "user.ops_changed",
  "user.removed",
  // API keys (keys/api-keys.ts).
  "key.created",
  "key.revoked",
  // Webhook endpoints and the signing secret (webhooks/).
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  // Credit grants (credits/credits.ts) and the low-balance alert (credits/low-credit.ts).
  "credit.granted",
  "credit.low_threshold_set",
  "credit.low_threshold_cleared",
  // Spending caps on the workspace, a member or a key (budgets/budgets.ts).
  "budget.set",
  "budget.cleared",
  // Catalog entries out of service and back (catalog/model-pauses.ts): the install's.
  "model.paused",
  "model.resumed",
  // The remote catalog in the store (providers/stored-catalog/): the install's.
  "provider.added",
  "provider.edited",
  "provider.removed",
  "provider.applied",
  "entry.published",
  "entry.edited",
  "entry.deprecated",
  "entry.retired",
  // Share links (shares/share-links.ts).
  "share_link.created",
  "share_link.revoked",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Each action's family: the part before the dot. */
export const AUDIT_FAMILIES = [...new Set(AUDIT_ACTIONS.map((action) => action.split(".")[0]!))];

export const AUDIT_TARGET_TYPES = [
  "user",
  "invitation",
  "workspace",
  "api_key",
  "webhook_endpoint",
  "model",
  "provider",
  "share_link",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** Who did it, as the log shows them: a studio user, an API key (the API and MCP), or the admin CLI. */
export const AUDIT_ACTOR_TYPES = ["user", "key", "cli"] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** The actions a filter value names: one action, or every action of a family; null for neither. */
export function actionsNamed(value: string): AuditAction[] | null {
  if ((AUDIT_ACTIONS as readonly string[]).includes(value)) return [value as AuditAction];
  if (!AUDIT_FAMILIES.includes(value)) return null;
  return AUDIT_ACTIONS.filter((action) => action.startsWith(`${value}.`));
}
