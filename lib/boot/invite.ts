// Inviting someone, as the studio and the admin CLI both do it: the invitation (core), then its mail
// when SMTP_URL is set. A mail that cannot be sent leaves the invitation standing: the inviter is
// told, and passes the link on by hand.
import { createInvitation, invitationMail, type CreatedInvitation } from "../core/workspaces/invitations";
import type { MembersCtx } from "../core/workspaces/members";
import type { Db } from "../store/database";
import type { Config } from "./config";
import { mailerFor } from "./mail";

export type MailOutcome = { state: "sent" } | { state: "off" } | { state: "failed"; reason: string };

export async function inviteAndMail(
  ctx: MembersCtx,
  input: { email: unknown; role: unknown },
  config: MailConfig,
  inviter: string | null,
): Promise<{ invitation: CreatedInvitation; link: string; mail: MailOutcome }> {
  const invitation = await createInvitation(ctx, input);
  return { invitation, ...(await mailInvitation(ctx.db, invitation, config, inviter)) };
}

type MailConfig = Pick<Config, "smtpUrl" | "smtpFrom" | "publicBaseUrl">;

/** The invitation's link, and its mail when SMTP_URL is set. */
export async function mailInvitation(
  db: Db,
  invitation: CreatedInvitation,
  config: MailConfig,
  inviter: string | null,
): Promise<{ link: string; mail: MailOutcome }> {
  const link = `${config.publicBaseUrl}${invitation.path}`;
  const mailer = mailerFor(config);
  if (!mailer) return { link, mail: { state: "off" } };
  const workspace = await db
    .selectFrom("workspaces")
    .select("name")
    .where("id", "=", invitation.workspace_id)
    .executeTakeFirstOrThrow();
  try {
    await mailer.send(
      invitationMail({
        email: invitation.email,
        workspaceName: workspace.name,
        role: invitation.role,
        link,
        inviter,
        expiresAt: invitation.expires_at,
      }),
    );
    return { link, mail: { state: "sent" } };
  } catch (err) {
    return { link, mail: { state: "failed", reason: (err as Error).message.slice(0, 200) } };
  }
}
