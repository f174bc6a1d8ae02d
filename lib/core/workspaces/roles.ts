// A member's role in a workspace, and what each role may do: the one home of these rules. The
// studio, the API (through the key's maker) and the admin CLI all meet them in the core verbs.
//   owner    everything, ownership included
//   admin    keys, webhooks, members below owner (and, later, budgets)
//   creator  runs, files, share links; keys of their own when the workspace allows
//   viewer   reads runs, outputs and files; cannot spend
// Operating the install (every workspace, models, credit grants) is not a role: it is the
// install-wide `is_ops` flag on a user (lib/core/ops/ops-principal.ts).
import { ApiError } from "../../primitives/errors";

export const MEMBER_ROLES = ["owner", "admin", "creator", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

const RANK: Record<MemberRole, number> = { viewer: 0, creator: 1, admin: 2, owner: 3 };

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === "string" && (MEMBER_ROLES as readonly string[]).includes(value);
}

/** The role from untrusted input, or a 400 naming the field. */
export function parseMemberRole(value: unknown, param = "role"): MemberRole {
  if (isMemberRole(value)) return value;
  const shown = typeof value === "string" ? `"${value.slice(0, 40).replace(/\p{Cc}/gu, "?")}"` : typeof value;
  throw new ApiError("invalid_parameter", `The role is one of ${MEMBER_ROLES.join(", ")}; got ${shown}.`, { param });
}

export function roleAtLeast(role: MemberRole, least: MemberRole): boolean {
  return RANK[role] >= RANK[least];
}

/** The roles that may do what needs `least`, as a phrase: "admin or owner". */
function rolesFrom(least: MemberRole): string {
  const roles = MEMBER_ROLES.filter((role) => roleAtLeast(role, least)).reverse();
  return roles.length === 1 ? roles[0]! : `${roles.slice(0, -1).join(", ")} or ${roles.at(-1)}`;
}

/** Who acts, as far as roles go: a member (studio, or a key a member made) has a role; the CLI and
 * the keys ops made have none and meet only their scopes. */
export interface RoleHolder {
  role?: MemberRole;
  actor: { kind: string };
}

export function roleRefusal(role: MemberRole, what: string, least: MemberRole, viaKey: boolean): ApiError {
  const whose = viaKey ? "The member who made this API key is" : "You are";
  return new ApiError(
    "permission_denied",
    `${whose} ${role === "admin" || role === "owner" ? "an" : "a"} ${role} in this workspace; to ${what} takes ${rolesFrom(least)}.`,
  );
}

/** Throws permission_denied unless the acting member's role is at least `least`. */
export function requireRole(ctx: RoleHolder, least: MemberRole, what: string): void {
  if (ctx.role === undefined || roleAtLeast(ctx.role, least)) return;
  throw roleRefusal(ctx.role, what, least, ctx.actor.kind === "api_key" || ctx.actor.kind === "mcp_client");
}
