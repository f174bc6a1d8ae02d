"use client";
// The run page body: the live run (outputs, cancel, keep) beside its timeline and input, with
// "Run again" (the same input, at once) and "Edit and run" (the model page, prefilled).
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { runAction } from "@/app/_studio/actions/runs";
import { editAndRunHref, readableInput } from "@/lib/core/runs/run-input";
import { RunEnding, RunOutputs, RunView } from "./run-view";
import { useLiveRun } from "./use-live-runs";
import { formatDuration, queuePlace, RunStatusPill } from "./run-status";
import { isFinal } from "@/lib/core/runs/run-states";
import type { Generation } from "@/lib/core/runs/generation-view";

function Stamp({ label, at, after }: { label: string; at: string | null; after?: string | null }) {
  return (
    <li className="relative pb-4 pl-6 last:pb-0">
      <span
        aria-hidden
        className={`absolute top-1.5 left-0 h-2.5 w-2.5 rounded-full ${at ? "bg-indigo-500" : "border border-zinc-300 bg-white"}`}
      />
      <div className="text-sm font-medium text-zinc-800">{label}</div>
      <div className="text-xs text-zinc-500 tabular-nums" suppressHydrationWarning>
        {at ? new Date(at).toLocaleString() : "—"}
        {at && after ? (
          <span className="ml-1 text-zinc-400">(+{formatDuration(Date.parse(at) - Date.parse(after))})</span>
        ) : null}
      </div>
    </li>
  );
}

/** What the run page knows of the model's form: its field order and titles; null when it is no longer in the catalog. */
export interface InputSchemaHints {
  order: string[];
  titles: Record<string, string>;
}

function RunAgain({ run, canRun }: { run: Generation; canRun: boolean }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function again() {
    setBusy(true);
    setError(null);
    const answer = await runAction({ model: run.model, input: run.input });
    if (answer.ok) {
      router.push(`/runs/${answer.value.id}`);
    } else {
      setBusy(false);
      setError(answer.error.message);
    }
  }
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          onClick={() => void again()}
          disabled={busy || !canRun}
          data-testid="run-again"
          className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-50"
        >
          {busy ? "Starting…" : "Run again"}
        </button>
        {canRun ? (
          <Link
            href={editAndRunHref(run.model, run.input)}
            data-testid="edit-and-run"
            className="rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-800 shadow-sm hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          >
            Edit and run
          </Link>
        ) : null}
      </div>
      {!canRun ? (
        <p className="text-xs text-zinc-500">This model is no longer in the catalog, so this input cannot run again.</p>
      ) : null}
      {error ? (
        <p
          role="alert"
          data-testid="run-again-error"
          className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200"
        >
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function RunDetails({
  initial,
  typicalSeconds,
  schema = null,
}: {
  initial: Generation;
  typicalSeconds: number | null;
  schema?: InputSchemaHints | null;
}) {
  const g = useLiveRun(initial).generation;
  return (
    <RunPanels g={g} schema={schema} main={<RunView initial={initial} typicalSeconds={typicalSeconds} />}>
      <div className="mt-4 border-t border-zinc-100 pt-4">
        <RunAgain run={g} canRun={schema !== null} />
      </div>
    </RunPanels>
  );
}

/**
 * An operator's read-only look at a run of another workspace (/ops/runs/[id]): the run as read,
 * its outputs, timeline and input, with nothing that acts on it (no cancel, keep, share or run
 * again: those belong to its workspace). Not live: the page is read again to see a change.
 */
export function RunRecord({ run: g, schema = null }: { run: Generation; schema?: InputSchemaHints | null }) {
  const final = isFinal(g.status);
  return (
    <RunPanels
      g={g}
      schema={schema}
      readOnly
      main={
        <section aria-label="Run" data-testid="run-record" data-run-id={g.id} className="flex flex-col gap-4">
          <div className="flex flex-wrap items-center gap-2">
            <RunStatusPill status={g.status} />
            {g.queue_position !== null ? (
              <span data-testid="queue-position" className="text-xs font-medium text-zinc-600 tabular-nums">
                {queuePlace(g)}
              </span>
            ) : null}
          </div>
          {!final && g.output.length === 0 && !g.preview ? (
            <p className="text-sm text-zinc-500">
              {g.status === "queued" ? "Waiting in the queue." : "Running."} Reload the page to see it later.
            </p>
          ) : null}
          <RunOutputs generation={g} />
          <RunEnding run={g} />
        </section>
      }
    />
  );
}

/** The run page's layout: `main` (the run) beside the timeline and the readable input, `children` under the input. */
function RunPanels({
  g,
  schema,
  main,
  readOnly = false,
  children,
}: {
  g: Generation;
  schema: InputSchemaHints | null;
  main: ReactNode;
  readOnly?: boolean;
  children?: ReactNode;
}) {
  const [copied, setCopied] = useState(false);
  const [showJson, setShowJson] = useState(false);
  const json = JSON.stringify(g.input, null, 2);
  const readable = readableInput(g.input, schema ?? {});
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <div className="min-w-0 rounded-lg border border-zinc-200 bg-white p-5">{main}</div>
      <div className="flex min-w-0 flex-col gap-6">
        <section className="rounded-lg border border-zinc-200 bg-white p-5">
          <h2 className="mb-3 text-sm font-semibold text-zinc-900">Timeline</h2>
          <ol className="border-l border-zinc-200 pl-0" style={{ marginLeft: 4 }}>
            <Stamp label="Created" at={g.created_at} />
            <Stamp label="Started" at={g.started_at} after={g.created_at} />
            <Stamp
              label={g.status === "canceled" ? "Canceled" : g.status === "failed" ? "Failed" : "Completed"}
              at={g.completed_at}
              after={g.started_at ?? g.created_at}
            />
          </ol>
          <dl className="mt-4 grid grid-cols-2 gap-y-1 border-t border-zinc-100 pt-3 text-sm">
            <dt className="text-zinc-500">Source</dt>
            <dd className="text-right text-zinc-800" data-testid="run-source">
              {g.source}
            </dd>
            <dt className="text-zinc-500">Revision</dt>
            <dd className="text-right text-zinc-800">{g.revision}</dd>
            {g.batch_id ? (
              <>
                <dt className="text-zinc-500">Batch</dt>
                <dd className="text-right">
                  {readOnly ? (
                    <span className="font-mono text-xs text-zinc-700 select-all" data-testid="run-batch">
                      {g.batch_id}
                    </span>
                  ) : (
                    <Link
                      href={`/runs?batch=${g.batch_id}`}
                      title="Every run of this batch"
                      data-testid="run-batch"
                      className="font-mono text-xs text-indigo-600 hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500"
                    >
                      {g.batch_id}
                    </Link>
                  )}
                </dd>
              </>
            ) : null}
          </dl>
        </section>
        <section className="rounded-lg border border-zinc-200 bg-white p-5" aria-labelledby="run-input-heading">
          <div className="mb-3 flex items-center justify-between gap-2">
            <h2 id="run-input-heading" className="text-sm font-semibold text-zinc-900">
              Input
            </h2>
            <div className="flex items-center gap-2">
              <button
                type="button"
                aria-expanded={showJson}
                aria-controls="run-input-json"
                onClick={() => setShowJson((v) => !v)}
                data-testid="run-input-toggle"
                className="rounded-md border border-zinc-200 px-2 py-0.5 text-xs font-medium text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                {showJson ? "Hide JSON" : "Show JSON"}
              </button>
              <button
                type="button"
                onClick={async () => {
                  await navigator.clipboard.writeText(json).catch(() => {});
                  setCopied(true);
                  setTimeout(() => setCopied(false), 1500);
                }}
                className="rounded-md border border-zinc-200 px-2 py-0.5 text-xs font-medium text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                {copied ? "Copied" : "Copy JSON"}
              </button>
            </div>
          </div>
          <div data-testid="run-input">
            {readable.prompt ? (
              <figure className="mb-3" data-testid="run-prompt">
                <figcaption className="mb-1 text-xs font-medium text-zinc-500">{readable.prompt.label}</figcaption>
                <blockquote className="text-sm leading-6 whitespace-pre-wrap text-zinc-900">
                  {readable.prompt.text}
                </blockquote>
              </figure>
            ) : null}
            {readable.fields.length ? (
              <dl
                data-testid="run-fields"
                className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 border-t border-zinc-100 pt-3 text-sm"
              >
                {readable.fields.map((f) => (
                  <div key={f.key} className="contents">
                    <dt className="text-zinc-500">{f.label}</dt>
                    <dd className="text-right break-words text-zinc-800">{f.value}</dd>
                  </div>
                ))}
              </dl>
            ) : null}
            {!readable.prompt && !readable.fields.length ? <p className="text-sm text-zinc-500">No input.</p> : null}
          </div>
          {showJson ? (
            <pre
              id="run-input-json"
              data-testid="run-input-json"
              className="mt-3 max-h-80 overflow-auto rounded-md bg-zinc-50 p-3 font-mono text-xs leading-5 text-zinc-800"
            >
              {json}
            </pre>
          ) : null}
          {children}
        </section>
      </div>
    </div>
  );
}
