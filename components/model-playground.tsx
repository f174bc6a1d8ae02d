"use client";
// The heart of the studio: the schema form, the live quote, Run, and the newest run beside it.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { RJSFSchema } from "@rjsf/utils";
import type { Generation } from "@/lib/core/generation-view";
import type { File as StudioFile } from "@/lib/core/files";
import type { Quote } from "@/lib/core/quotes";
import { SchemaForm } from "./schema-form";
import { quoteAction, runAction, uploadImageAction, type PlainError } from "@/app/(studio)/runs/actions";
import { CopyButton, RunView, curlFor, storeRun } from "./run-view";
import { directUpload } from "./direct-upload";

/** First examples as a starting input, so the form opens ready to run. */
function initialInput(schema: RJSFSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (typeof prop === "object" && Array.isArray(prop.examples) && prop.examples.length) out[name] = prop.examples[0];
  }
  return out;
}

function Spinner({ className = "" }: { className?: string }) {
  return <span aria-hidden className={`inline-block h-3.5 w-3.5 animate-spin rounded-full border-2 border-current border-t-transparent ${className}`} />;
}

export function ModelPlayground({
  modelId,
  schema,
  files: initialFiles,
  latest,
  disabledReason,
}: {
  modelId: string;
  schema: RJSFSchema;
  files: StudioFile[];
  latest: Generation | null;
  disabledReason: string | null;
}) {
  const router = useRouter();
  const client = useQueryClient();
  const [formData, setFormData] = useState<Record<string, unknown>>(() => initialInput(schema));
  const [dirty, setDirty] = useState(false);
  const [files, setFiles] = useState(initialFiles);
  const [quote, setQuote] = useState<Quote | null>(null);
  const [quoteError, setQuoteError] = useState<PlainError | null>(null);
  const [quoting, setQuoting] = useState(true);
  const [starting, setStarting] = useState(false);
  const [runError, setRunError] = useState<PlainError | null>(null);
  const [run, setRun] = useState<Generation | null>(latest);
  const [showRequest, setShowRequest] = useState(false);
  const seq = useRef(0);

  // The live quote: debounced, and only the newest answer counts.
  useEffect(() => {
    const mine = ++seq.current;
    setQuoting(true);
    const t = setTimeout(async () => {
      const answer = await quoteAction({ model: modelId, input: formData });
      if (mine !== seq.current) return;
      setQuoting(false);
      if (answer.ok) {
        setQuote(answer.value);
        setQuoteError(null);
      } else {
        setQuote(null);
        setQuoteError(answer.error);
      }
    }, 300);
    return () => clearTimeout(t);
  }, [formData, modelId]);

  const error = runError ?? quoteError;
  const fieldErrors = useMemo(() => {
    const out: Record<string, string> = {};
    if (error?.param?.startsWith("input.")) {
      const name = error.param.slice("input.".length).split(/[.[]/)[0]!;
      // Before the first edit, a required field left empty is not yet an error to shout about.
      if (dirty || formData[name] !== undefined) out[name] = error.message;
    }
    return out;
  }, [error, dirty, formData]);
  // A refused run always says why; a quote's complaint waits until the user has touched the form.
  const showError = runError !== null || dirty || Object.keys(fieldErrors).length > 0;

  const canRun = !disabledReason && !quoting && quote !== null && !starting;
  const start = useCallback(async () => {
    if (!canRun) return;
    setStarting(true);
    setRunError(null);
    const answer = await runAction({ model: modelId, input: formData });
    setStarting(false);
    if (answer.ok) {
      storeRun(client, answer.value);
      setRun(answer.value);
      router.refresh(); // the balance in the top bar
    } else setRunError(answer.error);
  }, [canRun, client, formData, modelId, router]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void start();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [start]);

  const extras = useMemo(
    () => ({
      fieldErrors,
      files,
      upload: async (data: FormData) => {
        const a = await uploadImageAction(data);
        return a.ok ? { ok: true, file: a.value } : { ok: false, error: a.error };
      },
      directUpload,
      onUploaded: (f: StudioFile) => setFiles((list) => [f, ...list.filter((x) => x.id !== f.id)]),
    }),
    [fieldErrors, files],
  );

  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,5fr)_minmax(0,6fr)]">
      <div className="flex min-w-0 flex-col">
        {/* The user's own edits make the form dirty; RJSF's onChange also fires when it fills defaults. */}
        <div
          className="rounded-t-lg border border-b-0 border-zinc-200 bg-white p-5"
          onChangeCapture={() => setDirty(true)}
          onClickCapture={() => setDirty(true)}
          onDropCapture={() => setDirty(true)}
        >
          <SchemaForm
            schema={schema}
            formData={formData}
            extras={extras}
            onChange={(d) => {
              setRunError(null);
              setFormData(d);
            }}
          />
        </div>
        {error?.code === "insufficient_credit" ? (
          <p role="alert" data-testid="credit-help" className="border-x border-zinc-200 bg-amber-50 px-5 py-2.5 text-sm text-amber-900">
            Not enough credit for this run. An operator adds credit on the Ops page of the studio, or with{" "}
            <code className="font-mono text-xs">npm run admin -- credit add --workspace &lt;id&gt; --usd 10</code>.
          </p>
        ) : null}
        <div className="sticky bottom-0 z-10 flex items-center justify-between gap-4 rounded-b-lg border border-zinc-200 bg-white/95 px-5 py-3 backdrop-blur">
          <div className="min-w-0 text-sm" aria-live="polite" data-testid="quote">
            {disabledReason ? (
              <span className="text-zinc-500">{disabledReason}</span>
            ) : error ? (
              <span className={showError ? "text-red-600" : "text-zinc-500"}>{showError ? error.message : "Fill in the form to see the price."}</span>
            ) : quote ? (
              <span className="flex items-center gap-2 text-zinc-700">
                <span>
                  Cost <strong className="font-semibold text-zinc-900 tabular-nums">${quote.cost_usd}</strong>
                  <span className="text-zinc-400"> · </span>hold <span className="tabular-nums">${quote.hold_usd}</span>
                </span>
                {quoting ? <Spinner className="text-zinc-400" /> : null}
              </span>
            ) : quoting ? (
              <span className="flex items-center gap-2 text-zinc-500">
                <Spinner /> Pricing…
              </span>
            ) : null}
          </div>
          <button
            type="button"
            onClick={() => void start()}
            disabled={!canRun}
            title="Run (Ctrl/⌘ + Enter)"
            className="inline-flex shrink-0 items-center gap-2 rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:bg-zinc-300"
          >
            {starting ? <Spinner /> : null}
            Run
            <kbd className="hidden rounded bg-white/20 px-1 font-sans text-[10px] sm:inline">⌘↵</kbd>
          </button>
        </div>
        {/* The request this form sends, ready to copy before anything has run. */}
        <div className="mt-3 text-sm" data-testid="api-request">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <button
              type="button"
              aria-expanded={showRequest}
              aria-controls="api-request-body"
              onClick={() => setShowRequest((v) => !v)}
              className="inline-flex items-center gap-1.5 rounded-md text-zinc-500 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              <span aria-hidden className={`inline-block text-[10px] transition-transform ${showRequest ? "rotate-90" : ""}`}>
                ▶
              </span>
              The same run over the API
            </button>
            <div className="flex gap-2">
              <CopyButton label="Copy as curl" text={() => curlFor(window.location.origin, modelId, formData)} />
              <CopyButton label="Copy as JSON" text={() => JSON.stringify({ model: modelId, input: formData }, null, 2)} />
            </div>
          </div>
          {showRequest ? (
            <pre id="api-request-body" className="mt-2 overflow-x-auto rounded-lg border border-zinc-200 bg-ink p-3 font-mono text-xs leading-relaxed text-on-ink">
              {curlFor("$ATELIER_URL", modelId, formData)}
            </pre>
          ) : null}
        </div>
      </div>
      <div className="min-w-0">
        <h2 className="mb-3 text-sm font-medium text-zinc-500">Result</h2>
        <div className="rounded-lg border border-zinc-200 bg-white p-5">
          {run ? (
            <RunView key={run.id} initial={run} compact />
          ) : (
            <div className="flex aspect-video flex-col items-center justify-center gap-1 rounded-lg border border-dashed border-zinc-300 text-center text-sm text-zinc-500">
              <span className="font-medium text-zinc-700">No run yet</span>
              <span>Fill in the form and press Run. The result appears here.</span>
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
