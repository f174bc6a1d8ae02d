// Emails as people sign in with them: trimmed and lower-cased, at most 254 characters, one "@"
// between non-empty parts, no spaces or control characters. The one home of that rule.
import { ApiError } from "../../primitives/errors";

const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;

/** The normal form of an email, or null for text no user can have (no query needed to refuse it). */
export function normalEmail(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

/** The normal form of an email from input, or a 400 naming the field. */
export function parseEmail(raw: unknown, param = "email"): string {
  const email = normalEmail(raw);
  if (email !== null) return email;
  const shown =
    typeof raw === "string"
      ? `"${raw.slice(0, 60).replace(/\p{Cc}/gu, "?")}${raw.length > 60 ? "…" : ""}"`
      : typeof raw;
  throw new ApiError("invalid_parameter", `The email must be an email address; got ${shown}.`, { param });
}
