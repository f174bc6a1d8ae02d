// next-auth (v4): sign-in with the users the admin CLI creates; JWT sessions in httpOnly cookies.
import { createHash } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { verifyUserPassword } from "@/lib/core/users";
import { config } from "@/lib/config";
import { getRuntime } from "@/lib/runtime";

export interface StudioUser {
  id: string;
  email: string;
  role: "creator" | "ops";
  workspaceId: string;
}

export const authOptions: NextAuthOptions = {
  // Derived from SECRET_KEY, so there is one secret to keep.
  secret: createHash("sha256").update(`next-auth:${config().secretKey}`).digest("base64url"),
  session: { strategy: "jwt", maxAge: 7 * 24 * 3600 },
  pages: { signIn: "/sign-in" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        const { store } = await getRuntime();
        const user = await verifyUserPassword({ db: store.db }, { email: credentials.email, password: credentials.password });
        return user ? { id: user.id, email: user.email, role: user.role, workspaceId: user.workspace_id } : null;
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) Object.assign(token, { uid: user.id, role: (user as unknown as StudioUser).role, workspaceId: (user as unknown as StudioUser).workspaceId });
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
