"use client";
// The run page's "Webhook deliveries": the event the run produced when it ended and where it went
// (each destination, status, attempts). While the run is unfinished it waits for the ending (the
// run's own live query says when), then reloads the server part once to show the event.
import Link from "next/link";
import { useEffect, useRef } from "react";
import { useRouter } from "next/navigation";
import type { Generation } from "@/lib/core/runs/generation-view";
import type { Delivery } from "@/lib/core/webhooks/webhook-deliveries";
import { useLiveRun } from "./use-live-runs";
import { DeliveryList, EventType, ResendButton } from "./webhooks-deliveries";
import { AutoRefresh, card, When } from "./webhooks-ui";

const ENDED = ["succeeded", "failed", "canceled"];

export function RunWebhookDeliveries({
  initial,
  event,
  deliveries,
  liveEndpoints,
  retentionDays,
}: {
  initial: Generation;
  event: { id: string; type: string; timestamp: string } | null;
  deliveries: Delivery[];
  /** The workspace's endpoints now: a delivery to one of them can be sent again. */
  liveEndpoints: readonly string[];
  retentionDays: number;
}) {
  const router = useRouter();
  const ended = ENDED.includes(useLiveRun(initial).generation.status);
  const wasEnded = useRef(ENDED.includes(initial.status));
  useEffect(() => {
    if (ended && !wasEnded.current) router.refresh();
    wasEnded.current = ended;
  }, [ended, router]);
  const now = Date.now();
  const due = deliveries.some(
    (d) => d.status === "pending" && (d.next_attempt_at === null || Date.parse(d.next_attempt_at) - now < 30_000),
  );

  return (
    <section aria-labelledby="run-webhooks-title" className={`${card} mt-6 p-5`} data-testid="run-webhooks">
      <AutoRefresh active={due} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="run-webhooks-title" className="text-sm font-semibold text-zinc-900">
          Webhook deliveries
        </h2>
        <Link
          href="/webhooks"
          className="text-sm text-indigo-600 hover:text-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-500"
        >
          Manage webhooks
        </Link>
      </div>
      {!event ? (
        <p className="mt-2 text-sm text-zinc-500">
          {ended
            ? `No event for this run: events are kept ${retentionDays} days.`
            : "When the run ends, its event is sent to the workspace's endpoints and to the run's own webhook URL; the deliveries show here."}
        </p>
      ) : (
        <>
          <div className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-100 pb-3">
            <EventType type={event.type} />
            <span className="font-mono text-xs text-zinc-500" data-testid="run-event-id">
              {event.id}
            </span>
            <When iso={event.timestamp} className="text-xs text-zinc-500" />
            {deliveries.length > 0 ? (
              <span className="ml-auto">
                <ResendButton
                  eventId={event.id}
                  webhookId={null}
                  label="Resend all"
                  target={`${event.id} to every destination`}
                />
              </span>
            ) : null}
          </div>
          <DeliveryList
            deliveries={deliveries}
            showUrl
            liveEndpoints={liveEndpoints}
            empty="Sent nowhere: the run named no webhook and no enabled endpoint took this event."
          />
        </>
      )}
    </section>
  );
}
