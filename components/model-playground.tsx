"use client";
// The heart of the studio: the schema form (opening with the model's first example, or your last
// input), the live quote, Run, the selected run beside it and your recent runs of the model.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { RJSFSchema } from "@rjsf/utils";
import type { Generation } from "@/lib/core/runs/generation-view";
import type { File as StudioFile } from "@/lib/core/files/files";
import type { Quote } from "@/lib/core/runs/quotes";
import { SchemaForm } from "./schema-form";
import {
  fileFields,
  fileNoun,
  plainError,
  sameInput,
  startingInput,
  withDefaults,
  type EnumLabels,
} from "./schema-form/messages";
import { quoteAction, runAction, uploadImageAction, type PlainError } from "@/app/_studio/actions/runs";
import { CopyButton, RunView, curlFor, storeRun } from "./run-view";
import { directUpload } from "./direct-upload";
import { ModelRunsGallery } from "./model-runs-gallery";
import { balanceChanged } from "./balance-badge";
import { EARLY_INPUT, schemaFormEarlyInput, takeEarlyInput } from "./early-input";

export interface PlaygroundExample {
  title: string;
  input: Record<string, unknown>;
}

const NO_EXAMPLES: readonly PlaygroundExample[] = [];
const NO_LABELS: EnumLabels = {};

/** How many recent runs the gallery keeps. */
const GALLERY_SIZE = 12;

/** The last input per model and user, kept in this browser. */
function readSaved(key: string): Record<string, unknown> | null {
  try {
    const raw = window.localStorage.getItem(key);
    const value: unknown = raw ? JSON.parse(raw) : null;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function writeSaved(key: string, input: Record<string, unknown>): void {
  try {
    window.localStorage.setItem(key, JSON.stringify(input));
  } catch {
    // Private mode or a full store: the form still works, it just will not be remembered.
  }
}

function Spinner({ className = "" }: { className?: string }) {
  return (
    <span
      aria-hidden
      className={`inline-block h-3.5 w-3.5 motion-safe:animate-spin rounded-full border-2 border-current border-t-transparent ${className}`}
    />
  );
}

export function ModelPlayground({
  modelId,
  modelName,
  schema,
  examples = NO_EXAMPLES,
  enumLabels = NO_LABELS,
  files: initialFiles,
  recent,
  typicalSeconds,
  disabledReason,
  storageKey,
  startInput = null,
  present: presentAtStart = false,
}: {
  modelId: string;
  modelName: string;
  schema: RJSFSchema;
  /** The model's examples: the form opens with the first; "Try an example" offers them all. */
  examples?: readonly PlaygroundExample[];
  enumLabels?: EnumLabels;
  files: StudioFile[];
  /** This user's recent runs of the model, newest first: the newest is the result shown. */
  recent: Generation[];
  /** The model's typical run time in seconds (its recent runs), for a progress estimate; null when unknown. */
  typicalSeconds: number | null;
  disabledReason: string | null;
  /** Where this browser keeps the user's last input of the model. */
  storageKey: string;
  /** An input to open with instead of the example or the last one (a run's, "Edit and run"). */
  startInput?: Record<string, unknown> | null;
  /** Opens in presentation mode (`?present=1`). */
  present?: boolean;
}) {
  const client = useQueryClient();
  const files_ = useMemo(() => fileFields(schema), [schema]);
  const exampleInput = useCallback(
    (example: PlaygroundExample, keep: Record<string, unknown> = {}) => {
      const kept = Object.fromEntries(files_.filter((f) => keep[f] !== undefined).map((f) => [f, keep[f]]));
      return withDefaults(schema, { ...example.input, ...kept });
    },
    [files_, schema],
  );
  const [formData, setFormData] = useState<Record<string, unknown>>(() =>
    startInput ? withDefaults(schema, startInput) : examples[0] ? exampleInput(examples[0]) : startingInput(schema),
  );
  /** Where the form's input came from, for the line above the form. */
  const [origin, setOrigin] = useState<"start" | "restored" | "run">(startInput ? "run" : "start");
  /** Once the user has changed the input (typed, picked an example): remember it. */
  const [touched, setTouched] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [files, setFiles] = useState(initialFiles);
  const [quote, setQuote] = useState<Quote | null>(null);
  const [quoteError, setQuoteError] = useState<PlainError | null>(null);
  const [quoting, setQuoting] = useState(true);
  const [starting, setStarting] = useState(false);
  const [runError, setRunError] = useState<PlainError | null>(null);
  const [gallery, setGallery] = useState<Generation[]>(recent);
  const [run, setRun] = useState<Generation | null>(recent[0] ?? null);
  const [showRequest, setShowRequest] = useState(false);
  const [present, setPresent] = useState(presentAtStart);
  const seq = useRef(0);
  const resultRef = useRef<HTMLDivElement>(null);
  const footerRef = useRef<HTMLDivElement>(null);
  /** The run just started here, whose result is brought into view (a phone stacks it under the form). */
  const [revealed, setRevealed] = useState<string | null>(null);

  // What was typed before the page came alive wins; else the last input of this model in this
  // browser comes back (after hydration: the server drew the example).
  useEffect(() => {
    const early = schemaFormEarlyInput(schema, takeEarlyInput());
    if (Object.keys(early).length > 0) {
      setFormData((data) => withDefaults(schema, { ...data, ...early }));
      setTouched(true);
      setDirty(true);
      return;
    }
    if (startInput) return;
    const saved = readSaved(storageKey);
    if (saved && !(examples[0] && sameInput(saved, exampleInput(examples[0])))) {
      setFormData(withDefaults(schema, saved));
      setOrigin("restored");
    }
    // Once, on opening the page.
  }, []);
  useEffect(() => {
    if (touched) writeSaved(storageKey, formData);
  }, [formData, storageKey, touched]);

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
  const plain = useMemo(
    () => (error ? plainError(error, schema, formData, enumLabels) : null),
    [error, schema, formData, enumLabels],
  );
  /** A file not added yet is the next step (the footer says so), not an error, until a run is refused for it. */
  const missingFile =
    plain?.field && files_.includes(plain.field) && formData[plain.field] === undefined && runError === null
      ? plain.field
      : null;
  const fieldErrors = useMemo(() => {
    const out: Record<string, string> = {};
    // Before the first edit, a required field left empty is not yet an error to shout about.
    if (plain?.field && !missingFile && (dirty || formData[plain.field] !== undefined))
      out[plain.field] = plain.message;
    return out;
  }, [plain, dirty, formData, missingFile]);
  const errorField = Object.keys(fieldErrors)[0] ?? null;
  // A refused run always says why; a quote's complaint waits until the user has touched the form.
  const showError = runError !== null || dirty || errorField !== null;
  const fieldTitle = (name: string) => {
    const field = schema.properties?.[name];
    return typeof field === "object" && typeof field.title === "string" ? field.title : name;
  };

  /** Scrolls so `el` ends above the sticky footer, when it (or the field it is in) is partly in sight under it. */
  const clearFooter = useCallback((el: Element | null, field: Element | null = el) => {
    const footer = footerRef.current;
    if (!el || !footer || !field) return;
    const cover = footer.getBoundingClientRect().top;
    const { bottom } = el.getBoundingClientRect();
    const top = field.getBoundingClientRect().top;
    if (bottom > cover && top < window.innerHeight)
      window.scrollBy({ top: Math.min(bottom - cover + 12, Math.max(0, top - 16)) });
  }, []);

  // A field's message is never left under the sticky footer: bring it up when it would be.
  useLayoutEffect(() => {
    if (!errorField) return;
    const message = document.querySelector(`[data-testid="field-error-${CSS.escape(errorField)}"]`);
    clearFooter(message, message?.closest("[data-field]") ?? null);
  }, [errorField, fieldErrors, clearFooter]);

  const focusField = (name: string) => {
    const el = document.getElementById(`root_${name}`);
    el?.scrollIntoView({ block: "center" });
    el?.focus({ preventScroll: true });
  };

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
      setGallery((list) => [answer.value, ...list.filter((g) => g.id !== answer.value.id)].slice(0, GALLERY_SIZE));
      writeSaved(storageKey, formData);
      balanceChanged(); // its price is held now
      setRevealed(answer.value.id);
    } else setRunError(answer.error);
  }, [canRun, client, formData, modelId, storageKey]);

  // After the render that gave the result area a screen's height (so it can scroll to the top):
  // when it is out of sight, under the form on a phone, scroll it into view.
  useEffect(() => {
    const area = resultRef.current;
    if (!revealed || !area) return;
    const { top, bottom } = area.getBoundingClientRect();
    if (top > window.innerHeight - 96 || bottom < 0) {
      const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      area.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
    }
  }, [revealed]);

  const setPresenting = useCallback((on: boolean) => {
    setPresent(on);
    const url = new URL(window.location.href);
    if (on) url.searchParams.set("present", "1");
    else url.searchParams.delete("present");
    window.history.replaceState(window.history.state, "", url);
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void start();
      }
      // Esc leaves presentation mode, unless it is closing something on top (a zoomed image).
      if (e.key === "Escape" && present && !document.querySelector('[aria-modal="true"]')) setPresenting(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [start, present, setPresenting]);

  // The page under the presentation does not scroll along.
  useEffect(() => {
    if (!present) return;
    const root = document.documentElement;
    const before = root.style.overflow;
    root.style.overflow = "hidden";
    return () => {
      root.style.overflow = before;
    };
  }, [present]);

  const extras = useMemo(
    () => ({
      fieldErrors,
      files,
      enumLabels,
      upload: async (data: FormData) => {
        const a = await uploadImageAction(data);
        return a.ok ? { ok: true, file: a.value } : { ok: false, error: a.error };
      },
      directUpload,
      onUploaded: (f: StudioFile) => setFiles((list) => [f, ...list.filter((x) => x.id !== f.id)]),
    }),
    [fieldErrors, files, enumLabels],
  );

  const applyExample = (example: PlaygroundExample) => {
    setRunError(null);
    setFormData(exampleInput(example, formData));
    setTouched(true);
    setDirty(false);
    setOrigin("start");
  };
  const activeExample = examples.findIndex((e) => sameInput(exampleInput(e), formData, files_));
  const needsFile = files_.length > 0;
  const noun = needsFile ? fileNoun(schema.properties?.[files_[0]!] as RJSFSchema) : "";

  const quoteLine = disabledReason ? (
    <span className="text-zinc-500">{disabledReason}</span>
  ) : error && missingFile ? (
    <span className="text-zinc-600">
      Add {fileNoun(schema.properties?.[missingFile] as RJSFSchema)} to see the price.
    </span>
  ) : error && errorField && showError ? (
    // The message itself stands under its field; here only where to look.
    <span className="text-red-600">
      Check{" "}
      <button
        type="button"
        onClick={() => focusField(errorField)}
        className="font-medium underline underline-offset-2 hover:text-red-700"
      >
        {fieldTitle(errorField)}
      </button>{" "}
      to see the price.
    </span>
  ) : error ? (
    <span className={showError ? "text-red-600" : "text-zinc-500"}>
      {showError ? plain?.message : "Fill in the form to see the price."}
    </span>
  ) : quote ? (
    <span className="flex items-center gap-2 text-zinc-700">
      <span>
        <span className="block">
          Cost <strong className="font-semibold text-zinc-900 tabular-nums">${quote.cost_usd}</strong>
        </span>
        <span data-testid="quote-terms" className="block text-xs text-zinc-500">
          {quote.hold_usd === quote.cost_usd ? (
            <>Reserved now, charged only if the run succeeds.</>
          ) : (
            <>
              <span className="tabular-nums">${quote.hold_usd}</span> is reserved now;{" "}
              <span className="tabular-nums">${quote.cost_usd}</span> is charged only if the run succeeds.
            </>
          )}
        </span>
      </span>
      {quoting ? <Spinner className="text-zinc-400" /> : null}
    </span>
  ) : quoting ? (
    <span className="flex items-center gap-2 text-zinc-500">
      <Spinner /> Pricing…
    </span>
  ) : null;

  const form = (
    <div className="flex min-w-0 flex-col">
      <div className={`rounded-t-lg border border-b-0 border-zinc-200 bg-white ${present ? "p-6 text-lg" : "p-5"}`}>
        {examples.length && !present ? (
          <div className="mb-5 border-b border-zinc-100 pb-4" data-testid="examples">
            <div className="mb-2 flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
              <h2 className="text-sm font-medium text-zinc-800">Try an example</h2>
              {origin === "restored" ? (
                <p data-testid="restored-note" className="text-xs text-zinc-500">
                  Your last input is back.{" "}
                  <button
                    type="button"
                    onClick={() => examples[0] && applyExample(examples[0])}
                    className="font-medium text-indigo-600 hover:text-indigo-700"
                  >
                    Back to the example
                  </button>
                </p>
              ) : origin === "run" ? (
                <p data-testid="run-input-note" className="text-xs text-zinc-500">
                  The input of an earlier run.
                </p>
              ) : null}
            </div>
            <div className="flex flex-wrap gap-2">
              {examples.map((example, i) => (
                <button
                  key={example.title}
                  type="button"
                  aria-pressed={i === activeExample}
                  onClick={() => applyExample(example)}
                  className={`rounded-full border px-3 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${
                    i === activeExample
                      ? "border-indigo-200 bg-indigo-50 font-medium text-indigo-700"
                      : "border-zinc-200 bg-white text-zinc-700 hover:border-zinc-300 hover:bg-zinc-50"
                  }`}
                >
                  {example.title}
                </button>
              ))}
            </div>
            {needsFile ? (
              <p data-testid="examples-file-hint" className="mt-2 text-xs text-zinc-500">
                Examples set everything except the {noun.replace(/^an? /, "")}:{" "}
                <strong className="font-medium text-zinc-700">add {noun}</strong> below, then Run.
              </p>
            ) : null}
          </div>
        ) : null}
        {/* The user's own edits make the form dirty; RJSF's onChange also fires when it fills defaults. */}
        <div
          {...EARLY_INPUT}
          // A field focused (by Tab, or a click near the bottom) is never typed into under the sticky footer.
          onFocusCapture={(e) => {
            const target = e.target as HTMLElement;
            requestAnimationFrame(() => clearFooter(target));
          }}
          onChangeCapture={() => {
            setDirty(true);
            setTouched(true);
          }}
          onClickCapture={(e) => {
            if ((e.target as HTMLElement).closest("button, input, select, textarea, label")) {
              setDirty(true);
              setTouched(true);
            }
          }}
          onDropCapture={() => {
            setDirty(true);
            setTouched(true);
          }}
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
      </div>
      {error?.code === "insufficient_credit" ? (
        <p
          role="alert"
          data-testid="credit-help"
          className="border-x border-zinc-200 bg-amber-50 px-5 py-2.5 text-sm text-amber-900"
        >
          Not enough credit for this run. An operator adds credit on the Ops page of the studio, or with{" "}
          <code className="font-mono text-xs">npm run admin -- credit add --workspace &lt;id&gt; --usd 10</code>.
        </p>
      ) : null}
      <div
        ref={footerRef}
        className="sticky bottom-0 z-10 flex items-center justify-between gap-4 rounded-b-lg border border-zinc-200 bg-white/95 px-5 py-3 backdrop-blur"
      >
        <div className="min-w-0 text-sm" aria-live="polite" data-testid="quote">
          {quoteLine}
        </div>
        <button
          type="button"
          onClick={() => void start()}
          disabled={!canRun}
          title="Run (Ctrl/⌘ + Enter)"
          className={`inline-flex shrink-0 items-center gap-2 rounded-lg bg-indigo-600 font-semibold text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:bg-zinc-300 ${present ? "px-6 py-3 text-base" : "px-4 py-2 text-sm"}`}
        >
          {starting ? <Spinner /> : null}
          Run
          <kbd className="hidden rounded bg-white/20 px-1 font-sans text-[10px] sm:inline">⌘↵</kbd>
        </button>
      </div>
      {/* The request this form sends, ready to copy before anything has run. */}
      {present ? null : (
        <div className="mt-3 text-sm" data-testid="api-request">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <button
              type="button"
              aria-expanded={showRequest}
              aria-controls="api-request-body"
              onClick={() => setShowRequest((v) => !v)}
              className="inline-flex items-center gap-1.5 rounded-md text-zinc-500 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              <span
                aria-hidden
                className={`inline-block text-[10px] transition-transform ${showRequest ? "rotate-90" : ""}`}
              >
                ▶
              </span>
              The same run over the API
            </button>
            <div className="flex gap-2">
              <CopyButton label="Copy as curl" text={() => curlFor(window.location.origin, modelId, formData)} />
              <CopyButton
                label="Copy as JSON"
                text={() => JSON.stringify({ model: modelId, input: formData }, null, 2)}
              />
            </div>
          </div>
          {showRequest ? (
            <pre
              id="api-request-body"
              className="mt-2 overflow-x-auto rounded-lg border border-zinc-200 bg-ink p-3 font-mono text-xs leading-relaxed text-on-ink"
            >
              {curlFor("$ATELIER_URL", modelId, formData)}
            </pre>
          ) : null}
        </div>
      )}
    </div>
  );

  const result = (
    <div
      ref={resultRef}
      data-testid="result-area"
      className={`min-w-0 scroll-mt-4 ${revealed && !present ? "min-h-[calc(100svh-2rem)] lg:min-h-0" : ""}`}
    >
      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 className="text-sm font-medium text-zinc-500">Result</h2>
        <div className="flex items-center gap-3">
          {run && !present && !sameInput(withDefaults(schema, run.input), formData) ? (
            <button
              type="button"
              onClick={() => {
                setFormData(withDefaults(schema, run.input));
                setTouched(true);
                setOrigin("run");
              }}
              className="text-xs font-medium text-indigo-600 hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              Use this input
            </button>
          ) : null}
          {present ? null : (
            <button
              type="button"
              onClick={() => setPresenting(true)}
              title="The form and the result only, large (Esc leaves)"
              className="inline-flex items-center gap-1.5 rounded-md border border-zinc-200 bg-white px-2.5 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              <svg
                viewBox="0 0 16 16"
                className="h-3.5 w-3.5"
                fill="none"
                stroke="currentColor"
                strokeWidth={1.5}
                aria-hidden
              >
                <path d="M2 6V2h4M14 6V2h-4M2 10v4h4M14 10v4h-4" strokeLinecap="round" strokeLinejoin="round" />
              </svg>
              Present
            </button>
          )}
        </div>
      </div>
      <div className={`rounded-lg border border-zinc-200 bg-white ${present ? "p-6" : "p-5"}`}>
        {run ? (
          <RunView key={run.id} initial={run} compact typicalSeconds={typicalSeconds} />
        ) : (
          <div className="flex aspect-video flex-col items-center justify-center gap-1 rounded-lg border border-dashed border-zinc-300 text-center text-sm text-zinc-500">
            <span className="font-medium text-zinc-700">No run yet</span>
            <span>
              {needsFile
                ? `Add ${noun}, then press Run. The result appears here.`
                : "Press Run: the result appears here."}
            </span>
          </div>
        )}
      </div>
      {present ? null : (
        <ModelRunsGallery
          runs={gallery}
          modelId={modelId}
          selected={run?.id ?? null}
          onSelect={(g) => {
            setRun(g);
            setRevealed(g.id);
          }}
        />
      )}
    </div>
  );

  if (present) {
    return (
      <div
        role="dialog"
        aria-modal="false"
        aria-label={`${modelName}, presentation`}
        data-testid="presentation"
        className="fixed inset-0 z-40 overflow-y-auto bg-zinc-50 px-4 py-6 md:px-10 md:py-8"
      >
        <div className="mx-auto flex max-w-[1600px] flex-col gap-6">
          <div className="flex items-center justify-between gap-4">
            <h1 className="text-3xl font-semibold tracking-tight text-zinc-900">{modelName}</h1>
            <button
              type="button"
              onClick={() => setPresenting(false)}
              className="rounded-md border border-zinc-200 bg-white px-3 py-1.5 text-sm font-medium text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
            >
              Exit presentation{" "}
              <kbd className="ml-1 rounded bg-zinc-100 px-1 font-sans text-[11px] text-zinc-500">Esc</kbd>
            </button>
          </div>
          <div className="grid gap-8 text-lg lg:grid-cols-[minmax(0,4fr)_minmax(0,6fr)] [&_label]:text-base">
            {form}
            {result}
          </div>
        </div>
      </div>
    );
  }

  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,5fr)_minmax(0,6fr)]">
      {form}
      {result}
    </div>
  );
}
