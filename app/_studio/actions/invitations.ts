"use server";
// Accepting an invitation (the public /invite/<token> page): as the signed-in user, or as a new
// person with a name and a password. The token is the permission; the core checks everything.
import { actionError } from "@/app/_studio/action-error";
import type { ActionResult } from "@/app/_studio/actions/runs";
import { studioUser } from "@/app/auth";
import { studioClientIp } from "@/app/_studio/studio-ctx";
import { getRuntime } from "@/lib/boot/runtime";
import { acceptInvitation } from "@/lib/core/workspaces/invitations";

export async function acceptInvitationAction(
  token: string,
  newUser: { name: string; password: string } | null,
): Promise<ActionResult<{ email: string }>> {
  try {
    const { store, services } = await getRuntime();
    const user = await studioUser();
    const ip = await studioClientIp();
    const joined = await acceptInvitation(store.db, {
      token,
      signedIn: user ? { userId: user.id, email: user.email } : null,
      newUser: user ? null : newUser,
      ...(ip !== undefined && { ip }),
    });
    // A signed-in member's caches learn of the new membership (the switcher lists it).
    if (user) await services.signals.sessionsEnded(user.id);
    return { ok: true, value: { email: joined.email } };
  } catch (err) {
    return { ok: false, error: actionError(err) };
  }
}
