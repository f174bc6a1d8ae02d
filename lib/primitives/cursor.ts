// Opaque, tamper-evident list cursors: base64url(encrypted JSON payload) + "." +
// base64url(HMAC-SHA256), the second part 43 characters. A cursor is bound to the filters it was
// made with (a hash of them, so a long search does not lengthen it). The payload is encrypted
// (AES-256-CTR, the IV derived from the plaintext, so a position always gives the same cursor):
// a page that stops inside the prompt search's index, which holds every workspace's runs, may
// carry a time taken from another workspace's run, and nothing of it may be readable.
import { createCipheriv, createDecipheriv, createHash, createHmac } from "node:crypto";
import { ApiError } from "./errors";
import { LIMITS } from "./limits";
import { sign, verifySignature } from "./signing";

export interface CursorPosition {
  /** created_at of the last item of the page */
  t: string;
  /** id of the last item of the page */
  i: string;
}

interface CursorPayload extends CursorPosition {
  /** A hash of the filters the list was made with (their canonical string). */
  f: string;
}

const PURPOSE = "cursor";
const IV_BYTES = 16;

function encryptionKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("cursor encryption").digest();
}

function filtersHash(filters: string): string {
  return createHash("sha256").update(filters).digest("base64url").slice(0, 22);
}

export function encodeCursor(secret: string, position: CursorPosition, filters: string): string {
  const plain = Buffer.from(
    JSON.stringify({ t: position.t, i: position.i, f: filtersHash(filters) } satisfies CursorPayload),
  );
  const key = encryptionKey(secret);
  const iv = createHmac("sha256", key).update(plain).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv("aes-256-ctr", key, iv);
  const payload = Buffer.concat([iv, cipher.update(plain), cipher.final()]).toString("base64url");
  return `${payload}.${sign(secret, PURPOSE, payload)}`;
}

function invalidCursor(message: string): ApiError {
  return new ApiError("invalid_parameter", message, { param: "cursor" });
}

export function decodeCursor(secret: string, cursor: string, filters: string): CursorPosition {
  if (cursor.length < LIMITS.cursorLength.min || cursor.length > LIMITS.cursorLength.max) {
    throw invalidCursor(`cursor is ${LIMITS.cursorLength.min} to ${LIMITS.cursorLength.max} characters long.`);
  }
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined || !verifySignature(secret, PURPOSE, payload, signature)) {
    throw invalidCursor("cursor is not one this API made. Send back next_cursor exactly as it came.");
  }
  let parsed: CursorPayload;
  try {
    const sealed = Buffer.from(payload, "base64url");
    if (sealed.length <= IV_BYTES) throw new Error("too short");
    const decipher = createDecipheriv("aes-256-ctr", encryptionKey(secret), sealed.subarray(0, IV_BYTES));
    const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES)), decipher.final()]);
    parsed = JSON.parse(plain.toString("utf8")) as CursorPayload;
  } catch {
    throw invalidCursor("cursor is not one this API made. Send back next_cursor exactly as it came.");
  }
  if (typeof parsed.t !== "string" || typeof parsed.i !== "string" || parsed.f !== filtersHash(filters)) {
    throw invalidCursor(
      "cursor was made with other filters. Send the same filters with the cursor, or start again without it.",
    );
  }
  return { t: parsed.t, i: parsed.i };
}
