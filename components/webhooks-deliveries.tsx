"use client";
// Deliveries of events (status, every attempt with its HTTP status, latency and time, the next
// attempt) with "Resend"; and the recent events of the workspace, each with its deliveries.
import Link from "next/link";
import { useState } from "react";
import { useRouter } from "next/navigation";
import type { Delivery } from "@/lib/core/webhooks/webhook-deliveries";
import { resendEventAction } from "@/app/_studio/actions/webhooks";
import { card, DeliveryStatusPill, HttpStatus, secondary, When } from "./webhooks-ui";

/** What the pages hand over about an event: no payload, just what is shown. */
export interface EventSummary {
  id: string;
  type: string;
  timestamp: string;
  runId: string | null;
  model: string | null;
  deliveries: Delivery[];
}

const TYPE_DOTS: Record<string, string> = {
  "generation.succeeded": "bg-emerald-500",
  "generation.failed": "bg-red-500",
  "generation.canceled": "bg-zinc-400",
};

export function EventType({ type }: { type: string }) {
  return (
    <span
      className="inline-flex items-center gap-1.5 font-mono text-xs font-medium text-zinc-800"
      data-testid="event-type"
    >
      <span aria-hidden className={`h-2 w-2 rounded-full ${TYPE_DOTS[type] ?? "bg-zinc-400"}`} />
      {type}
    </span>
  );
}

/** Sends an event again, to one endpoint (webhookId) or to every destination it has now. */
export function ResendButton({
  eventId,
  webhookId,
  label,
  target,
}: {
  eventId: string;
  webhookId: string | null;
  label: string;
  target: string;
}) {
  const router = useRouter();
  const [state, setState] = useState<{ busy: boolean; note: string | null; error: boolean }>({
    busy: false,
    note: null,
    error: false,
  });
  async function resend() {
    setState({ busy: true, note: null, error: false });
    const result = await resendEventAction(eventId, webhookId);
    if (!result.ok) {
      setState({ busy: false, note: result.message, error: true });
      return;
    }
    const n = result.value.count;
    setState({
      busy: false,
      note: n === 0 ? "No destination to send to." : n === 1 ? "Sent again." : `Sent again to ${n} destinations.`,
      error: false,
    });
    router.refresh();
  }
  return (
    <span className="inline-flex items-center gap-2">
      <span role="status" aria-live="polite" className={`text-xs ${state.error ? "text-red-700" : "text-zinc-500"}`}>
        {state.note}
      </span>
      <button
        type="button"
        onClick={() => void resend()}
        disabled={state.busy}
        aria-label={`${label} ${target}`}
        className={`${secondary} px-2 py-1 text-xs`}
      >
        {state.busy ? "Sending…" : label}
      </button>
    </span>
  );
}

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) {
    return <p className="mt-1.5 text-xs text-zinc-500">No attempt yet.</p>;
  }
  return (
    <ol aria-label="Attempts" className="mt-2 space-y-1.5">
      {delivery.attempts.map((a) => (
        <li
          key={a.attempt}
          data-testid="attempt"
          className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-600"
        >
          <span className="font-medium text-zinc-700">Attempt {a.attempt}</span>
          <HttpStatus status={a.response_status} />
          <span className="tabular-nums">{a.latency_ms} ms</span>
          <When iso={a.at} className="text-zinc-500" />
          {a.error ? <span className="text-red-700">{a.error}</span> : null}
          {a.response_body ? (
            <details className="basis-full">
              <summary className="cursor-pointer text-zinc-500 hover:text-zinc-700 focus-visible:outline-2 focus-visible:outline-indigo-500">
                Response body
              </summary>
              <pre className="mt-1 max-h-40 overflow-auto rounded-md bg-zinc-50 p-2 font-mono text-[11px] leading-4 whitespace-pre-wrap text-zinc-700">
                {a.response_body}
              </pre>
            </details>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/**
 * Deliveries, newest first. `showUrl` names the destination (an event's list); each delivery to an
 * endpoint that still exists (`liveEndpoints`) gets a "Resend" to that endpoint.
 */
export function DeliveryList({
  deliveries,
  showUrl,
  liveEndpoints,
  empty,
}: {
  deliveries: Delivery[];
  showUrl: boolean;
  liveEndpoints: readonly string[];
  empty: string;
}) {
  if (deliveries.length === 0) return <p className="py-3 text-sm text-zinc-500">{empty}</p>;
  return (
    <ul className="divide-y divide-zinc-100">
      {deliveries.map((d) => (
        <li key={d.id} data-testid="delivery" data-status={d.status} className="py-3">
          <div className="flex flex-wrap items-center gap-2">
            <DeliveryStatusPill status={d.status} />
            {showUrl ? (
              <span className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-700" title={d.url}>
                {d.url}
              </span>
            ) : (
              <span className="min-w-0 flex-1 font-mono text-xs text-zinc-500">{d.event_id}</span>
            )}
            {d.webhook_id === null ? <span className="text-xs text-zinc-500">the run&apos;s own webhook</span> : null}
            {d.webhook_id !== null && !liveEndpoints.includes(d.webhook_id) ? (
              <span className="text-xs text-zinc-500">endpoint deleted</span>
            ) : null}
            {d.webhook_id !== null && liveEndpoints.includes(d.webhook_id) ? (
              <ResendButton
                eventId={d.event_id}
                webhookId={d.webhook_id}
                label="Resend"
                target={`${d.event_id} to ${d.url}`}
              />
            ) : null}
          </div>
          <Attempts delivery={d} />
          {d.next_attempt_at ? (
            <p className="mt-1.5 text-xs text-zinc-500">
              Next attempt <When iso={d.next_attempt_at} />
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** The workspace's recent events, each with where it went. */
export function WebhookEvents({
  events,
  retentionDays,
  liveEndpoints,
}: {
  events: EventSummary[];
  retentionDays: number;
  liveEndpoints: readonly string[];
}) {
  if (events.length === 0) {
    return (
      <p className={`${card} border-dashed border-zinc-300 p-8 text-center text-sm text-zinc-500`}>
        No events yet. Every run that ends (succeeded, failed or canceled) writes one and sends it to your endpoints.
        Events are kept {retentionDays} days.
      </p>
    );
  }
  return (
    <ul className="space-y-3" aria-label="Recent events">
      {groupUndelivered(events).map((item) =>
        Array.isArray(item) ? (
          <UndeliveredGroup key={item[0]!.id} events={item} />
        ) : (
          <EventCard key={item.id} e={item} liveEndpoints={liveEndpoints} />
        ),
      )}
    </ul>
  );
}

/**
 * Events in order, with each run of two or more consecutive events that went nowhere (no endpoint
 * took them and their runs named no webhook) as one group: twenty cards saying "No destination"
 * become one line with a count per type, the events behind a disclosure.
 */
function groupUndelivered(events: EventSummary[]): (EventSummary | EventSummary[])[] {
  const out: (EventSummary | EventSummary[])[] = [];
  let group: EventSummary[] = [];
  const flush = () => {
    if (group.length === 1) out.push(group[0]!);
    else if (group.length > 1) out.push(group);
    group = [];
  };
  for (const e of events) {
    if (e.deliveries.length > 0) {
      flush();
      out.push(e);
      continue;
    }
    group.push(e);
  }
  flush();
  return out;
}

function UndeliveredGroup({ events }: { events: EventSummary[] }) {
  const newest = events[0]!;
  const oldest = events[events.length - 1]!;
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  const types = [...counts].sort((a, b) => b[1] - a[1]);
  return (
    <li data-testid="event-group" data-count={events.length} className={`${card} px-4 py-3 sm:px-5`}>
      <details className="group">
        <summary className="flex cursor-pointer list-none flex-wrap items-center gap-x-3 gap-y-1 focus-visible:outline-2 focus-visible:outline-indigo-500 [&::-webkit-details-marker]:hidden">
          <span className="text-sm font-medium text-zinc-800" data-testid="event-group-count">
            {events.length} events
          </span>
          {types.map(([type, n]) => (
            <span key={type} className="inline-flex items-center gap-1">
              <EventType type={type} />
              <span className="text-xs text-zinc-500 tabular-nums">× {n}</span>
            </span>
          ))}
          <span className="basis-full text-xs text-zinc-500 sm:basis-auto">
            No destination: no enabled endpoint took them and their runs named no webhook.
          </span>
          <span className="ml-auto text-xs text-zinc-500">
            {Date.parse(newest.timestamp) - Date.parse(oldest.timestamp) >= 60_000 ? (
              <>
                <When iso={oldest.timestamp} /> – <When iso={newest.timestamp} />
              </>
            ) : (
              <When iso={newest.timestamp} />
            )}
          </span>
          <span aria-hidden className="text-xs text-zinc-400 group-open:rotate-90">
            ▸
          </span>
        </summary>
        <ul
          className="mt-2 divide-y divide-zinc-100 border-t border-zinc-100"
          aria-label={`${events.length} events without a destination`}
        >
          {events.map((e) => (
            <li key={e.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-1.5 text-xs">
              <span className="font-mono text-zinc-500">{e.id}</span>
              {e.runId ? (
                <Link
                  href={`/runs/${e.runId}`}
                  className="text-zinc-700 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500"
                >
                  {e.model ? <span className="font-medium">{e.model}</span> : null}{" "}
                  <span className="font-mono text-zinc-500">{e.runId}</span>
                </Link>
              ) : null}
              <When iso={e.timestamp} className="text-zinc-500" />
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}

function EventCard({ e, liveEndpoints }: { e: EventSummary; liveEndpoints: readonly string[] }) {
  return (
    <li data-testid="event" className={`${card} px-4 pt-3 pb-1 sm:px-5`}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <EventType type={e.type} />
        {e.runId ? (
          <Link
            href={`/runs/${e.runId}`}
            className="text-sm text-zinc-700 hover:text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            {e.model ? <span className="font-medium">{e.model}</span> : null}{" "}
            <span className="font-mono text-xs text-zinc-500">{e.runId}</span>
          </Link>
        ) : null}
        <When iso={e.timestamp} className="text-xs text-zinc-500" />
        <span className="ml-auto">
          <ResendButton eventId={e.id} webhookId={null} label="Resend all" target={`${e.id} to every destination`} />
        </span>
      </div>
      <div className="mt-1 border-t border-zinc-100">
        <DeliveryList
          deliveries={e.deliveries}
          showUrl
          liveEndpoints={liveEndpoints}
          empty="No destination: no enabled endpoint took this event and the run named no webhook."
        />
      </div>
    </li>
  );
}
