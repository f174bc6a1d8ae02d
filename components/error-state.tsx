"use client";
// The error state of a page that failed on the server: what happened in plain words, the
// reference that finds the failure in the server log, and a way to try again.
//
// In production Next hands the browser only `error.digest` (never the message). The digest is
// Next's fingerprint of the error; instrumentation.ts logs every such failure with it, so the
// reference shown here is the string ops search the log for.
export function ErrorState({
  error,
  reset,
  title = "Something went wrong on our side",
}: {
  error: Error & { digest?: string };
  reset: () => void;
  title?: string;
}) {
  return (
    <ErrorPanel
      title={title}
      message="The page could not be shown. Nothing you entered was lost; try again, and if it keeps failing, give ops the reference below."
      reference={error.digest}
      onRetry={reset}
      className="mx-auto mt-12 max-w-lg"
    />
  );
}

/** A failure in plain words, its reference and "Try again": a whole page's (h1) or a part's (h2). */
export function ErrorPanel({
  title,
  message,
  reference,
  onRetry,
  heading = "h1",
  className = "",
}: {
  title: string;
  message: string;
  reference: string | null | undefined;
  onRetry: () => void;
  heading?: "h1" | "h2";
  className?: string;
}) {
  const Heading = heading;
  return (
    <div role="alert" className={`rounded-lg border border-red-200 bg-white p-6 shadow-sm ${className}`}>
      <Heading className="text-lg font-semibold text-zinc-900">{title}</Heading>
      <p className="mt-2 text-sm text-zinc-600">{message}</p>
      <ErrorReference reference={reference} />
      <button
        type="button"
        onClick={onRetry}
        className="mt-5 rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        Try again
      </button>
    </div>
  );
}

/** "Reference <id>", selectable for copying; nothing when there is no reference to give. */
export function ErrorReference({ reference }: { reference: string | null | undefined }) {
  if (!reference) return null;
  return (
    <p className="mt-3 text-xs text-zinc-500" data-testid="error-reference">
      Reference{" "}
      <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-zinc-700 select-all">{reference}</code>
    </p>
  );
}
