// The studio session's ID from next-auth's cookie (an encrypted token holding nothing else): for
// the doors that need the session itself, not only its user (the budget door, the workspace switch).
import { decode } from "next-auth/jwt";
import { studioSessionSecret } from "./session-secret";

/** next-auth's session cookie names, behind HTTPS and not. */
export const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

/** The session cookie's value in a Cookie header, or null. */
export function sessionCookie(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    const name = part.slice(0, at).trim();
    if (at > 0 && SESSION_COOKIES.includes(name)) return part.slice(at + 1).trim();
  }
  return null;
}

let secret: string | null = null;

/** The session ID a cookie's token carries; null when there is none or it does not open. */
export async function sessionIdOf(token: string | null | undefined): Promise<string | null> {
  if (!token) return null;
  // Derived once per process: the budget door asks on every counted request.
  secret ??= studioSessionSecret();
  const sid = await decode({ token, secret }).then(
    (t) => t?.sid,
    () => undefined,
  );
  return typeof sid === "string" ? sid : null;
}
