import Link from "next/link";
import { notFound } from "next/navigation";
import { ApiError } from "@/lib/primitives/errors";
import { EVENT_RETENTION_DAYS, findRunEvent } from "@/lib/core/webhooks/events";
import { getGeneration } from "@/lib/core/runs/generations";
import { runAttempts } from "@/lib/core/runs/run-attempts";
import { inputFieldHints } from "@/lib/core/catalog/catalog";
import { typicalRunSeconds } from "@/lib/core/runs/run-timings";
import { listEventDeliveries } from "@/lib/core/webhooks/webhook-deliveries";
import { listWebhookEndpoints } from "@/lib/core/webhooks/webhook-endpoints";
import { isFinal, type Generation } from "@/lib/core/runs/generation-view";
import { QueryProvider } from "@/components/query-provider";
import { RunDetails } from "@/components/run-details";
import { RunAttempts } from "@/components/run-attempts";
import { RunWebhookDeliveries } from "@/components/webhooks-run";
import { SharePanel } from "@/components/share-panel";
import { modelHref } from "@/components/catalog-price";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import { Breadcrumb } from "@/components/breadcrumb";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return { title: `${(await params).id} · Atelier` };
}

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const ctx = await requireStudioCtx();
  let run: Generation;
  try {
    run = (await getGeneration(ctx, { id })).generation;
  } catch (err) {
    if (err instanceof ApiError && err.code === "resource_not_found") notFound();
    throw err;
  }
  const [event, typicalSeconds, attempts] = await Promise.all([
    findRunEvent(ctx, run.id),
    isFinal(run.status) ? null : typicalRunSeconds(ctx.services.historyReads ?? ctx.db, run.model),
    runAttempts(ctx, { id: run.id }),
  ]);
  const [deliveries, endpoints] = event
    ? await Promise.all([
        listEventDeliveries(ctx, { id: event.id, query: { limit: "100" } }),
        listWebhookEndpoints(ctx, { limit: "100" }),
      ])
    : [null, null];
  return (
    <div className="mx-auto max-w-6xl">
      <Breadcrumb parent={{ href: "/runs", label: "Runs" }}>
        <span className="font-mono text-xs">{run.id}</span>
      </Breadcrumb>
      <h1 className="mb-6 text-2xl font-semibold tracking-tight text-zinc-900">
        Run of{" "}
        <Link href={modelHref(run.model)} className="hover:text-indigo-600">
          {run.model}
        </Link>
      </h1>
      <QueryProvider>
        <RunDetails initial={run} typicalSeconds={typicalSeconds} schema={inputFieldHints(run.model)} />
        {attempts ? <RunAttempts attempts={attempts} /> : null}
        <SharePanel run={run} />
        <RunWebhookDeliveries
          initial={run}
          event={event ? { id: event.id, type: event.type, timestamp: event.timestamp } : null}
          deliveries={deliveries?.data ?? []}
          liveEndpoints={endpoints?.data.map((e) => e.id) ?? []}
          retentionDays={EVENT_RETENTION_DAYS}
        />
      </QueryProvider>
    </div>
  );
}
