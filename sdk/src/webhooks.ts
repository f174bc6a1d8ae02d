// Verifying a webhook delivery (docs/api.md, "Verifying a delivery"): Standard Webhooks, through the
// scheme's own library. The payload must be the raw body exactly as received.
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { WebhookPayload } from "./types.js";

export { WebhookVerificationError };

/** A Fetch `Headers`, or a plain object of them (Node's `req.headers`, any case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

const NAMES = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

function header(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? "";
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.join(", ");
  }
  return "";
}

/**
 * Checks a delivery's `webhook-signature` (any of its space-separated signatures: two for 24 h
 * after a rotation) against `secret` (`whsec_…`, GET /v1/webhooks/default/secret) and that its
 * `webhook-timestamp` is within five minutes, and returns the parsed payload. Throws
 * WebhookVerificationError otherwise. Deliveries are at least once: deduplicate on `webhook-id`.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookPayload {
  const body = typeof payload === "string" ? payload : new TextDecoder("utf-8", { fatal: true }).decode(payload);
  const picked = Object.fromEntries(NAMES.map((name) => [name, header(headers, name)])) as Record<
    (typeof NAMES)[number],
    string
  >;
  return new Webhook(secret).verify(body, picked) as WebhookPayload;
}
