// The sign-in throttle (lib/core/workspaces/studio-throttles.ts), one per process: the sign-in route and
// next-auth's authorize count in the same place. (The per-user budget is the server's own,
// app/studio-budget-door.ts.)
import { config } from "@/lib/boot/config";
import { LIMITS } from "@/lib/primitives/limits";
import { createSignInThrottle, type SignInThrottle } from "@/lib/core/workspaces/studio-throttles";

const holder = globalThis as { atelierSignInThrottle?: SignInThrottle };

export function studioThrottles(): { signIn: SignInThrottle } {
  holder.atelierSignInThrottle ??= createSignInThrottle({ ...LIMITS.signIn, perIp: config().signInIpPerMin });
  return { signIn: holder.atelierSignInThrottle };
}

/** The header server.ts sets to the connection's address (a client cannot supply its own). */
export const CLIENT_IP_HEADER = "x-atelier-client-ip";
