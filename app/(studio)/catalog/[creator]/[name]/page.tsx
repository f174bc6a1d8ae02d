import Link from "next/link";
import { notFound } from "next/navigation";
import type { RJSFSchema } from "@rjsf/utils";
import { findCatalogEntry, getPublicModel, splitModelId, type ModelWithSchema } from "@/lib/core/catalog/catalog";
import { ApiError } from "@/lib/primitives/errors";
import { listFiles } from "@/lib/core/files/files";
import { getGeneration, listGenerations } from "@/lib/core/runs/generations";
import { decodeInputParam } from "@/lib/core/runs/run-input";
import { typicalRunSeconds } from "@/lib/core/runs/run-timings";
import { ModelPlayground } from "@/components/model-playground";
import { QueryProvider } from "@/components/query-provider";
import { formatDate, modelHref, priceLabel } from "@/components/catalog-price";
import { modalityLabel } from "@/components/output-labels";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import { modelIdOf } from "./model-id";
import { Breadcrumb } from "@/components/breadcrumb";

export const dynamic = "force-dynamic";

type Params = Promise<{ creator: string; name: string }>;
type Search = Promise<Record<string, string | string[] | undefined>>;

/** How many of your recent runs of the model the page shows. */
const RECENT_RUNS = 12;

/**
 * `?from=gen_…` ("Edit and run" on a run page): that run's input, when it is a run of this model
 * in the workspace; else null and the page opens as usual.
 */
async function inputOfRun(
  ctx: Awaited<ReturnType<typeof requireStudioCtx>>,
  id: string | undefined,
  modelId: string,
): Promise<Record<string, unknown> | null> {
  if (!id || !/^gen_[0-9A-Za-z]{1,60}$/.test(id)) return null;
  try {
    const { generation } = await getGeneration(ctx, { id });
    return splitModelId(generation.model).base === splitModelId(modelId).base ? generation.input : null;
  } catch (err) {
    if (err instanceof ApiError) return null;
    throw err;
  }
}

export async function generateMetadata({ params }: { params: Params }) {
  const { creator, name } = await params;
  return { title: `${modelIdOf(creator, name)} · Atelier` };
}

export default async function ModelPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const { creator, name } = await params;
  const sp = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ctx = await requireStudioCtx();
  let model: ModelWithSchema;
  try {
    model = await getPublicModel(ctx.db, { id: modelIdOf(creator, name) });
  } catch (err) {
    if (err instanceof ApiError && err.code === "gone") {
      return (
        <div className="mx-auto max-w-xl rounded-lg border border-amber-200 bg-amber-50 p-6 text-sm text-amber-900">
          <h1 className="mb-1 text-base font-semibold">This model was retired</h1>
          <p>{err.message}</p>
          <Link href="/catalog" className="mt-3 inline-block font-medium underline">
            Back to the catalog
          </Link>
        </div>
      );
    }
    if (err instanceof ApiError) notFound();
    throw err;
  }
  const { definition } = findCatalogEntry(model.id);
  const [files, runs, typicalSeconds, startInput] = await Promise.all([
    listFiles(ctx, { limit: "50" }),
    // The result area shows this user's newest run of this model, not a colleague's; the gallery the rest.
    listGenerations(ctx, { model: model.id, limit: String(RECENT_RUNS) }, { createdBy: ctx.user.id }),
    // For the progress estimate of a run whose model reports no progress of its own.
    typicalRunSeconds(ctx.services.historyReads ?? ctx.db, model.id),
    inputOfRun(ctx, one(sp.from), model.id),
  ]);
  // "Edit and run" on a run page opens ?input=<base64url JSON> (lib/core/runs/run-input.ts); ?from= as well.
  const openWith = startInput ?? decodeInputParam(one(sp.input));
  const out = model.availability.status !== "available";
  // Something this server lacks is a fact to fix, not a pause to wait out: say what and how.
  const notInstalled = model.availability.status === "not_installed";
  return (
    <div className="mx-auto max-w-7xl">
      <Breadcrumb parent={{ href: "/catalog", label: "Catalog" }}>
        <span>{model.creator}</span>
      </Breadcrumb>
      <header className="mb-6">
        <div className="flex flex-wrap items-center gap-2">
          <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{model.name}</h1>
          {model.type === "preset" ? (
            <span className="rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium text-indigo-700 ring-1 ring-indigo-200 ring-inset">
              Preset v{model.version}
            </span>
          ) : null}
          {model.status === "beta" ? (
            <span className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs font-medium text-zinc-600 ring-1 ring-zinc-200 ring-inset">
              Beta
            </span>
          ) : null}
        </div>
        <p className="mt-1 text-sm text-zinc-500">
          <code className="font-mono text-xs">{model.id}</code> · by {model.creator} ·{" "}
          <span>{modalityLabel(model.modality)}</span> · revision {model.revision} ·{" "}
          <span className="font-medium text-zinc-800">{priceLabel(model.pricing)}</span>
        </p>
        <p className="mt-3 max-w-3xl text-[15px] leading-6 text-zinc-700">{model.description}</p>
        {model.deprecation ? (
          <div
            role="note"
            data-testid="deprecated-banner"
            className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
          >
            <strong className="font-semibold">Deprecated</strong> — runs stop on{" "}
            {formatDate(model.deprecation.sunset_at)}.
            {model.deprecation.replaced_by ? (
              <>
                {" "}
                Use{" "}
                <Link href={modelHref(model.deprecation.replaced_by)} className="font-medium underline">
                  {model.deprecation.replaced_by}
                </Link>
                .
              </>
            ) : null}
          </div>
        ) : null}
        {notInstalled ? (
          <div
            role="note"
            data-testid="not-installed-banner"
            className="mt-4 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
          >
            <strong className="font-semibold">Not installed on this server</strong> — {model.availability.message}
          </div>
        ) : out ? (
          <div
            role="note"
            className="mt-4 rounded-lg border border-zinc-200 bg-zinc-100 px-4 py-3 text-sm text-zinc-700"
          >
            <strong className="font-semibold">Out of service</strong> —{" "}
            {model.availability.message ?? "runs are paused for now."}
          </div>
        ) : null}
      </header>
      <QueryProvider>
        <ModelPlayground
          modelId={model.id}
          modelName={model.name}
          schema={model.input_schema as RJSFSchema}
          examples={(definition.examples ?? []).map((e) => ({ title: e.title, input: { ...e.input } }))}
          enumLabels={definition.enumLabels ?? {}}
          files={files.data}
          recent={runs.data}
          storageKey={`atelier:last-input:${ctx.user.id}:${model.id}`}
          startInput={openWith}
          present={one(sp.present) === "1"}
          typicalSeconds={typicalSeconds}
          disabledReason={
            ctx.user.role === "viewer"
              ? "You are a viewer in this workspace: you see its runs and outputs, and cannot start runs."
              : notInstalled
                ? "Not installed on this server: see the note above for what is missing."
                : out
                  ? "Out of service: runs are paused."
                  : null
          }
        />
      </QueryProvider>
    </div>
  );
}
