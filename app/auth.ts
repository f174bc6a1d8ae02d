// next-auth (v4): sign-in with the users the admin CLI creates, by password or, when configured,
// through GitHub or Google for the same email; JWT sessions in httpOnly cookies.
import { createHash } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { findUserByEmail, verifyUserPassword, type User } from "@/lib/core/users";
import { config, type OAuthClient } from "@/lib/config";
import { getRuntime } from "@/lib/runtime";
import { safeCallbackPath } from "@/lib/core/callback-path";

export { safeCallbackPath };

export interface StudioUser {
  id: string;
  email: string;
  role: "creator" | "ops";
  workspaceId: string;
}

function studioUserOf(user: User): StudioUser {
  return { id: user.id, email: user.email, role: user.role, workspaceId: user.workspace_id };
}

function oauthProvider(client: OAuthClient) {
  const options = { clientId: client.clientId, clientSecret: client.clientSecret };
  return client.provider === "github" ? GitHubProvider(options) : GoogleProvider(options);
}

/** The OAuth providers switched on from env, for the sign-in page's buttons. */
export function oauthSignInOptions(): { id: string; name: string }[] {
  return config().oauth.map((c) => ({ id: c.provider, name: c.provider === "github" ? "GitHub" : "Google" }));
}

export const authOptions: NextAuthOptions = {
  // Derived from SECRET_KEY, so there is one secret to keep.
  secret: createHash("sha256").update(`next-auth:${config().secretKey}`).digest("base64url"),
  session: { strategy: "jwt", maxAge: 7 * 24 * 3600 },
  pages: { signIn: "/sign-in", error: "/sign-in" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        const { store } = await getRuntime();
        const user = await verifyUserPassword({ db: store.db }, { email: credentials.email, password: credentials.password });
        return user ? studioUserOf(user) : null;
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
      if (account.provider === "google" && (profile as { email_verified?: boolean } | undefined)?.email_verified !== true) return false;
      if (!user.email) return false;
      const { store } = await getRuntime();
      return (await findUserByEmail({ db: store.db }, user.email)) !== null;
    },
    async jwt({ token, user, account }) {
      if (!user) return token;
      let studio = user as unknown as StudioUser;
      if (account && account.provider !== "credentials") {
        const { store } = await getRuntime();
        const found = await findUserByEmail({ db: store.db }, user.email ?? "");
        if (!found) return token;
        studio = studioUserOf(found);
      }
      Object.assign(token, { uid: studio.id, email: studio.email, role: studio.role, workspaceId: studio.workspaceId });
      return token;
    },
    session({ session, token }) {
      Object.assign(session, { user: { id: token.uid, email: token.email, role: token.role, workspaceId: token.workspaceId } });
      return session;
    },
  },
};

/** The signed-in studio user, or null. */
export async function studioUser(): Promise<StudioUser | null> {
  const session = await getServerSession(authOptions);
  const user = session?.user as Partial<StudioUser> | undefined;
  return user?.id && user.workspaceId && user.email && user.role ? (user as StudioUser) : null;
}
