"use client";
// The ops entry editor (/ops/entries/new, /ops/entries/<id>): an entry's words as fields, its
// input schema as JSON beside the live form creators will see (the model page's SchemaForm), its
// price with a quote of the example input, then save as a draft or publish, and its lifecycle.
// Every change is checked by the server as the store would check it (the providers file's
// parser), and a refusal is shown at the field its path names. An entry's routes (other providers
// serving it) have a section of their own (ops-entry-routes.tsx).
import { Component, useEffect, useMemo, useRef, useState, useTransition, type ReactNode } from "react";
import type { RJSFSchema } from "@rjsf/utils";
import Link from "next/link";
import { Breadcrumb } from "./breadcrumb";
import { SchemaForm, type SchemaFormExtras } from "./schema-form";
import { lifecycleText, type EntryLifecycle } from "./ops-entry-lifecycle";
import { checkEntryAction, saveEntryAction, type EntryCheck, type SavedEntry } from "@/app/_studio/actions/entries";
import { EntryImport } from "./ops-entry-import";
import { Lifecycle } from "./ops-entry-lifecycle-panel";
import { parseJson } from "./ops-entry-json";
import { RoutesSection } from "./ops-entry-routes";
import {
  NO_ROUTES,
  routeSpotOf,
  routesFormOf,
  routesValue,
  type RouteProblem,
  type RoutesForm,
} from "./ops-entry-routes-form";
import { FieldError, INPUT, LABEL, BUTTON, MONO, TextField } from "./ops-entry-ui";

export interface EditorProvider {
  id: string;
  kind: string;
  /** Its kind's own entry fields (a route target's JSON may hold them). */
  entryFields?: readonly string[];
}

export interface EditorEntry {
  id: string;
  provider: string;
  state: "draft" | "published";
  revision: string;
  document: Record<string, unknown>;
}

const MODALITIES = ["image", "video", "audio", "3d"];

/** The fields the editor shows one by one; the rest of the document is "Other fields". */
const OWN_FIELDS = [
  "id",
  "upstream_model",
  "name",
  "description",
  "modality",
  "tasks",
  "revision",
  "input_schema",
  "pricing",
  "examples",
  // Set by the Lifecycle section's verbs only: a save keeps the stored one (saveEntryAction).
  "lifecycle",
] as const;

const today = () => new Date().toISOString().slice(0, 10);

/** A blank entry: one prompt field, a flat price per image. */
function blankDocument(): Record<string, unknown> {
  return {
    id: "",
    upstream_model: "",
    name: "",
    description: "",
    modality: "image",
    tasks: ["text-to-image"],
    revision: today(),
    input_schema: {
      type: "object",
      additionalProperties: false,
      required: ["prompt"],
      properties: { prompt: { type: "string", title: "Prompt", minLength: 1, maxLength: 1000 } },
    },
    pricing: { unit: "image", usd: "0.04", drivers: [], overrides: [] },
  };
}

interface Fields {
  id: string;
  upstream: string;
  name: string;
  description: string;
  modality: string;
  tasks: string;
  revision: string;
  schema: string;
  unit: string;
  usd: string;
  drivers: string;
  overrides: string;
  examples: string;
  other: string;
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The editor's fields of a document, and its routes as the Routes form when the form can hold
 * them; else they stay in "Other fields" as JSON (routes null).
 */
function startOf(doc: Record<string, unknown>): { fields: Fields; routes: RoutesForm | null } {
  const routes = routesFormOf(doc.routes);
  return { fields: fieldsOf(doc, routes.ok), routes: routes.ok ? routes.form : null };
}

function fieldsOf(doc: Record<string, unknown>, routesOwned: boolean): Fields {
  const pricing = (doc.pricing ?? {}) as { unit?: string; usd?: string; drivers?: string[]; overrides?: unknown[] };
  const other = Object.fromEntries(
    Object.entries(doc).filter(
      ([k]) => !(OWN_FIELDS as readonly string[]).includes(k) && !(routesOwned && k === "routes"),
    ),
  );
  return {
    id: String(doc.id ?? ""),
    upstream: String(doc.upstream_model ?? ""),
    name: String(doc.name ?? ""),
    description: String(doc.description ?? ""),
    modality: String(doc.modality ?? "image"),
    tasks: Array.isArray(doc.tasks) ? doc.tasks.join(", ") : "",
    revision: String(doc.revision ?? today()),
    schema: pretty(doc.input_schema ?? {}),
    unit: pricing.unit ?? "image",
    usd: pricing.usd ?? "",
    drivers: (pricing.drivers ?? []).join(", "),
    overrides: pretty(pricing.overrides ?? []),
    examples: pretty(doc.examples ?? []),
    other: pretty(other),
  };
}

/** What the example input starts as: the document's first example, else its schema's defaults. */
function startingExample(document: Record<string, unknown>): Record<string, unknown> {
  const first = (document.examples as Array<{ input?: unknown }> | undefined)?.[0]?.input;
  if (first && typeof first === "object" && !Array.isArray(first)) return first as Record<string, unknown>;
  return defaultsOf(document.input_schema);
}

/** Input from a schema's defaults. */
function defaultsOf(schema: unknown): Record<string, unknown> {
  const props = (schema as { properties?: Record<string, { default?: unknown }> } | null)?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(props)) if (p && p.default !== undefined) out[k] = p.default;
  return out;
}

type Built = {
  document: Record<string, unknown>;
  errors: Record<string, string>;
  /** The Routes form's own problems (a target's JSON), each at its field. */
  routeProblems: RouteProblem[];
  /** Whether the document's routes come from "Other fields" (the form has no targets). */
  routesInOther: boolean;
};

function build(f: Fields, routesForm: RoutesForm): Built {
  const errors: Record<string, string> = {};
  const schema = parseJson(f.schema);
  if (!schema.ok) errors.schema = schema.message;
  const overrides = parseJson(f.overrides);
  if (!overrides.ok) errors.overrides = overrides.message;
  const examples = parseJson(f.examples);
  if (!examples.ok) errors.examples = examples.message;
  const other = parseJson(f.other);
  if (!other.ok) errors.other = other.message;
  else if (!other.value || typeof other.value !== "object" || Array.isArray(other.value))
    errors.other = "Other fields must be a JSON object ({} for none).";
  const rest =
    other.ok && other.value && typeof other.value === "object" ? (other.value as Record<string, unknown>) : {};
  const routes = routesValue(routesForm);
  if (routes.problems.length > 0) errors.routes = routes.problems[0]!.message;
  const routesInOther = routes.value === undefined && Object.hasOwn(rest, "routes");
  if (routes.value !== undefined && Object.hasOwn(rest, "routes"))
    errors.other =
      "routes are set in the Routes section above: take them out of here (or remove the section's targets).";
  return {
    errors,
    routeProblems: routes.problems,
    routesInOther,
    document: {
      ...rest,
      ...(routes.value !== undefined ? { routes: routes.value } : {}),
      id: f.id.trim(),
      ...(f.upstream.trim() ? { upstream_model: f.upstream.trim() } : {}),
      name: f.name,
      description: f.description,
      modality: f.modality,
      tasks: list(f.tasks),
      revision: f.revision.trim(),
      input_schema: schema.ok ? schema.value : {},
      pricing: {
        unit: f.unit.trim(),
        usd: f.usd.trim(),
        drivers: list(f.drivers),
        overrides: overrides.ok ? overrides.value : [],
      },
      // None is no field at all, as the providers file writes it.
      ...(examples.ok && !(Array.isArray(examples.value) && examples.value.length === 0)
        ? { examples: examples.value }
        : {}),
    },
  };
}

/** Which editor field a verb's param ("entry.pricing.usd", "entry.input_schema.additionalProperties") names. */
function fieldOfParam(param: string | null): keyof Fields | "routes" | "example" | "general" {
  const p = (param ?? "").replace(/^entry\.?/, "");
  if (routeSpotOf(param)) return "routes";
  if (p === "id") return "id";
  if (p.startsWith("upstream_model")) return "upstream";
  if (p.startsWith("name")) return "name";
  if (p.startsWith("description")) return "description";
  if (p.startsWith("modality")) return "modality";
  if (p.startsWith("tasks")) return "tasks";
  if (p.startsWith("revision")) return "revision";
  if (p.startsWith("input_schema")) return "schema";
  if (p.startsWith("pricing.overrides")) return "overrides";
  if (p.startsWith("pricing.drivers")) return "drivers";
  if (p.startsWith("pricing.unit")) return "unit";
  if (p.startsWith("pricing")) return "usd";
  if (p.startsWith("examples")) return "examples";
  if (p === "") return "general";
  return "other";
}

/** Keeps a schema RJSF cannot draw from taking the page down: a message instead. */
class FormGuard extends Component<{ children: ReactNode }, { error: string | null }> {
  override state = { error: null as string | null };
  static getDerivedStateFromError(err: unknown) {
    return { error: (err as Error)?.message ?? String(err) };
  }
  override render() {
    if (this.state.error)
      return (
        <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800">
          The form cannot be drawn from this schema: {this.state.error}
        </p>
      );
    return this.props.children;
  }
}

const PREVIEW_EXTRAS: SchemaFormExtras = {
  fieldErrors: {},
  files: [],
  upload: async () => ({
    ok: false,
    error: { code: "preview", message: "Uploads are off in the preview.", param: null },
  }),
  directUpload: async () => ({
    ok: false,
    error: { code: "preview", message: "Uploads are off in the preview.", param: null },
  }),
  onUploaded: () => {},
};

export function EntryEditor({ providers, entry }: { providers: EditorProvider[]; entry: EditorEntry | null }) {
  const [providerId, setProviderId] = useState(entry?.provider ?? providers[0]?.id ?? "");
  const provider = providers.find((p) => p.id === providerId) ?? null;
  const [stored, setStored] = useState<SavedEntry | null>(
    entry
      ? {
          id: entry.id,
          state: entry.state,
          revision: entry.revision,
          previousRevision: null,
          lifecycle: (entry.document.lifecycle as EntryLifecycle | undefined) ?? null,
        }
      : null,
  );
  const [start] = useState(() => startOf(entry?.document ?? blankDocument()));
  const [f, setF] = useState<Fields>(start.fields);
  const [routes, setRoutes] = useState<RoutesForm>(start.routes ?? NO_ROUTES);
  const set = (patch: Partial<Fields>) => setF((prev) => ({ ...prev, ...patch }));
  const [exampleText, setExampleText] = useState(() => pretty(startingExample(entry?.document ?? blankDocument())));
  const [check, setCheck] = useState<EntryCheck | null>(null);
  const [saveMessage, setSaveMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  /** A save's refusal, of the document as it was saved (`doc`): once that changes, the live check speaks. */
  const [serverError, setServerError] = useState<{ message: string; param: string | null; doc: string } | null>(null);
  const [pending, startTransition] = useTransition();

  const built = useMemo(() => build(f, routes), [f, routes]);
  const example = useMemo(() => parseJson(exampleText), [exampleText]);
  const exampleValue =
    example.ok && example.value && typeof example.value === "object" && !Array.isArray(example.value)
      ? (example.value as Record<string, unknown>)
      : null;
  const schemaValue = useMemo(() => {
    const parsed = parseJson(f.schema);
    return parsed.ok && parsed.value && typeof parsed.value === "object" && !Array.isArray(parsed.value)
      ? (parsed.value as RJSFSchema)
      : null;
  }, [f.schema]);

  // The server's check of the whole document and the quote of the example, a moment after typing stops.
  const seq = useRef(0);
  const docKey = JSON.stringify(built.document);
  useEffect(() => {
    if (!providerId || Object.keys(built.errors).length > 0) return;
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      void checkEntryAction(providerId, built.document, exampleValue ?? {}).then((result) => {
        if (mine === seq.current) setCheck(result);
      });
    }, 350);
    return () => clearTimeout(timer);
  }, [providerId, docKey, exampleText]);

  const refusal = (serverError?.doc === docKey ? serverError : null) ?? (check && !check.ok ? check : null);
  const refusedAt = refusal ? fieldOfParam(refusal.param) : null;
  // Routes given as JSON in "Other fields" are refused there; the form's, at their field.
  const refusedField = refusedAt === "routes" && built.routesInOther ? "other" : refusedAt;
  const errorAt = (field: keyof Fields): string | undefined =>
    built.errors[field] ?? (refusedField === field ? refusal!.message : undefined);
  const routeSpot = refusal && refusedField === "routes" ? routeSpotOf(refusal.param) : null;
  const routeProblems: RouteProblem[] = [
    ...built.routeProblems,
    ...(refusal && routeSpot ? [{ spot: routeSpot, message: refusal.message }] : []),
  ];

  const importable = provider !== null && !stored;

  function save(publish: boolean) {
    setSaveMessage(null);
    setServerError(null);
    if (Object.keys(built.errors).length > 0) {
      setSaveMessage({ tone: "error", text: "Fix the fields marked in red first." });
      return;
    }
    startTransition(async () => {
      const result = await saveEntryAction({
        providerId,
        storedId: stored?.id ?? null,
        document: built.document,
        publish,
      });
      if (!result.ok) {
        setServerError({ message: result.message, param: result.param, doc: docKey });
        setSaveMessage({ tone: "error", text: result.message });
        return;
      }
      const e = result.entry;
      setStored(e);
      if (!stored) window.history.replaceState(null, "", `/ops/entries/${encodeURIComponent(e.id)}`);
      setSaveMessage({
        tone: "ok",
        text: e.previousRevision
          ? `Saved: new revision ${e.revision}; runs already queued keep theirs (${e.previousRevision}).`
          : `Saved ${e.state === "published" ? "and published" : "as a draft"}: revision ${e.revision}.`,
      });
    });
  }

  const quote =
    check?.ok && check.quoteUsd !== null
      ? `$${check.quoteUsd}`
      : check?.ok && check.quoteError
        ? check.quoteError
        : null;

  // Here, not in the page: after the first save the address is the entry's, and so is the title.
  const heading = (
    <div>
      <Breadcrumb parent={{ href: "/ops", label: "Ops" }}>
        <Link href="/ops/entries" className="hover:text-zinc-800">
          Entries
        </Link>
        <span className="mx-1.5 text-zinc-300">/</span>
        <span className="break-all">{stored ? stored.id : "New"}</span>
      </Breadcrumb>
      <h1 className="text-2xl font-semibold tracking-tight break-words text-zinc-900">
        {stored ? f.name || stored.id : "Add a model"}
      </h1>
    </div>
  );

  if (providers.length === 0)
    return (
      <div className="space-y-6">
        {heading}
        <p className="rounded-lg border border-zinc-200 bg-white px-5 py-8 text-center text-sm text-zinc-500">
          No provider is stored yet: add one first (<code className="text-xs">admin provider add</code>).
        </p>
      </div>
    );

  return (
    <div className="space-y-6">
      {heading}
      <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
        <div className="grid gap-4 sm:grid-cols-2">
          <label className={LABEL}>
            Provider
            <select
              className={INPUT}
              value={providerId}
              disabled={!!stored}
              onChange={(e) => setProviderId(e.target.value)}
            >
              {providers.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id} ({p.kind})
                </option>
              ))}
            </select>
          </label>
          <div className="text-sm text-zinc-600 sm:self-end" data-testid="entry-state">
            {stored ? (
              <>
                <span className="font-medium text-zinc-900">{stored.id}</span> · {stored.state} · revision{" "}
                <span className="font-mono" data-testid="entry-revision">
                  {stored.revision}
                </span>{" "}
                · {lifecycleText(stored.lifecycle) ?? "current"}
              </>
            ) : (
              "Not saved yet."
            )}
          </div>
        </div>
        {importable ? (
          <EntryImport
            provider={provider}
            facts={{ id: f.id, usd: f.usd, unit: f.unit }}
            onImported={(document) => {
              const next = startOf(document);
              setF(next.fields);
              setRoutes(next.routes ?? NO_ROUTES);
              setExampleText(pretty(startingExample(document)));
            }}
          />
        ) : null}
      </section>

      <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 className="mb-3 text-base font-semibold text-zinc-900">Model</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Id (creator/name)"
            value={f.id}
            disabled={!!stored}
            onChange={(id) => set({ id })}
            error={errorAt("id")}
            name="id"
          />
          <TextField
            label="Upstream model"
            value={f.upstream}
            onChange={(upstream) => set({ upstream })}
            error={errorAt("upstream")}
            name="upstream"
          />
          <TextField
            label="Name"
            value={f.name}
            onChange={(name) => set({ name })}
            error={errorAt("name")}
            name="name"
          />
          <div>
            <label className={LABEL}>
              Modality
              <select className={INPUT} value={f.modality} onChange={(e) => set({ modality: e.target.value })}>
                {MODALITIES.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </label>
            <FieldError id="modality-error" message={errorAt("modality")} />
          </div>
          <TextField
            label="Tasks (comma separated)"
            value={f.tasks}
            onChange={(tasks) => set({ tasks })}
            error={errorAt("tasks")}
            name="tasks"
          />
          <TextField
            label="Revision"
            // A published entry's revision is the store's: a change to what its runs do makes the next.
            value={stored?.state === "published" ? stored.revision : f.revision}
            disabled={stored?.state === "published"}
            hint={
              stored?.state === "published"
                ? "Set on save: a change to the schema, price or upstream model makes the next one."
                : "A date such as 2026-11-29; kept when it is published."
            }
            onChange={(revision) => set({ revision })}
            error={errorAt("revision")}
            name="revision"
          />
          <div className="sm:col-span-2">
            <label className={LABEL}>
              Description
              <textarea
                className={INPUT}
                rows={2}
                value={f.description}
                onChange={(e) => set({ description: e.target.value })}
              />
            </label>
            <FieldError id="description-error" message={errorAt("description")} />
          </div>
        </div>
      </section>

      <section className="grid gap-6 lg:grid-cols-2">
        <div className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
          <label className={LABEL}>
            Input schema (JSON Schema 2020-12)
            <textarea
              className={MONO}
              rows={18}
              spellCheck={false}
              value={f.schema}
              aria-invalid={!!errorAt("schema")}
              onChange={(e) => set({ schema: e.target.value })}
            />
          </label>
          <FieldError id="schema-error" message={errorAt("schema")} />
        </div>
        <div
          className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5"
          data-testid="live-form"
        >
          <h2 className="text-sm font-medium text-zinc-700">The form creators will see</h2>
          <p className="mb-3 text-xs text-zinc-500">
            Drawn from the schema as you type; what you fill in is the example.
          </p>
          {schemaValue ? (
            <FormGuard key={f.schema}>
              <SchemaForm
                schema={schemaValue}
                formData={exampleValue ?? {}}
                onChange={(data) => {
                  const next = pretty(data);
                  if (next !== exampleText) setExampleText(next);
                }}
                extras={PREVIEW_EXTRAS}
              />
            </FormGuard>
          ) : (
            <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800">
              Fix the schema&apos;s JSON to see the form.
            </p>
          )}
        </div>
      </section>

      <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 className="mb-3 text-base font-semibold text-zinc-900">Price</h2>
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField
            label="Unit"
            value={f.unit}
            onChange={(unit) => set({ unit })}
            error={errorAt("unit")}
            name="unit"
          />
          <TextField
            label="USD per unit"
            value={f.usd}
            onChange={(usd) => set({ usd })}
            error={errorAt("usd")}
            name="usd"
          />
          <TextField
            label="Drivers (input fields, comma separated)"
            value={f.drivers}
            onChange={(drivers) => set({ drivers })}
            error={errorAt("drivers")}
            name="drivers"
          />
          <div className="sm:col-span-2">
            <label className={LABEL}>
              Overrides (JSON: [{"{"}&quot;when&quot;: {"{"}…{"}"}, &quot;usd&quot;: &quot;…&quot;{"}"}])
              <textarea
                className={MONO}
                rows={3}
                spellCheck={false}
                value={f.overrides}
                onChange={(e) => set({ overrides: e.target.value })}
              />
            </label>
            <FieldError id="overrides-error" message={errorAt("overrides")} />
          </div>
          <div>
            <label className={LABEL}>
              Example input (JSON)
              <textarea
                className={MONO}
                rows={3}
                spellCheck={false}
                value={exampleText}
                onChange={(e) => setExampleText(e.target.value)}
              />
            </label>
            <FieldError id="example-error" message={example.ok ? undefined : example.message} />
          </div>
        </div>
        <p className="mt-3 text-sm text-zinc-700" data-testid="quote-preview" aria-live="polite">
          Quote for the example: <span className="font-semibold text-zinc-900 tabular-nums">{quote ?? "—"}</span>
        </p>
      </section>

      <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 className="text-base font-semibold text-zinc-900">Examples</h2>
        <p className="mt-1 mb-3 text-sm text-zinc-600">
          Inputs creators can start from on the model page, each with a short title; each must be an input the entry
          takes. Changing them makes no new revision.
        </p>
        <label className={LABEL}>
          Examples (JSON: [{"{"}&quot;title&quot;: &quot;…&quot;, &quot;input&quot;: {"{"}…{"}"}
          {"}"}])
          <textarea
            className={MONO}
            rows={4}
            spellCheck={false}
            value={f.examples}
            aria-invalid={!!errorAt("examples")}
            onChange={(e) => set({ examples: e.target.value })}
          />
        </label>
        <FieldError id="examples-error" message={errorAt("examples")} />
        <button
          type="button"
          className={`${BUTTON} mt-2 bg-white text-zinc-800 ring-1 ring-zinc-300 hover:bg-zinc-50`}
          disabled={!exampleValue || !!built.errors.examples}
          onClick={() => {
            const current = parseJson(f.examples);
            const list = current.ok && Array.isArray(current.value) ? current.value : [];
            set({ examples: pretty([...list, { title: `Example ${list.length + 1}`, input: exampleValue }]) });
          }}
        >
          Add the example input
        </button>
      </section>

      <RoutesSection
        form={routes}
        onChange={setRoutes}
        providers={providers}
        ownProvider={providerId}
        priceUnit={f.unit.trim() || "image"}
        problems={routeProblems}
        inOtherFields={
          built.routesInOther
            ? {
                adopt: () => {
                  const other = parseJson(f.other);
                  if (!other.ok || !other.value || typeof other.value !== "object" || Array.isArray(other.value))
                    return "Fix Other fields' JSON first.";
                  const { routes: raw, ...rest } = other.value as Record<string, unknown>;
                  const read = routesFormOf(raw);
                  if (!read.ok) return `The form cannot hold these routes: ${read.reason}. Edit them in Other fields.`;
                  setRoutes(read.form);
                  set({ other: pretty(rest) });
                  return null;
                },
              }
            : null
        }
      />

      <section className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
        <label className={LABEL}>
          Other fields (JSON: status, creator, cost, a kind&apos;s own fields)
          <textarea
            className={MONO}
            rows={4}
            spellCheck={false}
            value={f.other}
            onChange={(e) => set({ other: e.target.value })}
          />
        </label>
        <FieldError id="other-error" message={errorAt("other")} />
        {refusal && refusedAt === "general" ? <FieldError id="general-error" message={refusal.message} /> : null}
      </section>

      <div className="flex flex-wrap sm:sticky sm:bottom-0 items-center gap-3 border-t border-zinc-200 bg-zinc-50/95 py-3">
        <button
          type="button"
          className={`${BUTTON} bg-white text-zinc-800 ring-1 ring-zinc-300 hover:bg-zinc-50`}
          disabled={pending || stored?.state === "published"}
          onClick={() => save(false)}
        >
          Save as draft
        </button>
        <button
          type="button"
          className={`${BUTTON} bg-indigo-600 text-white hover:bg-indigo-700`}
          disabled={pending}
          onClick={() => save(true)}
        >
          {stored?.state === "published" ? "Save" : "Publish"}
        </button>
        {saveMessage ? (
          <p
            role="status"
            data-testid="save-message"
            className={saveMessage.tone === "ok" ? "text-sm text-emerald-700" : "text-sm text-red-700"}
          >
            {saveMessage.text}
          </p>
        ) : null}
      </div>

      {stored ? <Lifecycle stored={stored} onChanged={setStored} /> : null}
    </div>
  );
}
