"use client";
import { useEffect, useMemo, useRef, useState } from "react";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import type { Model } from "@/lib/core/catalog/catalog";
import { modelHref, priceLabel } from "./catalog-price";
import { modalityLabel } from "./output-labels";

const MODALITIES = [
  { value: "all", label: "All" },
  ...["image", "video", "audio", "3d"].map((value) => ({ value, label: modalityLabel(value) })),
];

function Badge({ tone, children }: { tone: "indigo" | "amber" | "zinc"; children: string }) {
  const tones = {
    indigo: "bg-indigo-50 text-indigo-700 ring-indigo-200",
    amber: "bg-amber-50 text-amber-800 ring-amber-200",
    zinc: "bg-zinc-100 text-zinc-600 ring-zinc-200",
  };
  return (
    <span className={`whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>
      {children}
    </span>
  );
}

const ICON_PATHS: Record<string, string> = {
  image: "M4 5h16v14H4zM4 15l4-4 4 4 3-3 5 5M15 9.5a1 1 0 1 0 0-.01",
  video: "M4 6h11v12H4zM15 10l5-3v10l-5-3",
  audio: "M9 18V6l10-2v12M9 18a2 2 0 1 1-4 0 2 2 0 0 1 4 0zM19 16a2 2 0 1 1-4 0 2 2 0 0 1 4 0z",
  // A cube seen from a corner.
  "3d": "M12 3l8 4.5v9L12 21l-8-4.5v-9zM4 7.5l8 4.5 8-4.5M12 12v9",
};

function ModalityIcon({ modality, className }: { modality: string; className: string }) {
  return (
    <svg
      aria-hidden
      viewBox="0 0 24 24"
      className={className}
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={ICON_PATHS[modality] ?? ICON_PATHS.image} />
    </svg>
  );
}

/** One card: a model, or every version of a preset (newest first in the picker's default). */
interface CardGroup {
  key: string;
  versions: Model[];
  /** The version shown until another is picked: the latest. */
  latest: Model;
}

function groupVersions(models: Model[]): CardGroup[] {
  const groups = new Map<string, Model[]>();
  for (const m of models) {
    const key = m.type === "preset" && m.version !== null ? m.id.slice(0, m.id.lastIndexOf("@")) : m.id;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups].map(([key, versions]) => {
    const sorted = [...versions].sort((a, b) => Number(a.version ?? 0) - Number(b.version ?? 0));
    return { key, versions: sorted, latest: sorted.find((v) => v.latest) ?? sorted[sorted.length - 1]! };
  });
}

interface Filters {
  modality: string;
  task: string;
  query: string;
}

function filtersFrom(params: { get(name: string): string | null }): Filters {
  const modality = params.get("modality") ?? "all";
  return {
    modality: MODALITIES.some((m) => m.value === modality) ? modality : "all",
    task: params.get("task") || "all",
    query: params.get("q") ?? "",
  };
}

/** Filters as a query string: only what differs from "everything", so a plain /catalog stays plain. */
function filtersUrl(filters: Filters): string {
  const params = new URLSearchParams(window.location.search);
  const set = (name: string, value: string, none: string) =>
    value === none ? params.delete(name) : params.set(name, value);
  set("modality", filters.modality, "all");
  set("task", filters.task, "all");
  set("q", filters.query, "");
  const query = params.toString();
  return `${window.location.pathname}${query ? `?${query}` : ""}${window.location.hash}`;
}

function matches(m: Model, filters: Filters): boolean {
  const text = filters.query.trim().toLowerCase();
  return (
    (filters.modality === "all" || m.modality === filters.modality) &&
    (filters.task === "all" || m.tasks.includes(filters.task)) &&
    `${m.name} ${m.id} ${m.description} ${m.creator}`.toLowerCase().includes(text)
  );
}

/**
 * Client-side and instant, as the catalog is small and public. The filters live in the
 * address (?modality=video&task=…&q=…): a link shares them, reload keeps them, Back restores the
 * ones before. Each card shows a real output of the entry (`images`, made in the background:
 * while `making`, the page looks again every few seconds); a preset's versions share one card.
 */
export function CatalogBrowser({
  models,
  images = {},
  making = false,
}: {
  models: Model[];
  images?: Record<string, string>;
  making?: boolean;
}) {
  const searchParams = useSearchParams();
  const router = useRouter();
  const [filters, setFilters] = useState<Filters>(() => filtersFrom(searchParams));
  const [picked, setPicked] = useState<Record<string, string>>({});
  // Typing in the search field edits one history entry; a chip or the task list starts a new one.
  const lastEdit = useRef<"search" | "filter" | null>(null);
  const groups = useMemo(() => groupVersions(models), [models]);
  const tasks = useMemo(() => [...new Set(models.flatMap((m) => m.tasks))].sort(), [models]);

  useEffect(() => {
    const restore = () => {
      lastEdit.current = null;
      setFilters(filtersFrom(new URLSearchParams(window.location.search)));
    };
    window.addEventListener("popstate", restore);
    return () => window.removeEventListener("popstate", restore);
  }, []);

  useEffect(() => {
    if (!making) return;
    const timer = setInterval(() => router.refresh(), 3000);
    return () => clearInterval(timer);
  }, [making, router]);

  const change = (next: Partial<Filters>, kind: "search" | "filter") => {
    const filters2 = { ...filters, ...next };
    setFilters(filters2);
    const url = filtersUrl(filters2);
    if (kind === "search" && lastEdit.current === "search") window.history.replaceState(null, "", url);
    else window.history.pushState(null, "", url);
    lastEdit.current = kind;
  };

  const shown = groups.filter((g) => g.versions.some((v) => matches(v, filters)));
  return (
    <div>
      <div className="mb-6 flex flex-wrap items-center gap-3">
        <div role="group" aria-label="Modality" className="flex rounded-lg border border-zinc-200 bg-white p-0.5">
          {MODALITIES.map((m) => (
            <button
              key={m.value}
              type="button"
              aria-pressed={filters.modality === m.value}
              onClick={() => change({ modality: m.value }, "filter")}
              className={`rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                filters.modality === m.value ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"
              }`}
            >
              {m.label}
            </button>
          ))}
        </div>
        <label className="text-sm text-zinc-600">
          <span className="sr-only">Task</span>
          <select
            value={tasks.includes(filters.task) ? filters.task : "all"}
            onChange={(e) => change({ task: e.target.value }, "filter")}
            className="rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-800 focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            <option value="all">All tasks</option>
            {tasks.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="min-w-48 flex-1">
          <span className="sr-only">Search</span>
          <input
            type="search"
            value={filters.query}
            onChange={(e) => change({ query: e.target.value }, "search")}
            placeholder="Search models"
            className="w-full rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-800 focus-visible:outline-2 focus-visible:outline-indigo-500"
          />
        </label>
      </div>
      {shown.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 bg-white p-8 text-center text-sm text-zinc-500">
          No model matches these filters. Clear the search or pick another modality.
        </p>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Models">
          {shown.map((g) => {
            const m = g.versions.find((v) => v.id === picked[g.key]) ?? g.latest;
            return (
              <ModelCard
                key={g.key}
                group={g.key}
                model={m}
                image={images[m.id]}
                making={making}
                versions={g.versions}
                onPick={(id) => setPicked((p) => ({ ...p, [g.key]: id }))}
              />
            );
          })}
        </ul>
      )}
    </div>
  );
}

function ModelCard({
  group,
  model: m,
  image,
  making,
  versions,
  onPick,
}: {
  group: string;
  model: Model;
  image: string | undefined;
  making: boolean;
  versions: Model[];
  onPick: (id: string) => void;
}) {
  return (
    <li
      data-testid="model-card"
      data-modality={m.modality}
      data-model-id={m.id}
      className="group relative flex flex-col overflow-hidden rounded-lg border border-zinc-200 bg-white transition-colors hover:border-zinc-300 hover:shadow-sm"
    >
      <div className="relative aspect-[16/10] overflow-hidden border-b border-zinc-200 bg-zinc-100">
        {image ? (
          <img
            src={image}
            alt={`Example output of ${m.name}`}
            data-testid="model-card-image"
            loading="lazy"
            decoding="async"
            className="h-full w-full object-cover transition-transform duration-300 motion-safe:group-hover:scale-[1.02]"
          />
        ) : (
          <div
            className="flex h-full w-full items-center justify-center text-zinc-400"
            data-testid="model-card-icon"
            title={making ? "Making an example…" : undefined}
          >
            <ModalityIcon modality={m.modality} className="h-10 w-10" />
          </div>
        )}
        <span className="absolute top-2 left-2 flex items-center gap-1 rounded-full bg-white/90 px-2 py-0.5 text-xs font-medium text-zinc-700 ring-1 ring-zinc-200 ring-inset">
          <ModalityIcon modality={m.modality} className="h-3.5 w-3.5" />
          {modalityLabel(m.modality)}
        </span>
      </div>
      <div className="flex flex-1 flex-col p-4">
        <div className="flex items-start justify-between gap-2">
          <div className="min-w-0">
            <h2 className="font-medium text-zinc-900">
              <Link
                href={modelHref(m.id)}
                className="after:absolute after:inset-0 focus-visible:outline-2 focus-visible:outline-indigo-500"
              >
                {m.name}
              </Link>
            </h2>
            <p className="text-xs text-zinc-500">{m.creator}</p>
          </div>
          <div className="flex flex-wrap justify-end gap-1">
            {m.type === "preset" ? <Badge tone="indigo">{`Preset v${m.version}`}</Badge> : null}
            {m.deprecation ? <Badge tone="amber">Deprecated</Badge> : null}
            {m.availability.status === "not_installed" ? (
              <Badge tone="amber">Not installed</Badge>
            ) : m.availability.status !== "available" ? (
              <Badge tone="zinc">Out of service</Badge>
            ) : null}
          </div>
        </div>
        <p className="mt-2 line-clamp-2 flex-1 text-sm text-zinc-600">{m.description}</p>
        <div className="mt-4 flex items-center justify-between gap-2 text-sm">
          <code className="min-w-0 truncate text-xs text-zinc-500">{m.id}</code>
          <span className="shrink-0 font-medium text-zinc-900" data-testid="model-card-price">
            {priceLabel(m.pricing)}
          </span>
        </div>
        {versions.length > 1 ? (
          <div className="relative z-10 mt-3 flex items-center gap-2 text-xs text-zinc-500">
            <span id={`versions-${group}`}>Version</span>
            <div
              role="group"
              aria-labelledby={`versions-${group}`}
              className="flex rounded-md border border-zinc-200 bg-white p-0.5"
            >
              {versions.map((v) => (
                <button
                  key={v.id}
                  type="button"
                  aria-pressed={v.id === m.id}
                  aria-label={`Version ${v.version}${v.latest ? " (latest)" : ""}${v.deprecation ? " (deprecated)" : ""}`}
                  onClick={() => onPick(v.id)}
                  className={`rounded px-2 py-0.5 font-medium focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                    v.id === m.id ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"
                  }`}
                >
                  {`v${v.version}`}
                </button>
              ))}
            </div>
          </div>
        ) : null}
      </div>
    </li>
  );
}
