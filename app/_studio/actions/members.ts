"use server";
// The Members page's changes: each calls the core verb with the signed-in member's Ctx (their role
// decides), and a change to someone's access tells every process's caches (sessions_ended).
import { revalidatePath } from "next/cache";
import { actionError } from "@/app/_studio/action-error";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import type { ActionResult } from "@/app/_studio/actions/runs";
import { getRuntime } from "@/lib/boot/runtime";
import { inviteAndMail, type MailOutcome } from "@/lib/boot/invite";
import { revokeInvitation } from "@/lib/core/workspaces/invitations";
import { removeMember, setCreatorKeys, setMemberRole } from "@/lib/core/workspaces/members";

async function attempt<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    const value = await work();
    revalidatePath("/members");
    return { ok: true, value };
  } catch (err) {
    return { ok: false, error: actionError(err) };
  }
}

export async function inviteAction(input: {
  email: string;
  role: string;
}): Promise<ActionResult<{ link: string; email: string; mail: MailOutcome }>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => {
    const { config } = await getRuntime();
    const { invitation, link, mail } = await inviteAndMail(ctx, input, config, ctx.user.email);
    return { link, email: invitation.email, mail };
  });
}

export async function revokeInvitationAction(id: string): Promise<ActionResult<null>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => {
    await revokeInvitation(ctx, { id });
    return null;
  });
}

export async function setRoleAction(userId: string, role: string): Promise<ActionResult<null>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => {
    const changed = await setMemberRole(ctx, { userId, role });
    await ctx.services.signals.sessionsEnded(changed.user_id);
    return null;
  });
}

export async function removeMemberAction(userId: string): Promise<ActionResult<null>> {
  const ctx = await requireStudioCtx();
  return attempt(async () => {
    const { member, revokedKeys } = await removeMember(ctx, { userId });
    await ctx.services.signals.sessionsEnded(member.user_id);
    for (const keyId of revokedKeys) await ctx.services.signals.keyRevoked(keyId);
    return null;
  });
}

export async function setCreatorKeysAction(allowed: boolean): Promise<ActionResult<boolean>> {
  const ctx = await requireStudioCtx();
  return attempt(() => setCreatorKeys(ctx, { allowed }));
}
