// The key next-auth encrypts the studio's session cookie with: derived from SECRET_KEY, so there
// is one secret to keep. Shared by next-auth (app/auth.ts) and the server's studio budget door.
import { createHash } from "node:crypto";
import { config } from "@/lib/boot/config";

export function studioSessionSecret(): string {
  return createHash("sha256").update(`next-auth:${config().secretKey}`).digest("base64url");
}
