// HMAC-SHA256 signatures for cursors and links, keyed by the configured SECRET_KEY.
import { createHmac, timingSafeEqual } from "node:crypto";

export function sign(secret: string, purpose: string, payload: string): string {
  return createHmac("sha256", secret).update(`${purpose}\n${payload}`).digest("base64url");
}

export function verifySignature(secret: string, purpose: string, payload: string, signature: string): boolean {
  const expected = Buffer.from(sign(secret, purpose, payload));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
