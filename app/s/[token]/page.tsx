// A shared run (lib/core/shares/share-links.ts): public, no sign-in, no studio chrome. The model's name,
// the prompt and settings when the sharer chose to show them, and the outputs with players (a 3D
// model in an interactive viewer) and downloads; nothing else of the workspace. Any link that
// does not work (revoked, expired, unknown, forged) is the same plain 404 (not-found.tsx beside
// this page).
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ApiError } from "@/lib/primitives/errors";
import { readSharedRun, type SharedOutput, type SharedRun } from "@/lib/core/shares/share-links";
import { getRuntime } from "@/lib/boot/runtime";
import { ModelViewer3D } from "@/components/model-viewer-3d";
import { threeDFacts } from "@/components/output-labels";

export const dynamic = "force-dynamic";

// One read (and one counted open) per request, shared by the metadata and the page.
const sharedRun = cache(async (token: string): Promise<SharedRun | null> => {
  const { store, services } = await getRuntime();
  try {
    return await readSharedRun({ db: store.db, services }, { token });
  } catch (err) {
    if (err instanceof ApiError && err.code === "resource_not_found") return null;
    throw err;
  }
});

// The token is the permission: keep it out of search engines and out of Referer headers.
const PRIVATE = { robots: { index: false, follow: false }, referrer: "no-referrer" } as const satisfies Metadata;

export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const run = await sharedRun((await params).token);
  return { ...PRIVATE, title: run ? `${run.model_name} · Shared from Atelier` : "Not found · Atelier" };
}

const KIND: Record<string, string> = { image: "Image", video: "Video", audio: "Sound", "3d": "3D model" };

function Download({ output, index }: { output: SharedOutput; index: number }) {
  return (
    <a
      href={output.download_url}
      download
      data-testid="shared-download"
      className="inline-flex items-center gap-1.5 rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-700 shadow-xs hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
    >
      <svg aria-hidden viewBox="0 0 20 20" fill="currentColor" className="size-4">
        <path d="M10.75 2.75a.75.75 0 0 0-1.5 0v8.69L6.78 8.97a.75.75 0 1 0-1.06 1.06l3.75 3.75a.75.75 0 0 0 1.06 0l3.75-3.75a.75.75 0 1 0-1.06-1.06l-2.47 2.47V2.75Z" />
        <path d="M3.5 12.75a.75.75 0 0 0-1.5 0v2.5A2.75 2.75 0 0 0 4.75 18h10.5A2.75 2.75 0 0 0 18 15.25v-2.5a.75.75 0 0 0-1.5 0v2.5c0 .69-.56 1.25-1.25 1.25H4.75c-.69 0-1.25-.56-1.25-1.25v-2.5Z" />
      </svg>
      {output.type === "3d" ? "Download .glb" : "Download"}
      <span className="sr-only">
        {" "}
        {(KIND[output.type] ?? "output").toLowerCase()} {index + 1}
      </span>
    </a>
  );
}

function Output({ output, index, count }: { output: SharedOutput; index: number; count: number }) {
  const label = `${KIND[output.type] ?? "Output"}${count > 1 ? ` ${index + 1}` : ""}`;
  const facts = [
    output.width && output.height ? `${output.width}×${output.height}` : null,
    output.duration ? `${output.duration} s` : null,
    ...(output.type === "3d" ? threeDFacts(output) : []),
  ].filter(Boolean);
  return (
    <figure
      data-testid="shared-output"
      data-type={output.type}
      className="overflow-hidden rounded-lg border border-zinc-200 bg-white"
    >
      {output.type === "image" ? (
        <a
          href={output.url}
          target="_blank"
          rel="noopener noreferrer"
          className="block bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
          title="Open full size"
        >
          <img
            src={output.url}
            alt={label}
            width={output.width}
            height={output.height}
            data-testid="shared-image"
            className="mx-auto h-auto max-h-[75vh] w-auto max-w-full object-contain"
          />
        </a>
      ) : output.type === "video" ? (
        <video
          controls
          playsInline
          preload="metadata"
          poster={output.poster?.url}
          src={output.url}
          width={output.width}
          height={output.height}
          aria-label={label}
          data-testid="shared-video"
          className="mx-auto block h-auto max-h-[75vh] w-full bg-ink"
        />
      ) : output.type === "audio" ? (
        <div className="px-4 pt-5 pb-2">
          <audio
            controls
            preload="metadata"
            src={output.url}
            aria-label={label}
            data-testid="shared-audio"
            className="w-full"
          />
        </div>
      ) : output.type === "3d" ? (
        <div className="p-3 pb-1">
          <ModelViewer3D src={output.url} poster={output.poster?.url} alt={label} />
        </div>
      ) : null}
      <figcaption className="flex flex-wrap items-center justify-between gap-2 border-t border-zinc-100 px-4 py-2.5">
        <span className="text-sm text-zinc-600">
          <span className="font-medium text-zinc-900">{label}</span>
          {facts.length ? <span className="ml-2 tabular-nums">{facts.join(" · ")}</span> : null}
        </span>
        <Download output={output} index={index} />
      </figcaption>
    </figure>
  );
}

export default async function SharedRunPage({ params }: { params: Promise<{ token: string }> }) {
  const run = await sharedRun((await params).token);
  if (!run) notFound();
  const images = run.outputs.filter((o) => o.type === "image").length;
  const made = run.completed_at
    ? new Date(run.completed_at).toLocaleDateString("en", {
        year: "numeric",
        month: "long",
        day: "numeric",
        timeZone: "UTC",
      })
    : null;
  return (
    <div className="flex min-h-screen flex-col bg-zinc-50">
      <header className="border-b border-zinc-200 bg-white">
        <div className="mx-auto flex max-w-4xl items-center justify-between px-4 py-3 sm:px-6">
          <span className="text-lg font-semibold tracking-tight text-zinc-900">
            Atelier<span className="text-indigo-600">.</span>
          </span>
          <span className="text-xs font-medium text-zinc-500">Shared run</span>
        </div>
      </header>
      <main className="mx-auto w-full max-w-4xl flex-1 px-4 py-8 sm:px-6 sm:py-10">
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900 sm:text-3xl" data-testid="shared-model">
          {run.model_name}
        </h1>
        <p className="mt-1 text-sm text-zinc-500">
          <span className="font-mono text-xs">{run.model}</span>
          {made ? <> · made {made}</> : null}
        </p>

        {run.prompt ? (
          <section
            aria-label="Prompt"
            data-testid="shared-prompt"
            className="mt-6 rounded-lg border border-zinc-200 bg-white px-5 py-4"
          >
            <h2 className="text-xs font-medium tracking-wide text-zinc-500 uppercase">{run.prompt.title}</h2>
            <p className="mt-1.5 text-base leading-relaxed whitespace-pre-wrap text-zinc-900">{run.prompt.value}</p>
            {run.details?.length ? (
              <SettingsList
                details={run.details}
                className="mt-4 border-t border-zinc-100 pt-3 sm:grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)]"
              />
            ) : null}
          </section>
        ) : run.details?.length ? (
          <section
            aria-label="Settings"
            data-testid="shared-prompt"
            className="mt-6 rounded-lg border border-zinc-200 bg-white px-5 py-4"
          >
            <SettingsList details={run.details} />
          </section>
        ) : null}

        {run.outputs_purged_at ? (
          <p
            data-testid="shared-outputs-purged"
            className="mt-6 rounded-lg border border-zinc-200 bg-white px-5 py-4 text-sm text-zinc-600"
          >
            The outputs of this run are no longer kept: they were deleted on{" "}
            {new Date(run.outputs_purged_at).toLocaleDateString("en", {
              year: "numeric",
              month: "long",
              day: "numeric",
              timeZone: "UTC",
            })}{" "}
            under this Atelier&rsquo;s output retention.
          </p>
        ) : null}
        <section aria-label="Outputs" className={`mt-6 grid gap-6 ${images > 1 ? "sm:grid-cols-2" : ""}`}>
          {run.outputs.map((o, i) => (
            <Output key={i} output={o} index={i} count={run.outputs.length} />
          ))}
        </section>
      </main>
      <footer className="mx-auto w-full max-w-4xl px-4 pb-8 text-xs text-zinc-400 sm:px-6">Made with Atelier.</footer>
    </div>
  );
}

/** The run's settings a sharer chose to show, as label: value. */
function SettingsList({
  details,
  className = "",
}: {
  details: ReadonlyArray<{ name: string; title: string; value: string }>;
  className?: string;
}) {
  return (
    <dl className={`grid grid-cols-[auto_minmax(0,1fr)] gap-x-6 gap-y-1 text-sm ${className}`}>
      {details.map((d) => (
        <div key={d.name} className="contents">
          <dt className="text-zinc-500">{d.title}</dt>
          <dd className="break-words text-zinc-800">{d.value}</dd>
        </div>
      ))}
    </dl>
  );
}
