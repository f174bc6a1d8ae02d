"use client";
// The workspace's webhook endpoints: add and edit (react-hook-form; the rules are lib/core's, whose
// errors land under the field they name), enable/disable, delete, and each one's recent deliveries.
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import type { Delivery } from "@/lib/core/webhooks/webhook-deliveries";
import type { WebhookEndpoint } from "@/lib/core/webhooks/webhook-endpoints";
import {
  createEndpointAction,
  deleteEndpointAction,
  setEndpointEnabledAction,
  updateEndpointAction,
} from "@/app/_studio/actions/webhooks";
import { DeliveryList } from "./webhooks-deliveries";
import { card, ConfirmDialog, danger, primary, quiet, secondary } from "./webhooks-ui";

const TYPE_HINTS: Record<string, string> = {
  "generation.succeeded": "a run finished with its outputs",
  "generation.failed": "a run failed, with the error",
  "generation.canceled": "a run was canceled",
  "budget.threshold_reached": "a budget reached 50, 80 or 100 % of its cap",
  "credits.low": "the available balance dropped under the low-balance alert",
};

interface FormValues {
  url: string;
  description: string;
  event_types: string[];
}
const FIELDS = ["url", "description", "event_types"] as const;
type Field = (typeof FIELDS)[number];

const date = (iso: string) =>
  new Date(iso).toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric" });
const input =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 focus:outline-2 focus:outline-indigo-500/40 aria-[invalid=true]:border-red-400";

function EndpointForm({
  endpoint,
  eventTypes,
  onDone,
}: {
  endpoint: WebhookEndpoint | null;
  eventTypes: readonly string[];
  onDone: () => void;
}) {
  const id = useId();
  const { register, handleSubmit, formState, setError } = useForm<FormValues>({
    defaultValues: endpoint
      ? { url: endpoint.url, description: endpoint.description, event_types: endpoint.event_types }
      : { url: "", description: "", event_types: [] },
  });
  const errors = formState.errors;

  async function onSubmit(values: FormValues) {
    const body = { ...values, event_types: Array.isArray(values.event_types) ? values.event_types : [] };
    const result = endpoint ? await updateEndpointAction(endpoint.id, body) : await createEndpointAction(body);
    if (!result.ok) {
      const field = (FIELDS as readonly string[]).includes(result.param ?? "") ? (result.param as Field) : null;
      if (field) setError(field, { message: result.message }, { shouldFocus: true });
      else setError("root.server", { message: result.message });
      return;
    }
    onDone();
  }

  const describedBy = (field: Field, hint?: string) =>
    [hint, errors[field] ? `${id}-${field}-error` : null].filter(Boolean).join(" ") || undefined;

  return (
    <form
      onSubmit={(e) => void handleSubmit(onSubmit)(e)}
      aria-label={endpoint ? `Edit endpoint ${endpoint.url}` : "Add endpoint"}
      className="space-y-4"
      noValidate
    >
      <div>
        <label htmlFor={`${id}-url`} className="block text-sm font-medium text-zinc-700">
          URL
        </label>
        <input
          id={`${id}-url`}
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://example.com/atelier-hook"
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={describedBy("url", `${id}-url-hint`)}
          {...register("url")}
          className={`${input} font-mono text-sm`}
        />
        <p id={`${id}-url-hint`} className="mt-1 text-xs text-zinc-500">
          Atelier POSTs each event here as JSON. Answer with any 2xx within 15 s; anything else is retried.
        </p>
        {errors.url ? (
          <p id={`${id}-url-error`} className="mt-1 text-sm text-red-700">
            {errors.url.message}
          </p>
        ) : null}
      </div>
      <div>
        <label htmlFor={`${id}-description`} className="block text-sm font-medium text-zinc-700">
          Description <span className="font-normal text-zinc-400">(optional)</span>
        </label>
        <input
          id={`${id}-description`}
          autoComplete="off"
          placeholder="What receives these, e.g. “production order service”"
          aria-invalid={errors.description ? true : undefined}
          aria-describedby={describedBy("description")}
          {...register("description")}
          className={input}
        />
        {errors.description ? (
          <p id={`${id}-description-error`} className="mt-1 text-sm text-red-700">
            {errors.description.message}
          </p>
        ) : null}
      </div>
      <fieldset aria-describedby={describedBy("event_types", `${id}-types-hint`)}>
        <legend className="text-sm font-medium text-zinc-700">Events</legend>
        <p id={`${id}-types-hint`} className="text-xs text-zinc-500">
          Tick none to receive every event.
        </p>
        <div className="mt-1 grid gap-1 sm:grid-cols-3">
          {eventTypes.map((type) => (
            <label
              key={type}
              className="flex items-start gap-2 rounded-md p-1.5 text-sm text-zinc-700 hover:bg-zinc-50"
            >
              <input
                type="checkbox"
                value={type}
                {...register("event_types")}
                className="mt-0.5 size-4 shrink-0 accent-indigo-600"
              />
              <span>
                <code className="text-xs text-zinc-900">{type}</code>
                <span className="block text-xs text-zinc-500">{TYPE_HINTS[type] ?? ""}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.event_types ? (
          <p id={`${id}-event_types-error`} className="mt-1 text-sm text-red-700">
            {errors.event_types.message}
          </p>
        ) : null}
      </fieldset>
      {errors.root?.server ? (
        <p role="alert" className="text-sm text-red-700">
          {errors.root.server.message}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" disabled={formState.isSubmitting} className={primary}>
          {formState.isSubmitting ? "Saving…" : endpoint ? "Save changes" : "Add endpoint"}
        </button>
        <button type="button" onClick={onDone} className={quiet}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function EnabledPill({ enabled }: { enabled: boolean }) {
  return (
    <span
      data-testid="endpoint-state"
      className={`inline-flex shrink-0 items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${
        enabled ? "bg-emerald-50 text-emerald-700 ring-emerald-200" : "bg-zinc-100 text-zinc-600 ring-zinc-300"
      }`}
    >
      <span aria-hidden className={`h-1.5 w-1.5 rounded-full ${enabled ? "bg-emerald-500" : "bg-zinc-400"}`} />
      {enabled ? "Enabled" : "Disabled"}
    </span>
  );
}

function EndpointRow({
  endpoint,
  deliveries,
  eventTypes,
}: {
  endpoint: WebhookEndpoint;
  deliveries: Delivery[];
  eventTypes: readonly string[];
}) {
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  async function toggle() {
    setBusy(true);
    setError(null);
    const result = await setEndpointEnabledAction(endpoint.id, !endpoint.enabled);
    setBusy(false);
    if (!result.ok) setError(result.message);
  }

  async function remove() {
    setBusy(true);
    setDeleteError(null);
    const result = await deleteEndpointAction(endpoint.id);
    setBusy(false);
    if (!result.ok) return setDeleteError(result.message);
    setDeleting(false);
  }

  if (editing) {
    return (
      <li className="p-4 sm:p-5" data-testid="endpoint" data-id={endpoint.id}>
        <EndpointForm endpoint={endpoint} eventTypes={eventTypes} onDone={() => setEditing(false)} />
      </li>
    );
  }
  return (
    <li className="p-4 sm:p-5" data-testid="endpoint" data-id={endpoint.id}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <span className="min-w-0 font-mono text-sm break-all text-zinc-900" data-testid="endpoint-url">
              {endpoint.url}
            </span>
            <EnabledPill enabled={endpoint.enabled} />
          </div>
          {endpoint.description ? <p className="mt-1 text-sm text-zinc-600">{endpoint.description}</p> : null}
          {!endpoint.enabled && endpoint.disabled_reason ? (
            <p className="mt-1 text-sm text-amber-800" data-testid="disabled-reason">
              Disabled by Atelier: {endpoint.disabled_reason}. Fix the receiver, then enable it again.
            </p>
          ) : null}
          <div className="mt-2 flex flex-wrap items-center gap-1.5 text-xs text-zinc-500">
            <span className="sr-only">Events:</span>
            {endpoint.event_types.length === 0 ? (
              <span className="rounded-full bg-zinc-100 px-2 py-0.5 text-zinc-700">All events</span>
            ) : (
              endpoint.event_types.map((t) => (
                <code key={t} className="rounded-full bg-zinc-100 px-2 py-0.5 text-zinc-700">
                  {t}
                </code>
              ))
            )}
            <span className="ml-1">Created {date(endpoint.created_at)}</span>
          </div>
        </div>
        <div className="flex shrink-0 flex-wrap gap-1">
          <button
            type="button"
            onClick={() => setEditing(true)}
            className={secondary}
            aria-label={`Edit ${endpoint.url}`}
          >
            Edit
          </button>
          <button
            type="button"
            onClick={() => void toggle()}
            disabled={busy}
            className={secondary}
            aria-label={`${endpoint.enabled ? "Disable" : "Enable"} ${endpoint.url}`}
          >
            {endpoint.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            onClick={() => setDeleting(true)}
            className={danger}
            aria-label={`Delete ${endpoint.url}`}
          >
            Delete
          </button>
        </div>
      </div>
      {error ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <details className="group mt-3 rounded-md border border-zinc-100 bg-zinc-50/60 px-3">
        <summary className="cursor-pointer py-2 text-sm font-medium text-zinc-700 focus-visible:outline-2 focus-visible:outline-indigo-500">
          Recent deliveries <span className="font-normal text-zinc-500">({deliveries.length})</span>
        </summary>
        <DeliveryList
          deliveries={deliveries}
          showUrl={false}
          liveEndpoints={[endpoint.id]}
          empty="Nothing sent to this endpoint yet: deliveries appear when a run ends."
        />
      </details>
      <ConfirmDialog
        open={deleting}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        tone="danger"
        busy={busy}
        error={deleteError}
        onConfirm={() => void remove()}
        onCancel={() => {
          setDeleting(false);
          setDeleteError(null);
        }}
      >
        <p className="font-mono text-xs break-all text-zinc-800">{endpoint.url}</p>
        <p>It stops receiving events at once, and deliveries still waiting to be sent to it are dropped.</p>
      </ConfirmDialog>
    </li>
  );
}

export function WebhookEndpoints({
  endpoints,
  deliveries,
  eventTypes,
}: {
  endpoints: WebhookEndpoint[];
  deliveries: Record<string, Delivery[]>;
  eventTypes: readonly string[];
}) {
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="endpoints-title" className="space-y-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id="endpoints-title" className="text-base font-semibold text-zinc-900">
            Endpoints
          </h2>
          <p className="text-sm text-zinc-500">URLs of yours that receive this workspace&apos;s events.</p>
        </div>
        {adding || endpoints.length === 0 ? null : (
          <button type="button" onClick={() => setAdding(true)} className={primary}>
            Add endpoint
          </button>
        )}
      </div>
      {adding ? (
        <div className={`${card} p-4 sm:p-5`}>
          <EndpointForm endpoint={null} eventTypes={eventTypes} onDone={() => setAdding(false)} />
        </div>
      ) : null}
      {endpoints.length === 0 ? (
        adding ? null : (
          <div className={`${card} border-dashed border-zinc-300 p-8 text-center`}>
            <p className="text-sm font-medium text-zinc-900">No endpoints yet</p>
            <p className="mx-auto mt-1 max-w-md text-sm text-zinc-500">
              A webhook tells your app when a run ends — succeeded, failed or canceled — so it never has to poll. Add
              the URL of a receiver and Atelier POSTs a signed JSON event to it, retrying until it answers.
            </p>
            <button type="button" onClick={() => setAdding(true)} className={`${primary} mt-4`}>
              Add your first endpoint
            </button>
          </div>
        )
      ) : (
        <ul className={`${card} divide-y divide-zinc-100`} aria-label="Webhook endpoints">
          {endpoints.map((e) => (
            <EndpointRow key={e.id} endpoint={e} deliveries={deliveries[e.id] ?? []} eventTypes={eventTypes} />
          ))}
        </ul>
      )}
    </section>
  );
}
