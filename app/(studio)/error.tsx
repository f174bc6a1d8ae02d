"use client";
// A page that failed on the server: say so plainly, give the reference the server log carries
// (Next's digest), and offer to try again.
export default function StudioError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="mx-auto mt-12 max-w-lg rounded-lg border border-red-200 bg-white p-6 shadow-sm">
      <h1 className="text-lg font-semibold text-zinc-900">Something went wrong on our side</h1>
      <p className="mt-2 text-sm text-zinc-600">The page could not be shown. Nothing you entered was lost; try again, and if it keeps failing, give ops the reference below.</p>
      {error.digest ? (
        <p className="mt-3 text-xs text-zinc-500">
          Reference <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-zinc-700">{error.digest}</code>
        </p>
      ) : null}
      <button
        type="button"
        onClick={reset}
        className="mt-5 rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        Try again
      </button>
    </div>
  );
}
