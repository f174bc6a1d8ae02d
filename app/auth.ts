// next-auth (v4): sign-in with the users the admin CLI creates, by password or, when configured,
// through GitHub or Google for the same email. The httpOnly cookie (next-auth's encrypted token)
// carries only a session ID: the session lives in the store (lib/core/workspaces/studio-sessions.ts), so
// sign-out, a password or role change and a removed user end it on the server, and who the user
// is, their role and their workspace are read from the store on every request, never the token.
import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { findUserByEmail, verifyUserPassword } from "@/lib/core/workspaces/users";
import { config, type OAuthClient } from "@/lib/boot/config";
import { getRuntime } from "@/lib/boot/runtime";
import { studioSessionSecret } from "./session-secret";
import { studioThrottles } from "./studio-throttles";
import { safeCallbackPath } from "@/lib/core/workspaces/callback-path";
import {
  endStudioSession,
  startStudioSession,
  STUDIO_SESSION_DAYS,
  studioSessionUser,
  type SessionUser,
} from "@/lib/core/workspaces/studio-sessions";

export { safeCallbackPath };

/** The signed-in user as the store has them now: their role in the session's workspace, and whether they operate the install. */
export type StudioUser = SessionUser;

function oauthProvider(client: OAuthClient) {
  const options = { clientId: client.clientId, clientSecret: client.clientSecret };
  return client.provider === "github" ? GitHubProvider(options) : GoogleProvider(options);
}

/** The OAuth providers switched on from env, for the sign-in page's buttons. */
export function oauthSignInOptions(): { id: string; name: string }[] {
  return config().oauth.map((c) => ({ id: c.provider, name: c.provider === "github" ? "GitHub" : "Google" }));
}

export const authOptions: NextAuthOptions = {
  secret: studioSessionSecret(),
  session: { strategy: "jwt", maxAge: STUDIO_SESSION_DAYS * 24 * 3600 },
  pages: { signIn: "/sign-in", error: "/sign-in" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        const { store } = await getRuntime();
        const user = await verifyUserPassword(
          { db: store.db },
          { email: credentials.email, password: credentials.password },
        );
        // A user who belongs to no workspace (removed from the last one) has nothing to sign in to.
        if (!user || user.memberships.length === 0) return null;
        await studioThrottles().signIn.succeeded(credentials.email);
        return { id: user.id, email: user.email };
      },
    }),
    ...config().oauth.map(oauthProvider),
  ],
  callbacks: {
    // After an OAuth sign-in: only a same-origin path (the model a visitor chose in /explore).
    redirect({ url, baseUrl }) {
      const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) || "/" : url;
      return `${baseUrl}${safeCallbackPath(path) ?? "/catalog"}`;
    },
    // OAuth opens no accounts: the provider's verified email must be a user ops created.
    async signIn({ account, profile, user }) {
      if (!account || account.provider === "credentials") return true;
      if (
        account.provider === "google" &&
        (profile as { email_verified?: boolean } | undefined)?.email_verified !== true
      )
        return false;
      if (!user.email) return false;
      const { store } = await getRuntime();
      return ((await findUserByEmail({ db: store.db }, user.email))?.memberships.length ?? 0) > 0;
    },
    // At sign-in only: a new session in the store; the token keeps nothing but its ID.
    async jwt({ token, user, account }) {
      if (!user) return token;
      const { store } = await getRuntime();
      let userId = user.id;
      if (account && account.provider !== "credentials") {
        const found = await findUserByEmail({ db: store.db }, user.email ?? "");
        if (!found) return {};
        userId = found.id;
      }
      const session = await startStudioSession({ db: store.db }, userId);
      return { sid: session.id };
    },
    // Every read of the session (pages, actions, /api/auth/session): the user as the store has
    // them now, or none once the session has ended.
    async session({ session, token }) {
      const { store, services } = await getRuntime();
      const user =
        typeof token.sid === "string"
          ? await studioSessionUser({ db: store.db }, services.studioSessions, token.sid)
          : null;
      return Object.assign(session, {
        user: user
          ? { id: user.id, email: user.email, role: user.role, isOps: user.isOps, workspaceId: user.workspaceId }
          : undefined,
      });
    },
  },
  events: {
    // Sign-out ends the session on the server, and every process's cache forgets it at once.
    async signOut({ token }) {
      if (typeof token?.sid !== "string") return;
      const { store, services } = await getRuntime();
      const userId = await endStudioSession({ db: store.db }, token.sid);
      services.studioSessions?.forgetSession(token.sid);
      if (userId) services.signals.sessionsEnded(userId);
    },
  },
};

/** The signed-in studio user, or null. */
export async function studioUser(): Promise<StudioUser | null> {
  const session = await getServerSession(authOptions);
  const user = session?.user as Partial<StudioUser> | undefined;
  return user?.id && user.workspaceId && user.email && user.role && typeof user.isOps === "boolean"
    ? (user as StudioUser)
    : null;
}
