// Standard Webhooks signing (standardwebhooks.com; docs/api.md, "Webhook deliveries"): `v1,<base64 HMAC-SHA256>` over "id.timestamp.body",
// keyed by the bytes after "whsec_". During a rotation each secret adds its own signature.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The `webhook-signature` header: one `v1,<b64>` per secret, space-separated. */
export function signatureHeader(
  secrets: readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): string {
  const at = new Date(timestampSeconds * 1000);
  return secrets.map((secret) => new Webhook(secret).sign(msgId, at, body)).join(" ");
}
