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
import type { OAuthConfig } from "next-auth/providers/oauth";
import type { TokenSet } from "openid-client";
import { headers } from "next/headers";
import { findUserByEmail, verifyUserPassword } from "@/lib/core/workspaces/users";
import { signInWithIdentity, SsoRefused, type IdentityClaims } from "@/lib/core/workspaces/single-sign-on";
import { config, type OAuthClient } from "@/lib/boot/config";
import type { OidcSettings } from "@/lib/boot/oidc-config";
import { CLIENT_IP_HEADER } from "./studio-throttles";
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

/** next-auth's ID of the OpenID Connect provider: its callback is /api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc";

/**
 * Any OpenID Connect provider, found by discovery. next-auth checks state, PKCE and the ID token's
 * nonce; the profile is the ID token's claims with the userinfo endpoint's over them (many
 * providers put `email` and `email_verified` only there).
 */
type OidcProfile = { sub: string; email?: string; email_verified?: unknown; name?: string };

function oidcProvider(settings: OidcSettings): OAuthConfig<OidcProfile> {
  return {
    id: OIDC_PROVIDER_ID,
    name: settings.name,
    type: "oauth",
    wellKnown: `${settings.issuer}/.well-known/openid-configuration`,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state", "nonce"],
    userinfo: {
      async request({ tokens, client }) {
        // next-auth hands over openid-client's TokenSet (its type says only the parameters).
        const set = tokens as TokenSet;
        const fromUserinfo = set.access_token ? await client.userinfo(set) : {};
        return { ...set.claims(), ...fromUserinfo } as OidcProfile;
      },
    },
    profile(profile) {
      return { id: profile.sub, email: typeof profile.email === "string" ? profile.email : null };
    },
  };
}

/** The OAuth and OpenID Connect providers switched on from env, for the sign-in page's buttons. */
export function oauthSignInOptions(): { id: string; name: string }[] {
  const oidc = config().oidc;
  return [
    ...(oidc ? [{ id: OIDC_PROVIDER_ID, name: oidc.name }] : []),
    ...config().oauth.map((c) => ({ id: c.provider, name: c.provider === "github" ? "GitHub" : "Google" })),
  ];
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
    ...(config().oidc ? [oidcProvider(config().oidc!)] : []),
    ...config().oauth.map(oauthProvider),
  ],
  callbacks: {
    // After an OAuth sign-in: only a same-origin path (the model a visitor chose in /explore).
    redirect({ url, baseUrl }) {
      const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) || "/" : url;
      return `${baseUrl}${safeCallbackPath(path) ?? "/catalog"}`;
    },
    // GitHub and Google open no accounts: the provider's verified email must be a user ops created.
    // OpenID Connect also takes pending invitations and, with allowed domains, opens accounts;
    // a refusal goes back to the sign-in page with its reason.
    async signIn({ account, profile, user }) {
      if (!account || account.provider === "credentials") return true;
      if (account.provider === OIDC_PROVIDER_ID) {
        const settings = config().oidc!;
        const { store } = await getRuntime();
        const ip = (await headers()).get(CLIENT_IP_HEADER) ?? undefined;
        try {
          await signInWithIdentity(store.db, (profile ?? {}) as IdentityClaims, settings, { ip });
          return true;
        } catch (err) {
          if (err instanceof SsoRefused) return `/sign-in?error=sso_${err.reason}`;
          throw err;
        }
      }
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
      if (userId) await services.signals.sessionsEnded(userId);
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
