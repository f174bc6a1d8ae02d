// Signed links to blobs: anyone holding the link may read the bytes until it expires.
import { LIMITS } from "../core/limits";
import { sign, verifySignature } from "../core/signing";

const PURPOSE = "blob-link";

export interface SignedLink {
  url: string;
  expires_at: string;
}

function payloadOf(key: string, contentType: string, expires: number): string {
  return `${key}\n${contentType}\n${expires}`;
}

/** A link valid for 24 hours from now (SPEC.md "Output link validity"). */
export function signBlobLink(
  options: { secret: string; baseUrl: string; now?: number },
  key: string,
  contentType: string,
): SignedLink {
  const expires = Math.floor((options.now ?? Date.now()) / 1000) + LIMITS.outputLinkHours * 3600;
  const signature = sign(options.secret, PURPOSE, payloadOf(key, contentType, expires));
  const query = new URLSearchParams({ type: contentType, expires: String(expires), signature });
  return { url: `${options.baseUrl}/v1/blobs/${key}?${query}`, expires_at: new Date(expires * 1000).toISOString() };
}

export type LinkCheck = { ok: true; contentType: string } | { ok: false; reason: "tampered" | "expired" };

export function checkBlobLink(secret: string, key: string, query: Record<string, string | undefined>, now = Date.now()): LinkCheck {
  const { type, expires, signature } = query;
  if (!type || !expires || !signature || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: "tampered" };
  if (!verifySignature(secret, PURPOSE, payloadOf(key, type, Number(expires)), signature)) return { ok: false, reason: "tampered" };
  if (Number(expires) * 1000 <= now) return { ok: false, reason: "expired" };
  return { ok: true, contentType: type };
}
