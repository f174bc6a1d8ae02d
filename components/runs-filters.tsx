"use client";
import { useEffect } from "react";
import { useRouter } from "next/navigation";
import { GENERATION_STATUSES } from "@/lib/core/runs/run-states";
import { EARLY_INPUT, takeEarlyInput } from "./early-input";

/** The filters kept in the URL, each control's id `runs-<name>`. */
const FILTERS = ["from", "to", "model", "status", "source", "by", "limit"] as const;
/** The page size when the URL names none (and then left out of it). */
const DEFAULT_LIMIT = "20";

const SELECT =
  "rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-800 focus-visible:outline-2 focus-visible:outline-indigo-500";

const FIELD =
  "rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm text-zinc-800 focus-visible:outline-2 focus-visible:outline-indigo-500";

/**
 * Prompt search, a range of days, model, status and source filters and the page size; a change
 * starts again at page one. Everything lives in the URL (shareable, the back button works).
 */
export function RunsFilters({
  models,
  starters,
  current,
}: {
  models: string[];
  /** Members and API keys, each a run's possible starter: `by` in the URL. */
  starters: { id: string; label: string }[];
  current: Record<string, string | undefined>;
}) {
  const router = useRouter();
  const go = (changes: Record<string, string>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...current, ...changes }))
      if (v && !(k === "limit" && v === DEFAULT_LIMIT)) q.set(k, v);
    const s = q.toString();
    router.push(s ? `/runs?${s}` : "/runs");
  };
  // A day or a filter picked before the page came alive (hydration) fired its change event before
  // React listened: once mounted, send what was picked (components/early-input.ts).
  useEffect(() => {
    const early = takeEarlyInput();
    const changes: Record<string, string> = {};
    for (const name of FILTERS) {
      const picked = early[`runs-${name}`];
      if (picked !== undefined && picked !== (current[name] ?? (name === "limit" ? DEFAULT_LIMIT : "")))
        changes[name] = picked;
    }
    if (Object.keys(changes).length > 0) go(changes);
    // Once, at hydration: later changes arrive through onChange.
  }, []);
  return (
    <div {...EARLY_INPUT} className="mb-4 flex flex-col gap-3">
      <div className="flex flex-wrap items-end gap-3" role="search" aria-label="Find runs">
        <form
          className="flex min-w-0 flex-1 basis-64 items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            go({ q: String(new FormData(e.currentTarget).get("q") ?? "").trim() });
          }}
        >
          <label className="sr-only" htmlFor="runs-search">
            Search prompts
          </label>
          <input
            id="runs-search"
            name="q"
            type="search"
            key={current.q ?? ""}
            defaultValue={current.q ?? ""}
            maxLength={200}
            placeholder="Search prompts…"
            data-testid="runs-search"
            className={`${FIELD} min-w-0 flex-1`}
          />
          <button
            type="submit"
            className="rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm font-medium text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-500"
          >
            Search
          </button>
        </form>
        <fieldset className="flex flex-wrap items-center gap-2 text-sm text-zinc-600">
          <legend className="sr-only">Created between (UTC days)</legend>
          <label className="flex items-center gap-2">
            From
            <input
              type="date"
              aria-label="From"
              id="runs-from"
              data-testid="runs-from"
              className={FIELD}
              value={current.from ?? ""}
              max={current.to}
              onChange={(e) => go({ from: e.target.value })}
            />
          </label>
          <label className="flex items-center gap-2">
            to
            <input
              type="date"
              aria-label="To"
              id="runs-to"
              data-testid="runs-to"
              className={FIELD}
              value={current.to ?? ""}
              min={current.from}
              onChange={(e) => go({ to: e.target.value })}
            />
          </label>
        </fieldset>
      </div>
      <div className="flex flex-wrap items-center gap-3" role="group" aria-label="Filters">
        <label className="flex items-center gap-2 text-sm text-zinc-600">
          Model
          <select
            aria-label="Model"
            id="runs-model"
            className={SELECT}
            value={current.model ?? ""}
            onChange={(e) => go({ model: e.target.value })}
          >
            <option value="">All models</option>
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2 text-sm text-zinc-600">
          Status
          <select
            aria-label="Status"
            id="runs-status"
            className={SELECT}
            value={current.status ?? ""}
            onChange={(e) => go({ status: e.target.value })}
          >
            <option value="">Any status</option>
            {GENERATION_STATUSES.map((s) => (
              <option key={s} value={s} className="capitalize">
                {s[0]!.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2 text-sm text-zinc-600">
          Source
          <select
            aria-label="Source"
            id="runs-source"
            className={SELECT}
            value={current.source ?? ""}
            onChange={(e) => go({ source: e.target.value })}
          >
            <option value="">Any source</option>
            <option value="api">API</option>
            <option value="mcp">MCP</option>
            <option value="studio">Studio</option>
          </select>
        </label>
        <label className="flex items-center gap-2 text-sm text-zinc-600">
          Started by
          <select
            aria-label="Started by"
            id="runs-by"
            className={`${SELECT} max-w-[16rem]`}
            value={current.by ?? ""}
            onChange={(e) => go({ by: e.target.value })}
          >
            <option value="">Anyone</option>
            {starters.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label className="ml-auto flex items-center gap-2 text-sm text-zinc-600">
          Per page
          <select
            aria-label="Per page"
            id="runs-limit"
            className={SELECT}
            value={current.limit ?? DEFAULT_LIMIT}
            onChange={(e) => go({ limit: e.target.value })}
          >
            {["10", "20", "50", "100"].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>
    </div>
  );
}
