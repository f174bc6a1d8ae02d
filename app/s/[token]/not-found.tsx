// A share link that does not work: revoked, expired, mistyped or never made. One plain page for
// all of them, so the answer tells nothing of which; nothing of the studio either.
export const metadata = {
  title: "Not found · Atelier",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

export default function SharedRunNotFound() {
  return (
    <main
      data-testid="shared-not-found"
      className="flex min-h-screen flex-col items-center justify-center bg-zinc-50 px-6 py-16 text-center"
    >
      <p className="text-sm font-semibold text-indigo-600">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-zinc-900">This link does not work</h1>
      <p className="mt-2 max-w-md text-sm text-zinc-500">
        It may have been revoked or may have expired, or the address is incomplete. Ask whoever sent it for a new link.
      </p>
    </main>
  );
}
