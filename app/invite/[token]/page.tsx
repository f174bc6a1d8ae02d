// An invitation link (lib/core/workspaces/invitations.ts): public. Shows the workspace and role,
// then lets the invitee join: signed in with the invited email, or as a new person. A used,
// revoked, expired or unknown link is one plain message; a signed-in person with another email
// is told to sign out first.
import type { Metadata } from "next";
import Link from "next/link";
import { ApiError } from "@/lib/primitives/errors";
import { readInvitation, type InvitationView } from "@/lib/core/workspaces/invitations";
import { getRuntime } from "@/lib/boot/runtime";
import { InvitationAccept } from "@/components/invitation-accept";
import { BrandCard } from "@/components/brand-card";
import { OIDC_PROVIDER_ID, studioUser } from "@/app/auth";
import { config } from "@/lib/boot/config";

export const dynamic = "force-dynamic";
// The token is the permission: keep it out of search engines and Referer headers.
export const metadata: Metadata = {
  title: "Invitation · Atelier",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const { store } = await getRuntime();
  let view: InvitationView | null = null;
  let dead: string | null = null;
  try {
    view = await readInvitation(store.db, token);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    dead = err.message;
  }
  const user = await studioUser();
  const article = view && (view.role === "admin" || view.role === "owner") ? "an" : "a";
  return (
    <BrandCard>
      {view === null ? (
        <>
          <h1 className="text-xl font-semibold tracking-tight text-zinc-900">Invitation</h1>
          <p role="alert" className="mt-2 text-sm text-zinc-600">
            {dead}
          </p>
        </>
      ) : (
        <>
          <h1 className="text-xl font-semibold tracking-tight text-zinc-900">Join {view.workspaceName}</h1>
          <p className="mt-1 mb-6 text-sm text-zinc-500">
            {view.email} is invited as {article} <span className="font-medium text-zinc-800">{view.role}</span>.
          </p>
          {user && user.email !== view.email ? (
            <p role="alert" className="text-sm text-red-700">
              This invitation is for {view.email}; you are signed in as {user.email}. Sign out, then open the link
              again.
            </p>
          ) : !user && view.userExists ? (
            <p className="text-sm text-zinc-600">
              {view.email} has an account already:{" "}
              <Link
                href={`/sign-in?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`}
                className="font-medium text-indigo-600 hover:text-indigo-700"
              >
                sign in
              </Link>{" "}
              to accept.
            </p>
          ) : (
            <InvitationAccept
              token={token}
              email={view.email}
              signedIn={user !== null}
              sso={config().oidc ? { id: OIDC_PROVIDER_ID, name: config().oidc!.name } : null}
            />
          )}
        </>
      )}
    </BrandCard>
  );
}
