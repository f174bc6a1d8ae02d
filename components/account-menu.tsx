// The signed-in user with sign-out: at the foot of the sidebar on a wide screen; on a phone,
// where the sidebar is a top bar with no room for an email, a round button with the user's
// initial opens a small menu with the email, whether they operate the install, and sign-out (a native <details>, so it works
// with the keyboard and without script).
import { SignOutButton } from "./sign-out-button";

export function AccountMenu({ email, role }: { email: string; role: string | null }) {
  return (
    <>
      <div className="hidden border-t border-zinc-200 px-2 pt-3 text-xs text-zinc-500 md:block">
        <div className="truncate" title={email}>
          {email}
        </div>
        {role && <div className="mt-0.5">{role}</div>}
        <div className="mb-2" />
        <SignOutButton />
      </div>
      <details className="group relative shrink-0 md:hidden">
        <summary
          aria-label={`Account: ${email}`}
          title={email}
          className="flex h-8 w-8 cursor-pointer list-none items-center justify-center rounded-full bg-zinc-100 text-sm font-semibold text-zinc-700 uppercase ring-1 ring-zinc-200 group-open:ring-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 [&::-webkit-details-marker]:hidden"
        >
          {email.slice(0, 1)}
        </summary>
        <div className="absolute top-full right-0 z-30 mt-2 w-64 rounded-lg border border-zinc-200 bg-white p-3 text-xs text-zinc-500 shadow-lg">
          <div className="truncate text-sm font-medium text-zinc-900">{email}</div>
          {role && <div className="mt-0.5">{role}</div>}
          <div className="mb-3" />
          <SignOutButton />
        </div>
      </details>
    </>
  );
}
