// Opaque, tamper-evident list cursors: base64url(JSON payload) + "." + base64url(HMAC-SHA256),
// the second part 43 characters. A cursor is bound to the filters it was made with.
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
  /** The filters the list was made with, as a canonical string. */
  f: string;
}

const PURPOSE = "cursor";

export function encodeCursor(secret: string, position: CursorPosition, filters: string): string {
  const payload = Buffer.from(
    JSON.stringify({ t: position.t, i: position.i, f: filters } satisfies CursorPayload),
  ).toString("base64url");
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
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as CursorPayload;
  } catch {
    throw invalidCursor("cursor is not one this API made. Send back next_cursor exactly as it came.");
  }
  if (parsed.f !== filters) {
    throw invalidCursor(
      "cursor was made with other filters. Send the same filters with the cursor, or start again without it.",
    );
  }
  return { t: parsed.t, i: parsed.i };
}
