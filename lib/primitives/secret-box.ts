// Secrets kept in the store (a provider's pasted API key): AES-256-GCM under a key derived from
// SECRET_KEY with HKDF-SHA256, so the stored value is useless without the configuration. Each
// value gets a random 12-byte IV; the text is "v1.<iv>.<ciphertext>.<tag>" (base64url), the
// version saying how it was made so that a later scheme can read what this one wrote. The
// purpose (a provider id, say) is bound in as associated data: a value copied onto another row
// does not open there.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const INFO = "atelier stored secrets v1";

function keyOf(secretKey: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secretKey, "utf8"), Buffer.alloc(0), INFO, 32));
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretBoxError";
  }
}

/** `plain` sealed under `secretKey`, bound to `purpose`. */
export function sealSecret(secretKey: string, purpose: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(secretKey), iv);
  cipher.setAAD(Buffer.from(purpose, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    VERSION,
    iv.toString("base64url"),
    body.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
  ].join(".");
}

/** What sealSecret sealed; throws SecretBoxError under another key or purpose, or for a damaged value. */
export function openSecret(secretKey: string, purpose: string, sealed: string): string {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION)
    throw new SecretBoxError(`a stored secret is not in a known format (expected ${VERSION}).`);
  const [, iv, body, tag] = parts as [string, string, string, string];
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(secretKey), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(purpose, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretBoxError("a stored secret does not open with this SECRET_KEY (was it changed without a rekey?).");
  }
}
