"use client";
import { useMemo, useState } from "react";
import Link from "next/link";
import type { Model } from "@/lib/core/catalog";
import { modelHref, priceLabel } from "./catalog-price";


const MODALITIES = [
  { value: "all", label: "All" },
  { value: "image", label: "Image" },
  { value: "video", label: "Video" },
  { value: "audio", label: "Audio" },
];

function Badge({ tone, children }: { tone: "indigo" | "amber" | "zinc"; children: string }) {
  const tones = { indigo: "bg-indigo-50 text-indigo-700 ring-indigo-200", amber: "bg-amber-50 text-amber-800 ring-amber-200", zinc: "bg-zinc-100 text-zinc-600 ring-zinc-200" };
  return <span className={`rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>{children}</span>;
}


function ModalityIcon({ modality }: { modality: string }) {
  const paths: Record<string, string> = {
    image: "M4 5h16v14H4zM4 15l4-4 4 4 3-3 5 5M15 9.5a1 1 0 1 0 0-.01",
    video: "M4 6h11v12H4zM15 10l5-3v10l-5-3",
    audio: "M9 18V6l10-2v12M9 18a2 2 0 1 1-4 0 2 2 0 0 1 4 0zM19 16a2 2 0 1 1-4 0 2 2 0 0 1 4 0z",
  };
  return (
    <span aria-hidden className="flex h-9 w-9 shrink-0 items-center justify-center rounded-md bg-zinc-100 text-zinc-500">
      <svg viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth={1.6} strokeLinecap="round" strokeLinejoin="round">
        <path d={paths[modality] ?? paths.image} />
      </svg>
    </span>
  );
}

// Client-side and instant, as SPEC.md's catalog is small and public.
export function CatalogBrowser({ models }: { models: Model[] }) {
  const [modality, setModality] = useState("all");
  const [task, setTask] = useState("all");
  const [query, setQuery] = useState("");
  const tasks = useMemo(() => [...new Set(models.flatMap((m) => m.tasks))].sort(), [models]);
  const shown = models.filter(
    (m) =>
      (modality === "all" || m.modality === modality) &&
      (task === "all" || m.tasks.includes(task)) &&
      `${m.name} ${m.id} ${m.description} ${m.creator}`.toLowerCase().includes(query.trim().toLowerCase()),
  );
  return (
    <div>
      <div className="mb-6 flex flex-wrap items-center gap-3">
        <div role="group" aria-label="Modality" className="flex rounded-lg border border-zinc-200 bg-white p-0.5">
          {MODALITIES.map((m) => (
            <button
              key={m.value}
              type="button"
              aria-pressed={modality === m.value}
              onClick={() => setModality(m.value)}
              className={`rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                modality === m.value ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"
              }`}
            >
              {m.label}
            </button>
          ))}
        </div>
        <label className="text-sm text-zinc-600">
          <span className="sr-only">Task</span>
          <select
            value={task}
            onChange={(e) => setTask(e.target.value)}
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
            value={query}
            onChange={(e) => setQuery(e.target.value)}
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
          {shown.map((m) => (
            <li key={m.id} data-testid="model-card" data-modality={m.modality} className="relative flex flex-col rounded-lg border border-zinc-200 bg-white p-4 transition-colors hover:border-zinc-300 hover:shadow-sm">
              <div className="flex items-start justify-between gap-2">
                <div className="flex min-w-0 items-start gap-3">
                  <ModalityIcon modality={m.modality} />
                  <div className="min-w-0">
                  <h2 className="font-medium text-zinc-900">
                    <Link href={modelHref(m.id)} className="after:absolute after:inset-0 focus-visible:outline-2 focus-visible:outline-indigo-500">
                      {m.name}
                    </Link>
                  </h2>
                  <p className="text-xs text-zinc-500">
                    {m.creator} · <span className="capitalize">{m.modality}</span>
                  </p>
                  </div>
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
              <p className="mt-3 line-clamp-2 flex-1 text-sm text-zinc-600">{m.description}</p>
              <div className="mt-4 flex items-center justify-between text-sm">
                <code className="text-xs text-zinc-500">{m.id}</code>
                <span className="font-medium text-zinc-900">{priceLabel(m.pricing)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
