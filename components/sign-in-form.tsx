"use client";
import { signIn } from "next-auth/react";
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
    const result = await signIn("credentials", { email: form.get("email"), password: form.get("password"), redirect: false });
    setBusy(false);
    if (result?.ok) {
      router.push(callbackUrl);
      router.refresh();
    } else {
      setError("That email and password do not match a user.");
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-4" noValidate>
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
