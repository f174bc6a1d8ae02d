// Signed links to blobs: anyone holding the link may read the bytes until it expires.
import { LIMITS } from "../primitives/limits";
import type { BlobStore } from "./blob-store";
import { sign, verifySignature } from "../primitives/signing";

const PURPOSE = "blob-link";

export interface SignedLink {
  url: string;
  expires_at: string;
}

function payloadOf(
  key: string,
  contentType: string,
  expires: number,
  filename: string | undefined,
  share: string | undefined,
): string {
  // A link without a filename signs what links always signed: older links stay valid. A share's
  // link signs one more line (five in all, where the others have three or four).
  const base =
    filename === undefined ? `${key}\n${contentType}\n${expires}` : `${key}\n${contentType}\n${expires}\n${filename}`;
  return share === undefined ? base : `${filename === undefined ? `${base}\n` : base}\nshare:${share}`;
}

/** A share link's ID as a blob link carries it (shr_ and base62). */
const SHARE_ID = /^shr_[0-9A-Za-z]{1,64}$/;

const FILENAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/;

/**
 * A download name made safe for a link and a Content-Disposition header: letters, digits, ".",
 * "_" and "-" (anything else becomes "-"), at most 150 characters, never starting with a dot.
 */
export function downloadName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 150);
  return FILENAME.test(safe) ? safe : "download";
}

export interface LinkOptions {
  secret: string;
  baseUrl: string;
  now?: number;
  filename?: string;
  /**
   * A share link's ID: the link answers only while that share link is live (api/routes/blobs.ts
   * reads it), so revoking a share stops the links its page showed at once.
   */
  share?: string;
}

/** Seconds since the epoch when a link minted at `now` stops working: 24 hours on (docs/api.md, "Limits"). */
function linkExpiry(now = Date.now()): number {
  return Math.floor(now / 1000) + LIMITS.outputLinkHours * 3600;
}

/**
 * The link an answer carries for a blob, valid 24 hours from now: the bucket's presigned URL when
 * files live in a bucket, else a signed /v1/blobs link the API answers itself.
 */
export async function blobLink(
  blobs: BlobStore,
  options: LinkOptions,
  key: string,
  contentType: string,
): Promise<SignedLink> {
  const expires = linkExpiry(options.now);
  const filename = options.filename === undefined ? undefined : downloadName(options.filename);
  const expiresAt = new Date(expires * 1000);
  const signedAt = new Date((expires - LIMITS.outputLinkHours * 3600) * 1000);
  const url = await blobs.signedReadUrl(key, { contentType, expiresAt, signedAt, ...(filename ? { filename } : {}) });
  return url === null ? signBlobLink(options, key, contentType) : { url, expires_at: expiresAt.toISOString() };
}

/**
 * A link valid for 24 hours from now (docs/api.md, "Output items"). With `filename`, the link
 * answers `Content-Disposition: attachment` with that name; the signature covers the name.
 * `baseUrl` "" gives a same-origin link ("/v1/blobs/…"), as the studio's pages use.
 */
export function signBlobLink(options: LinkOptions, key: string, contentType: string): SignedLink {
  const expires = linkExpiry(options.now);
  const filename = options.filename === undefined ? undefined : downloadName(options.filename);
  const share = options.share;
  if (share !== undefined && !SHARE_ID.test(share)) throw new Error(`not a share link ID: ${share}`);
  const signature = sign(options.secret, PURPOSE, payloadOf(key, contentType, expires, filename, share));
  const query = new URLSearchParams({
    type: contentType,
    expires: String(expires),
    ...(filename ? { filename } : {}),
    ...(share ? { share } : {}),
    signature,
  });
  return { url: `${options.baseUrl}/v1/blobs/${key}?${query}`, expires_at: new Date(expires * 1000).toISOString() };
}

/** `share`: the share link whose liveness the caller must check before answering. */
export type LinkCheck =
  { ok: true; contentType: string; filename?: string; share?: string } | { ok: false; reason: "tampered" | "expired" };

export function checkBlobLink(
  secret: string,
  key: string,
  query: Record<string, string | undefined>,
  now = Date.now(),
): LinkCheck {
  const { type, expires, signature, filename, share } = query;
  if (!type || !expires || !signature || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: "tampered" };
  if (filename !== undefined && !FILENAME.test(filename)) return { ok: false, reason: "tampered" };
  if (share !== undefined && !SHARE_ID.test(share)) return { ok: false, reason: "tampered" };
  if (!verifySignature(secret, PURPOSE, payloadOf(key, type, Number(expires), filename, share), signature))
    return { ok: false, reason: "tampered" };
  if (Number(expires) * 1000 <= now) return { ok: false, reason: "expired" };
  return {
    ok: true,
    contentType: type,
    ...(filename === undefined ? {} : { filename }),
    ...(share === undefined ? {} : { share }),
  };
}
