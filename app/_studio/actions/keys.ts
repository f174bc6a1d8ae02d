"use server";
// Key changes from the studio: the workspace is always the signed-in user's, never the form's.
import { revalidatePath } from "next/cache";
import { createApiKey, revokeApiKey, type KeyExpiry } from "@/lib/core/keys/api-keys";
import { SCOPES, type Scope } from "@/lib/core/context";
import { getRuntime } from "@/lib/boot/runtime";
import { actionError } from "@/app/_studio/action-error";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export type ActionResult<T> = { ok: true; value: T } | { ok: false; message: string; param: string | null };

function failure(err: unknown): { ok: false; message: string; param: string | null } {
  const { message, param } = actionError(err);
  return { ok: false, message, param };
}

export async function createKeyAction(input: {
  name: string;
  expires: KeyExpiry;
  scopes: string[];
}): Promise<ActionResult<{ key: string; name: string }>> {
  const ctx = await requireStudioCtx();
  try {
    const scopes = input.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0) return { ok: false, message: "Pick at least one scope.", param: "scopes" };
    const created = await createApiKey(ctx, {
      workspaceId: ctx.workspaceId,
      name: input.name,
      expires: input.expires,
      scopes,
      prefix: (await getRuntime()).config.apiKeyPrefix,
      maker: { userId: ctx.user.id, role: ctx.user.role },
      audit: ctx,
    });
    revalidatePath("/keys");
    return { ok: true, value: { key: created.key, name: created.name } };
  } catch (err) {
    return failure(err);
  }
}

export async function revokeKeyAction(keyId: string): Promise<ActionResult<null>> {
  const ctx = await requireStudioCtx();
  try {
    await revokeApiKey(ctx, {
      keyId,
      workspaceId: ctx.workspaceId,
      maker: { userId: ctx.user.id, role: ctx.user.role },
      audit: ctx,
    });
    // Every process's key cache forgets it now (this one, and the others through the bridge).
    await ctx.services.signals.keyRevoked(keyId);
    revalidatePath("/keys");
    return { ok: true, value: null };
  } catch (err) {
    return failure(err);
  }
}
