"use client";
// Accepting an invitation: a signed-in invitee presses Join; a new person gives a name and a
// password, then is signed in with them.
import { useState, useTransition, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { acceptInvitationAction } from "@/app/_studio/actions/invitations";
import { signInWithPassword } from "./sign-in-form";

const input =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500/30";
const primary =
  "w-full rounded-md bg-indigo-600 px-3 py-2 text-sm font-semibold text-white shadow-sm hover:bg-indigo-500 disabled:opacity-60";

export function InvitationAccept({
  token,
  email,
  signedIn,
  sso,
}: {
  token: string;
  email: string;
  signedIn: boolean;
  /** Single sign-on, when set up: the provider proves the invited email, and the invitation is taken by it. */
  sso?: { id: string; name: string } | null;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password") ?? "");
    startTransition(async () => {
      setError(null);
      const result = await acceptInvitationAction(
        token,
        signedIn ? null : { name: String(form.get("name") ?? ""), password },
      );
      if (!result.ok) return setError(result.error.message);
      if (!signedIn) {
        const outcome = await signInWithPassword(email, password, "/catalog");
        if (outcome !== "ok") return router.push("/sign-in");
      }
      // A full load: the session (and its workspace menu) is read anew.
      window.location.assign("/catalog");
    });
  }

  return (
    <form method="post" onSubmit={submit} className="space-y-4" noValidate>
      {signedIn ? null : (
        <>
          <label className="block text-sm font-medium text-zinc-700">
            Your name
            <input name="name" autoComplete="name" required maxLength={100} className={input} />
          </label>
          <label className="block text-sm font-medium text-zinc-700">
            Password
            <input
              name="password"
              type="password"
              autoComplete="new-password"
              required
              minLength={8}
              className={input}
            />
          </label>
        </>
      )}
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={pending} className={primary}>
        {signedIn ? "Join the workspace" : "Create my account and join"}
      </button>
      {!signedIn && sso ? (
        <div className="border-t border-zinc-200 pt-4">
          <button
            type="button"
            onClick={() => void signIn(sso.id, { callbackUrl: "/catalog" })}
            className="w-full rounded-md border border-zinc-300 bg-white px-4 py-2 text-sm font-medium text-zinc-800 shadow-sm hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Join with {sso.name} instead
          </button>
          <p className="mt-2 text-xs text-zinc-500">Sign in there as {email}: no password to set here.</p>
        </div>
      ) : null}
    </form>
  );
}
