"use client";
// The ops Providers page's interactive part (issue 37): the stored providers as cards (their
// settings, how the key is given, entries, health, recent failures) with Test connection, Edit and
// Remove, and the form that adds or edits one (react-hook-form; the catalog verbs' messages land
// under the field they name). A pasted key is a password field that is sent once and never filled
// back: the page only ever has the provider's `credential` ("secret set", "environment variable X").
import { useId, useRef, useState, useTransition } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import type { OpsProvider } from "@/lib/providers/stored-catalog/ops-providers";
import type { ConnectionCheck } from "@/lib/providers/connection-check";
import {
  addProviderAction,
  editProviderAction,
  removeProviderAction,
  testProviderAction,
  type ProviderField,
  type ProviderFormInput,
} from "@/app/_studio/actions/providers";
import { card, danger, primary, secondary } from "./webhooks-ui";

export interface ProviderKindChoice {
  name: string;
  baseUrlRequired: boolean;
  fields: string[];
}

const input =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 focus:outline-2 focus:outline-indigo-500/40 aria-[invalid=true]:border-red-400 sm:text-sm";
const label = "block text-sm font-medium text-zinc-700";

const OWN_FIELDS = ["id", "kind", "base_url", "api_key_env", "timeout_ms", "job_timeout_ms"];

function blank(kind: string): ProviderFormInput {
  return {
    kind,
    id: "",
    base_url: "",
    timeout_ms: "",
    job_timeout_ms: "",
    extra: "",
    key: "paste",
    key_env: "",
    api_key: "",
  };
}

/** The form filled with a stored provider's settings; the key is never among them. */
function filled(p: OpsProvider): ProviderFormInput {
  const s = p.settings;
  const extra = Object.fromEntries(Object.entries(s).filter(([k]) => !OWN_FIELDS.includes(k)));
  const text = (v: unknown) => (v === undefined || v === null ? "" : String(v as string | number));
  return {
    kind: p.kind,
    id: p.id,
    base_url: text(s.base_url),
    timeout_ms: text(s.timeout_ms),
    job_timeout_ms: text(s.job_timeout_ms),
    extra: Object.keys(extra).length ? JSON.stringify(extra, null, 2) : "",
    key: s.api_key_env !== undefined ? "env" : p.credential === "secret set" ? "keep" : "none",
    key_env: text(s.api_key_env),
    api_key: "",
  };
}

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

function utc(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

function CheckResult({ check, testId }: { check: ConnectionCheck; testId: string }) {
  return check.ok ? (
    <p
      role="status"
      data-testid={testId}
      className="mt-3 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-800"
    >
      Connected: {check.detail} <span className="text-emerald-700/80 tabular-nums">({check.latency_ms} ms)</span>
    </p>
  ) : (
    <p
      role="alert"
      data-testid={testId}
      className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm break-words text-red-800"
    >
      Not connected: {check.error}{" "}
      {check.latency_ms > 0 ? <span className="text-red-700/80 tabular-nums">({check.latency_ms} ms)</span> : null}
    </p>
  );
}

export function OpsProviders({
  providers,
  kinds,
  now,
}: {
  providers: OpsProvider[];
  kinds: ProviderKindChoice[];
  now: number;
}) {
  const id = useId();
  const router = useRouter();
  const formRef = useRef<HTMLElement>(null);
  const [editing, setEditing] = useState<OpsProvider | null>(null);
  const [checks, setChecks] = useState<Record<string, ConnectionCheck | "pending">>({});
  const [saved, setSaved] = useState<{ message: string; check: ConnectionCheck | "pending" } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const defaultKind = kinds.find((k) => k.name === "openai-images")?.name ?? kinds[0]?.name ?? "";
  const { register, handleSubmit, formState, setError, reset, watch } = useForm<ProviderFormInput>({
    defaultValues: blank(defaultKind),
  });
  const errors = formState.errors;
  const kind = kinds.find((k) => k.name === watch("kind"));
  const keyMode = watch("key");

  const test = (providerId: string) => {
    setChecks((c) => ({ ...c, [providerId]: "pending" }));
    void testProviderAction(providerId)
      .catch((): ConnectionCheck => ({
        ok: false,
        latency_ms: 0,
        error: "The test could not be run; reload and try again.",
      })) // prettier-ignore
      .then((check) => {
        setChecks((c) => ({ ...c, [providerId]: check }));
        // A pass ends a recorded outage: the card's "in service" is read again.
        if (check.ok) router.refresh();
      });
  };

  async function onSubmit(values: ProviderFormInput) {
    setSaved(null);
    setNotice(null);
    const result = editing ? await editProviderAction(editing.id, values) : await addProviderAction(values);
    if (!result.ok) {
      if (result.field) setError(result.field, { message: result.message }, { shouldFocus: true });
      else setError("root.server", { message: result.message });
      return;
    }
    const p = result.value;
    setSaved({ message: `${editing ? "Saved" : "Added"} ${p.id} (key: ${p.credential}). Testing its connection…`, check: "pending" }); // prettier-ignore
    setEditing(null);
    reset(blank(values.kind));
    router.refresh();
    const check = await testProviderAction(p.id);
    setSaved({ message: `${editing ? "Saved" : "Added"} ${p.id} (key: ${p.credential}).`, check });
  }

  const edit = (p: OpsProvider) => {
    setEditing(p);
    setSaved(null);
    reset(filled(p));
    formRef.current?.scrollIntoView({ block: "start" });
  };

  const cancelEdit = () => {
    setEditing(null);
    reset(blank(defaultKind));
  };

  const remove = (p: OpsProvider) =>
    startTransition(async () => {
      setNotice(null);
      const result = await removeProviderAction(p.id);
      setConfirming(null);
      if (!result.ok) return setNotice({ tone: "error", text: result.message });
      if (editing?.id === p.id) cancelEdit();
      setNotice({
        tone: "ok",
        text: `Removed ${result.value.id} and its ${result.value.entries} ${result.value.entries === 1 ? "entry" : "entries"}.`,
      });
      router.refresh();
    });

  const fieldError = (field: ProviderField) =>
    errors[field] ? (
      <p
        id={`${id}-${field}-error`}
        className="mt-1 text-sm break-words text-red-700"
        data-testid={`provider-error-${field}`}
      >
        {errors[field]?.message}
      </p>
    ) : null;
  const aria = (field: ProviderField, hint?: string) => ({
    "aria-invalid": errors[field] ? true : undefined,
    "aria-describedby": [hint, errors[field] ? `${id}-${field}-error` : null].filter(Boolean).join(" ") || undefined,
  });

  return (
    <div className="space-y-8">
      {notice ? (
        <p
          role={notice.tone === "error" ? "alert" : "status"}
          className={`rounded-md border px-4 py-2 text-sm ${notice.tone === "error" ? "border-red-200 bg-red-50 text-red-800" : "border-emerald-200 bg-emerald-50 text-emerald-800"}`}
        >
          {notice.text}
        </p>
      ) : null}

      <section aria-labelledby={`${id}-list`}>
        <h2 id={`${id}-list`} className="mb-3 text-base font-semibold text-zinc-900">
          Stored providers <span className="font-normal text-zinc-500">({providers.length})</span>
        </h2>
        {providers.length === 0 ? (
          <p className={`${card} px-5 py-8 text-center text-sm text-zinc-500`}>
            No provider is stored yet. Add one below, or name them in <code className="text-xs">PROVIDERS_FILE</code>.
          </p>
        ) : (
          <ul className="space-y-4">
            {providers.map((p) => {
              const check = checks[p.id];
              return (
                <li
                  key={p.id}
                  className={`${card} p-4 sm:p-5`}
                  data-testid="provider-card"
                  aria-label={`Provider ${p.id}`}
                >
                  <div className="flex flex-wrap items-start justify-between gap-3">
                    <div className="min-w-0">
                      <h3 className="font-mono text-base font-semibold break-all text-zinc-900">{p.id}</h3>
                      <p className="mt-0.5 text-sm text-zinc-500">
                        {p.kind} · from {p.source === "file" ? "the providers file" : "ops"}
                      </p>
                    </div>
                    {p.outage ? (
                      <span
                        data-testid="provider-health"
                        className="inline-flex items-center gap-1.5 rounded-full bg-red-50 px-2.5 py-0.5 text-xs font-medium text-red-700 ring-1 ring-red-200"
                      >
                        <span className="size-1.5 rounded-full bg-red-500" aria-hidden />
                        Out of service
                      </span>
                    ) : (
                      <span
                        data-testid="provider-health"
                        className="inline-flex items-center gap-1.5 rounded-full bg-emerald-50 px-2.5 py-0.5 text-xs font-medium text-emerald-700 ring-1 ring-emerald-200"
                      >
                        <span className="size-1.5 rounded-full bg-emerald-500" aria-hidden />
                        In service
                      </span>
                    )}
                  </div>
                  {p.outage ? (
                    <p className="mt-2 text-sm text-red-800">
                      Until {utc(p.outage.until)} (in {span(Date.parse(p.outage.until) - now)}): {p.outage.reason}
                    </p>
                  ) : null}
                  <dl className="mt-3 grid grid-cols-2 gap-x-6 gap-y-2 text-sm lg:grid-cols-4">
                    <div className="col-span-2 min-w-0 lg:col-span-1">
                      <dt className="text-xs text-zinc-500">Base URL</dt>
                      <dd className="font-mono text-xs break-all text-zinc-800">
                        {typeof p.settings.base_url === "string" ? (
                          p.settings.base_url
                        ) : (
                          <span className="text-zinc-400">the kind&apos;s default</span>
                        )}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-xs text-zinc-500">Key</dt>
                      <dd className="text-zinc-800" data-testid="provider-credential">
                        {p.credential}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-xs text-zinc-500">Entries</dt>
                      <dd className="text-zinc-800 tabular-nums">
                        {p.published} published, {p.drafts} {p.drafts === 1 ? "draft" : "drafts"}
                      </dd>
                    </div>
                    <div>
                      <dt className="text-xs text-zinc-500">Failed runs, 24 h</dt>
                      <dd className="text-zinc-800 tabular-nums">
                        {p.failures.length === 0 ? "none" : p.failures.length === 5 ? "5 or more" : p.failures.length}
                      </dd>
                    </div>
                  </dl>
                  {p.failures.length ? (
                    <details className="mt-3 text-sm">
                      <summary className="cursor-pointer text-zinc-700">Recent failures</summary>
                      <ul className="mt-2 divide-y divide-zinc-100 rounded-md border border-zinc-100">
                        {p.failures.map((f) => (
                          <li key={f.id} className="px-3 py-2">
                            <Link
                              href={`/ops/runs/${f.id}`}
                              className="font-mono text-xs text-indigo-600 hover:text-indigo-700"
                            >
                              {f.id}
                            </Link>{" "}
                            <span className="text-xs text-zinc-500">
                              {utc(f.at)} · {f.model}
                            </span>
                            <p className="mt-0.5 break-words text-zinc-700">{f.message ?? "no message"}</p>
                          </li>
                        ))}
                      </ul>
                    </details>
                  ) : null}
                  <div className="mt-4 flex flex-wrap gap-2">
                    <button
                      type="button"
                      className={secondary}
                      disabled={check === "pending"}
                      onClick={() => test(p.id)}
                    >
                      {check === "pending" ? "Testing…" : "Test connection"}
                    </button>
                    <button type="button" className={secondary} onClick={() => edit(p)}>
                      Edit
                    </button>
                    {confirming === p.id ? (
                      <span className="flex flex-wrap items-center gap-2 text-sm text-zinc-700">
                        Remove {p.id} and its {p.entries} {p.entries === 1 ? "entry" : "entries"}?
                        <button
                          type="button"
                          className={`${danger} ring-1 ring-red-200`}
                          disabled={pending}
                          onClick={() => remove(p)}
                        >
                          Yes, remove
                        </button>
                        <button type="button" className={secondary} onClick={() => setConfirming(null)}>
                          Keep it
                        </button>
                      </span>
                    ) : (
                      <button type="button" className={danger} onClick={() => setConfirming(p.id)}>
                        Remove
                      </button>
                    )}
                  </div>
                  {check && check !== "pending" ? <CheckResult check={check} testId="provider-check" /> : null}
                </li>
              );
            })}
          </ul>
        )}
      </section>

      <section ref={formRef} aria-labelledby={`${id}-form`} className={`${card} scroll-mt-4 p-4 sm:p-5`}>
        <h2 id={`${id}-form`} className="text-base font-semibold text-zinc-900">
          {editing ? `Edit ${editing.id}` : "Add a provider"}
        </h2>
        <form
          onSubmit={(e) => void handleSubmit(onSubmit)(e)}
          aria-label={editing ? `Edit ${editing.id}` : "Add a provider"}
          className="mt-3 grid gap-4 sm:grid-cols-2"
          noValidate
        >
          <div>
            <label htmlFor={`${id}-kind`} className={label}>
              Kind
            </label>
            <select id={`${id}-kind`} {...aria("kind")} {...register("kind")} className={input}>
              {/* An edit keeps the kind: its entries were written for it. */}
              {(editing ? kinds.filter((k) => k.name === editing.kind) : kinds).map((k) => (
                <option key={k.name} value={k.name}>
                  {k.name}
                </option>
              ))}
            </select>
            {fieldError("kind")}
          </div>
          <div>
            <label htmlFor={`${id}-id`} className={label}>
              ID
            </label>
            <input
              id={`${id}-id`}
              autoComplete="off"
              placeholder="acme"
              readOnly={editing !== null}
              {...aria("id", `${id}-id-hint`)}
              {...register("id")}
              className={`${input} font-mono read-only:bg-zinc-50`}
            />
            <p id={`${id}-id-hint`} className="mt-1 text-xs text-zinc-500">
              Lower-case letters, digits and dashes; shown as a run&apos;s provider.
            </p>
            {fieldError("id")}
          </div>
          <div className="sm:col-span-2">
            <label htmlFor={`${id}-base_url`} className={label}>
              Base URL{" "}
              <span className="font-normal text-zinc-400">
                {kind?.baseUrlRequired ? "(required)" : "(optional with a default or a pool)"}
              </span>
            </label>
            <input
              id={`${id}-base_url`}
              type="url"
              autoComplete="off"
              placeholder="https://api.acme.example"
              {...aria("base_url")}
              {...register("base_url")}
              className={`${input} font-mono`}
            />
            {fieldError("base_url")}
          </div>
          {(["timeout_ms", "job_timeout_ms"] as const).map((field) => (
            <div key={field}>
              <label htmlFor={`${id}-${field}`} className={label}>
                {field === "timeout_ms" ? "Call timeout" : "Job timeout"}{" "}
                <span className="font-normal text-zinc-400">(ms, optional)</span>
              </label>
              <input
                id={`${id}-${field}`}
                inputMode="numeric"
                autoComplete="off"
                placeholder={field === "timeout_ms" ? "60000" : "900000"}
                {...aria(field)}
                {...register(field)}
                className={`${input} tabular-nums`}
              />
              {fieldError(field)}
            </div>
          ))}
          <fieldset className="sm:col-span-2">
            <legend className={label}>How the key is given</legend>
            <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1 text-sm text-zinc-700">
              {editing && editing.credential === "secret set" ? (
                <label className="inline-flex items-center gap-2">
                  <input type="radio" value="keep" {...register("key")} /> Keep the stored key
                </label>
              ) : null}
              <label className="inline-flex items-center gap-2">
                <input type="radio" value="paste" {...register("key")} />{" "}
                {editing ? "Paste a new key" : "Paste the key"}
              </label>
              <label className="inline-flex items-center gap-2">
                <input type="radio" value="env" {...register("key")} /> An environment variable
              </label>
              <label className="inline-flex items-center gap-2">
                <input type="radio" value="none" {...register("key")} />{" "}
                {editing && editing.credential === "secret set" ? "No key (remove the pasted key)" : "No key"}
              </label>
            </div>
            {keyMode === "paste" ? (
              <div className="mt-2">
                <label htmlFor={`${id}-api_key`} className="sr-only">
                  API key
                </label>
                <input
                  id={`${id}-api_key`}
                  type="password"
                  autoComplete="new-password"
                  placeholder="sk-…"
                  {...aria("api_key", `${id}-api_key-hint`)}
                  {...register("api_key")}
                  className={`${input} font-mono`}
                />
                <p id={`${id}-api_key-hint`} className="mt-1 text-xs text-zinc-500">
                  Stored encrypted; never shown again.{" "}
                  {editing?.credential === "secret set" ? "It replaces the stored key." : null}
                </p>
                {fieldError("api_key")}
              </div>
            ) : null}
            {keyMode === "env" ? (
              <div className="mt-2">
                <label htmlFor={`${id}-key_env`} className="sr-only">
                  Environment variable
                </label>
                <input
                  id={`${id}-key_env`}
                  autoComplete="off"
                  placeholder="ACME_API_KEY"
                  {...aria("key_env")}
                  {...register("key_env")}
                  className={`${input} font-mono`}
                />
                <p className="mt-1 text-xs text-zinc-500">Read by each process that serves the provider.</p>
                {fieldError("key_env")}
              </div>
            ) : null}
            {fieldError("api_key") && keyMode !== "paste" ? fieldError("api_key") : null}
          </fieldset>
          <div className="sm:col-span-2">
            <label htmlFor={`${id}-extra`} className={label}>
              Other settings <span className="font-normal text-zinc-400">(JSON object, optional)</span>
            </label>
            <textarea
              id={`${id}-extra`}
              rows={3}
              spellCheck={false}
              placeholder={kind?.fields.length ? `{ ${kind.fields.map((f) => `"${f}": …`).join(", ")} }` : "{}"}
              {...aria("extra", `${id}-extra-hint`)}
              {...register("extra")}
              className={`${input} font-mono`}
            />
            <p id={`${id}-extra-hint`} className="mt-1 text-xs text-zinc-500">
              {kind?.fields.length
                ? `This kind also takes: ${kind.fields.join(", ")} (see docs/providers.md).`
                : "This kind takes no other settings."}
            </p>
            {fieldError("extra")}
          </div>
          {errors.root?.server ? (
            <p role="alert" className="text-sm text-red-700 sm:col-span-2">
              {errors.root.server.message}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-2 sm:col-span-2">
            <button type="submit" disabled={formState.isSubmitting} className={primary}>
              {editing ? "Save changes" : "Add provider"}
            </button>
            {editing ? (
              <button type="button" className={secondary} onClick={cancelEdit}>
                Cancel
              </button>
            ) : null}
          </div>
        </form>
        {saved ? (
          <div data-testid="provider-saved" className="mt-4">
            <p role="status" className="text-sm text-zinc-700">
              {saved.message}
            </p>
            {saved.check !== "pending" ? <CheckResult check={saved.check} testId="provider-saved-check" /> : null}
          </div>
        ) : null}
      </section>
    </div>
  );
}
