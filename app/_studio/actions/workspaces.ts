"use server";
// The workspace switcher: moves this session (only) to another workspace of the signed-in user.
import { cookies } from "next/headers";
import { actionError } from "@/app/_studio/action-error";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import type { ActionResult } from "@/app/_studio/actions/runs";
import { SESSION_COOKIES, sessionIdOf } from "@/app/session-cookie";
import { switchSessionWorkspace } from "@/lib/core/workspaces/studio-sessions";

export async function switchWorkspaceAction(workspaceId: string): Promise<ActionResult<null>> {
  const ctx = await requireStudioCtx();
  try {
    const jar = await cookies();
    const sessionId = await sessionIdOf(SESSION_COOKIES.map((name) => jar.get(name)?.value).find(Boolean));
    if (sessionId === null) throw new Error("A signed-in request without a session cookie.");
    await switchSessionWorkspace(ctx, { sessionId, userId: ctx.user.id, workspaceId });
    ctx.services.studioSessions?.forgetSession(sessionId);
    // The other processes' caches hold this session too: the user's entries go everywhere.
    await ctx.services.signals.sessionsEnded(ctx.user.id);
    return { ok: true, value: null };
  } catch (err) {
    return { ok: false, error: actionError(err) };
  }
}
