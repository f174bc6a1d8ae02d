"use server";
// Webhook changes from the studio: endpoints, the signing secret and resends, always in the
// signed-in user's workspace and through lib/core (whose ApiError comes back as {message, param}).
import { revalidatePath } from "next/cache";
import { resendEvent } from "@/lib/core/webhooks/webhook-deliveries";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  updateWebhookEndpoint,
} from "@/lib/core/webhooks/webhook-endpoints";
import { getDefaultWebhookSecret, rotateDefaultWebhookSecret } from "@/lib/core/webhooks/webhook-secrets";
import { actionError } from "@/app/_studio/action-error";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export type ActionResult<T> = { ok: true; value: T } | { ok: false; message: string; param: string | null };

export interface EndpointInput {
  url: string;
  description: string;
  event_types: string[];
}

function failure(err: unknown): { ok: false; message: string; param: string | null } {
  const { message, param } = actionError(err);
  return { ok: false, message, param };
}

async function attempt<T>(
  fn: (ctx: Awaited<ReturnType<typeof requireStudioCtx>>) => Promise<T>,
): Promise<ActionResult<T>> {
  const ctx = await requireStudioCtx();
  try {
    const value = await fn(ctx);
    revalidatePath("/webhooks");
    return { ok: true, value };
  } catch (err) {
    return failure(err);
  }
}

const body = (input: EndpointInput) => ({
  url: input.url.trim(),
  description: input.description,
  event_types: input.event_types,
});

export async function createEndpointAction(input: EndpointInput): Promise<ActionResult<{ id: string }>> {
  return attempt(async (ctx) => ({ id: (await createWebhookEndpoint(ctx, body(input))).id }));
}

export async function updateEndpointAction(id: string, input: EndpointInput): Promise<ActionResult<{ id: string }>> {
  return attempt(async (ctx) => ({ id: (await updateWebhookEndpoint(ctx, { id, body: body(input) })).id }));
}

export async function setEndpointEnabledAction(
  id: string,
  enabled: boolean,
): Promise<ActionResult<{ enabled: boolean }>> {
  return attempt(async (ctx) => ({ enabled: (await updateWebhookEndpoint(ctx, { id, body: { enabled } })).enabled }));
}

export async function deleteEndpointAction(id: string): Promise<ActionResult<null>> {
  return attempt(async (ctx) => {
    await deleteWebhookEndpoint(ctx, { id });
    return null;
  });
}

/** The secret itself is sent to the browser only when asked for (reveal or copy). */
export async function revealSecretAction(): Promise<ActionResult<{ secret: string }>> {
  const ctx = await requireStudioCtx();
  try {
    return { ok: true, value: { secret: (await getDefaultWebhookSecret(ctx)).secret } };
  } catch (err) {
    return failure(err);
  }
}

export async function rotateSecretAction(): Promise<ActionResult<{ previous_expires_at: string | null }>> {
  return attempt(async (ctx) => ({ previous_expires_at: (await rotateDefaultWebhookSecret(ctx)).previous_expires_at }));
}

/** Sends an event again: to one endpoint, or (without webhookId) to every destination it has now. */
export async function resendEventAction(
  eventId: string,
  webhookId: string | null,
): Promise<ActionResult<{ count: number }>> {
  return attempt(async (ctx) => {
    const sent = await resendEvent(ctx, { id: eventId, body: webhookId ? { webhook_id: webhookId } : {} });
    return { count: sent.data.length };
  });
}
