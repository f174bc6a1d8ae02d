// Signing in through an OpenID Connect provider: who the provider's verified email is here. An
// account with memberships signs in; a person with pending invitations becomes a user (no
// password: they sign in through the provider) and joins every workspace that invited that email;
// with allowed domains, a verified email of one of them gets an account in the configured
// workspace and role (just in time). Anyone else, and any unverified email, is refused with the
// reason. The provider proved the email, so an invitation is taken by it, as a link's token is.
import type { Db } from "../../store/database";
import { withTransaction } from "../../store/writes";
import { isUniqueViolation } from "../../store/dialects";
import { newId } from "../../primitives/ids";
import { fromTo, recordAudit } from "../audit/audit-writer";
import { normalEmail } from "./emails";
import { insertMembership } from "./members";
import type { MemberRole } from "./roles";
import { generatePassword, hashPassword } from "./users";

export interface IdentityPolicy {
  allowedDomains: readonly string[];
  join: { workspaceId: string; role: MemberRole } | null;
}

/** What the provider said of the person: its claims, untrusted in shape. */
export interface IdentityClaims {
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

export const SSO_REFUSALS = {
  no_email:
    "Your identity provider did not share an email address with Atelier: ask its administrator to release the email claim.",
  email_unverified:
    "Your identity provider has not verified your email address, so Atelier cannot tell it is yours: verify it there, then sign in again.",
  not_invited:
    "There is no Atelier account or pending invitation for your email: ask an owner or admin of a workspace to invite you.",
  join_workspace_missing:
    "Single sign-on is set to add new accounts to a workspace that does not exist: tell whoever runs Atelier (OIDC_JOIN_WORKSPACE).",
} as const;
export type SsoRefusal = keyof typeof SSO_REFUSALS;

export class SsoRefused extends Error {
  constructor(readonly reason: SsoRefusal) {
    super(SSO_REFUSALS[reason]);
    this.name = "SsoRefused";
  }
}

const NAME_MAX = 100;

/** The provider's name for the person, made safe to show; the email's local part when it has none. */
function displayName(raw: unknown, email: string): string {
  const name =
    typeof raw === "string"
      ? raw
          .replace(/\p{Cc}/gu, "")
          .trim()
          .slice(0, NAME_MAX)
      : "";
  return name || email.split("@")[0]!;
}

/** The user the identity signs in as (their ID), or SsoRefused with the reason. */
export async function signInWithIdentity(
  db: Db,
  claims: IdentityClaims,
  policy: IdentityPolicy,
  meta: { ip?: string } = {},
  now = new Date(),
): Promise<{ userId: string }> {
  try {
    return await signInOnce(db, claims, policy, meta, now);
  } catch (err) {
    // The same person's first sign-in in two tabs at once: the second finds the account made.
    if (isUniqueViolation(err)) return signInOnce(db, claims, policy, meta, now);
    throw err;
  }
}

async function signInOnce(
  db: Db,
  claims: IdentityClaims,
  policy: IdentityPolicy,
  meta: { ip?: string } = {},
  now = new Date(),
): Promise<{ userId: string }> {
  const email = normalEmail(claims.email);
  if (email === null) throw new SsoRefused("no_email");
  // Only a literal true: some providers send "true", or leave the claim out for unchecked addresses.
  if (claims.email_verified !== true) throw new SsoRefused("email_unverified");
  const nowIso = now.toISOString();
  const user = await db.selectFrom("users").select(["id"]).where("email", "=", email).executeTakeFirst();
  const memberships = user
    ? await db.selectFrom("memberships").select("workspace_id").where("user_id", "=", user.id).execute()
    : [];
  const pending = await db
    .selectFrom("invitations")
    .select(["id", "workspace_id", "role"])
    .where("email", "=", email)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", nowIso)
    .orderBy("created_at")
    .execute();
  const joined = new Set(memberships.map((m) => m.workspace_id));
  const invitations = pending.filter((i) => !joined.has(i.workspace_id));
  if (user && memberships.length > 0 && invitations.length === 0) return { userId: user.id };

  const domain = email.slice(email.lastIndexOf("@") + 1);
  const jit =
    !user && invitations.length === 0 && policy.join && policy.allowedDomains.includes(domain) ? policy.join : null;
  if (!user && invitations.length === 0 && !jit) throw new SsoRefused("not_invited");
  if (user && memberships.length === 0 && invitations.length === 0) throw new SsoRefused("not_invited");
  if (jit && !(await db.selectFrom("workspaces").select("id").where("id", "=", jit.workspaceId).executeTakeFirst()))
    throw new SsoRefused("join_workspace_missing");

  // A password nobody knows: this person signs in through the provider (or sets one by a reset).
  const passwordHash = user ? null : await hashPassword(generatePassword());
  return withTransaction(db, async (trx) => {
    const userId = user?.id ?? newId("user");
    const firstWorkspace = jit?.workspaceId ?? invitations[0]?.workspace_id;
    if (!user)
      await trx
        .insertInto("users")
        .values({
          id: userId,
          email,
          name: displayName(claims.name, email),
          password_hash: passwordHash!,
          workspace_id: firstWorkspace!,
          is_ops: 0,
          created_at: nowIso,
        })
        .execute();
    const by = { actor: { kind: "user" as const, id: userId }, ip: meta.ip };
    for (const invitation of invitations) {
      // Single use, as through the link: only a still-pending invitation is taken.
      const claimed = await trx
        .updateTable("invitations")
        .set({ accepted_at: nowIso, accepted_by: userId })
        .where("id", "=", invitation.id)
        .where("accepted_at", "is", null)
        .where("revoked_at", "is", null)
        .returning("id")
        .executeTakeFirst();
      if (!claimed) continue;
      await insertMembership(trx, { workspaceId: invitation.workspace_id, userId, role: invitation.role });
      await recordAudit(trx, by, {
        workspaceId: invitation.workspace_id,
        action: "member.joined",
        target: { type: "user", id: userId },
        changes: {
          email,
          role: fromTo(null, invitation.role),
          invitation: invitation.id,
          new_user: !user,
          single_sign_on: true,
        },
      });
    }
    if (jit) {
      await insertMembership(trx, { workspaceId: jit.workspaceId, userId, role: jit.role });
      await recordAudit(trx, by, {
        workspaceId: jit.workspaceId,
        action: "member.joined",
        target: { type: "user", id: userId },
        changes: { email, role: fromTo(null, jit.role), new_user: true, single_sign_on: true, allowed_domain: domain },
      });
    }
    return { userId };
  });
}
