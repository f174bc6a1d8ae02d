import { EVENT_RETENTION_DAYS, listEvents } from "@/lib/core/webhooks/events";
import { listEndpointDeliveries, listEventDeliveries, type Delivery } from "@/lib/core/webhooks/webhook-deliveries";
import { EVENT_TYPES, listWebhookEndpoints } from "@/lib/core/webhooks/webhook-endpoints";
import { getDefaultWebhookSecret, ROTATION_OVERLAP_MS } from "@/lib/core/webhooks/webhook-secrets";
import { WebhookEndpoints } from "@/components/webhooks-endpoints";
import { WebhookEvents, type EventSummary } from "@/components/webhooks-deliveries";
import { WebhookSecretCard } from "@/components/webhooks-secret";
import { AutoRefresh } from "@/components/webhooks-ui";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import { RoleNotice } from "@/components/role-notice";
import { roleAtLeast } from "@/lib/core/workspaces/roles";

export const dynamic = "force-dynamic";
export const metadata = { title: "Webhooks · Atelier" };

const RECENT_EVENTS = "20";
const RECENT_DELIVERIES = "10";
const BODY_PREVIEW = 2000;

/** What the browser gets of a delivery: response bodies cut short (they are up to 20 kB each). */
function trimmed(deliveries: Delivery[]): Delivery[] {
  return deliveries.map((d) => ({
    ...d,
    attempts: d.attempts.map((a) => ({
      ...a,
      response_body:
        a.response_body.length > BODY_PREVIEW ? `${a.response_body.slice(0, BODY_PREVIEW)}…` : a.response_body,
    })),
  }));
}

/** A delivery is about to be tried (or is being tried): worth refreshing the page for. */
function dueSoon(deliveries: Delivery[], now: number): boolean {
  return deliveries.some(
    (d) => d.status === "pending" && (d.next_attempt_at === null || Date.parse(d.next_attempt_at) - now < 30_000),
  );
}

function runOf(data: unknown): { id: string | null; model: string | null } {
  const run = (typeof data === "object" && data !== null ? data : {}) as { id?: unknown; model?: unknown };
  return { id: typeof run.id === "string" ? run.id : null, model: typeof run.model === "string" ? run.model : null };
}

export default async function WebhooksPage() {
  const ctx = await requireStudioCtx();
  if (!roleAtLeast(ctx.user.role, "admin"))
    return (
      <RoleNotice
        title="Webhooks"
        role={ctx.user.role}
        who="Admins and owners decide where this workspace's events go."
      />
    );
  const [secret, endpoints, events] = await Promise.all([
    getDefaultWebhookSecret(ctx),
    listWebhookEndpoints(ctx, { limit: "100" }),
    listEvents(ctx, { limit: RECENT_EVENTS }),
  ]);
  const [endpointDeliveries, eventDeliveries] = await Promise.all([
    Promise.all(
      endpoints.data.map(
        async (e) =>
          [
            e.id,
            trimmed((await listEndpointDeliveries(ctx, { id: e.id, query: { limit: RECENT_DELIVERIES } })).data),
          ] as const,
      ),
    ),
    Promise.all(
      events.data.map(async (e) =>
        trimmed((await listEventDeliveries(ctx, { id: e.id, query: { limit: "100" } })).data),
      ),
    ),
  ]);
  const summaries: EventSummary[] = events.data.map((e, i) => {
    const run = runOf(e.data);
    return {
      id: e.id,
      type: e.type,
      timestamp: e.timestamp,
      runId: run.id,
      model: run.model,
      deliveries: eventDeliveries[i] ?? [],
    };
  });
  const now = Date.now();
  const live = eventDeliveries.some((d) => dueSoon(d, now)) || endpointDeliveries.some(([, d]) => dueSoon(d, now));

  return (
    <div className="mx-auto max-w-5xl space-y-8">
      <AutoRefresh active={live} />
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Webhooks</h1>
        <p className="mt-1 text-sm text-zinc-500">
          When a run of this workspace ends, Atelier sends a signed event to your endpoints and to the run&apos;s own
          webhook URL, retrying with a growing delay until your receiver accepts it.
        </p>
      </div>
      <WebhookSecretCard
        previousExpiresAt={secret.previous_expires_at}
        overlapHours={ROTATION_OVERLAP_MS / 3_600_000}
      />
      <WebhookEndpoints
        endpoints={endpoints.data}
        deliveries={Object.fromEntries(endpointDeliveries)}
        eventTypes={EVENT_TYPES}
      />
      <section aria-labelledby="events-title" className="space-y-3">
        <div>
          <h2 id="events-title" className="text-base font-semibold text-zinc-900">
            Recent events
          </h2>
          <p className="text-sm text-zinc-500">
            The last {RECENT_EVENTS} events with every delivery and attempt. &ldquo;Resend&rdquo; sends an event again
            as a new delivery, with the same <code className="text-xs">webhook-id</code>.
          </p>
        </div>
        <WebhookEvents
          events={summaries}
          retentionDays={EVENT_RETENTION_DAYS}
          liveEndpoints={endpoints.data.map((e) => e.id)}
        />
      </section>
    </div>
  );
}
