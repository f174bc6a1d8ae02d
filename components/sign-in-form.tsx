"use client";
import { getCsrfToken, signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

const input =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500/30";

export function SignInForm({
  oauth = [],
  initialError = null,
  callbackUrl = "/catalog",
}: {
  oauth?: { id: string; name: string }[];
  initialError?: string | null;
  /** A same-origin path to land on (checked by the sign-in page). */
  callbackUrl?: string;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const outcome = await signInWithPassword(
        String(form.get("email") ?? ""),
        String(form.get("password") ?? ""),
        callbackUrl,
      );
      if (outcome === "ok") {
        router.push(callbackUrl);
        router.refresh();
        return;
      }
      setError(outcome);
    } catch {
      setError("Signing in did not work. Try again.");
    } finally {
      setBusy(false);
    }
  }

  return (
    // method="post": a press before the page has come alive must not put the password in the URL.
    <form method="post" onSubmit={(e) => void submit(e)} className="space-y-4" noValidate>
      <label className="block text-sm font-medium text-zinc-700">
        Email
        <input name="email" type="email" autoComplete="username" required className={input} />
      </label>
      <label className="block text-sm font-medium text-zinc-700">
        Password
        <input name="password" type="password" autoComplete="current-password" required className={input} />
      </label>
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={busy}
        className="w-full rounded-md bg-indigo-600 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60"
      >
        {busy ? "Signing in…" : "Sign in"}
      </button>
      {oauth.length ? (
        <div className="space-y-2 border-t border-zinc-200 pt-4">
          {oauth.map((p) => (
            <button
              key={p.id}
              type="button"
              onClick={() => void signIn(p.id, { callbackUrl })}
              className="w-full rounded-md border border-zinc-300 bg-white px-4 py-2 text-sm font-medium text-zinc-800 shadow-sm hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              Continue with {p.name}
            </button>
          ))}
        </div>
      ) : null}
    </form>
  );
}

/**
 * next-auth's credentials sign-in, posted here rather than through its `signIn()`, which cannot
 * read the throttle's 429: "ok", or the message to show.
 */
export async function signInWithPassword(email: string, password: string, callbackUrl: string): Promise<"ok" | string> {
  const csrfToken = (await getCsrfToken()) ?? "";
  const res = await fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl, json: "true" }),
  });
  const body = (await res.json().catch(() => null)) as { url?: string; error?: { message?: string } } | null;
  if (res.status === 429) return body?.error?.message ?? "Too many sign-in attempts. Try again in a minute.";
  // next-auth answers its redirect as JSON ({ url }, status 302): a failure's URL carries ?error=.
  const failed = !body?.url || new URL(body.url, window.location.origin).searchParams.has("error");
  return failed ? "That email and password do not match a user." : "ok";
}
