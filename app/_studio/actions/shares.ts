"use server";
// Share links from the run page: each calls lib/core/shares/share-links.ts with the signed-in user's Ctx.
import {
  createShareLink,
  listShareLinks,
  revokeShareLink,
  type CreatedShareLink,
  type ShareLink,
} from "@/lib/core/shares/share-links";
import { actionError } from "@/app/_studio/action-error";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import type { ActionResult } from "@/app/_studio/actions/runs";

async function attempt<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (err) {
    return { ok: false, error: actionError(err) };
  }
}

export async function createShareLinkAction(
  runId: string,
  choice: { expires: string; showInput: boolean },
): Promise<ActionResult<CreatedShareLink>> {
  const ctx = await requireStudioCtx();
  return attempt(() => createShareLink(ctx, { runId, expires: choice.expires, showInput: choice.showInput }));
}

export async function listShareLinksAction(runId: string): Promise<ActionResult<ShareLink[]>> {
  const ctx = await requireStudioCtx();
  return attempt(() => listShareLinks(ctx, { runId }));
}

export async function revokeShareLinkAction(id: string): Promise<ActionResult<ShareLink>> {
  const ctx = await requireStudioCtx();
  return attempt(() => revokeShareLink(ctx, { id }));
}
