// One HTTP load test against Atelier and against the bare node:http baseline answering the same
// bytes: req/s and latency percentiles of both, as rows.
import { capture, measureBaseline } from "../lib/baseline";
import type { BenchSettings } from "../lib/context";
import { load, type LoadOptions, type LoadResult } from "../lib/load";
import { ratioOf, type Row } from "../lib/results";

export interface ThroughputCase {
  /** The framework floor too (node:http → Hono answering the same bytes), besides the bare server. */
  frameworkFloor?: boolean;
  scenario: string;
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** Status the captured answer must have, so the baseline answers a real success. */
  expectStatus: number;
  /** Connections, when not the settings' (the studio page is timed one request at a time). */
  connections?: number;
}

export interface ThroughputResult {
  atelier: LoadResult;
  /** The bare node:http server answering the same bytes: the physical reference. */
  baseline: LoadResult;
  /** The framework floor, when the case asked for it. */
  framework: LoadResult | null;
}

export async function measureThroughput(settings: BenchSettings, c: ThroughputCase): Promise<ThroughputResult> {
  const init: RequestInit = { method: c.method, headers: c.headers, body: c.body };
  const captured = await capture(c.url, init);
  if (captured.status !== c.expectStatus) {
    throw new Error(
      `${c.scenario}: expected ${c.expectStatus}, got ${captured.status}: ${captured.body.toString().slice(0, 300)}`,
    );
  }
  const options: LoadOptions = {
    url: c.url,
    method: c.method,
    headers: c.headers,
    body: c.body,
    connections: c.connections ?? settings.connections,
    seconds: settings.seconds,
    warmupSeconds: settings.warmup,
  };
  const baseline = await measureBaseline(captured, options, "bare");
  const framework = c.frameworkFloor ? await measureBaseline(captured, options, "framework") : null;
  const atelier = await load(options);
  if (atelier.ok === 0) throw new Error(`${c.scenario}: no request succeeded under load`);
  return { atelier, baseline, framework };
}

export function badNote(r: LoadResult): string | undefined {
  return r.bad > 0 ? `${r.bad} non-2xx or failed` : undefined;
}

/**
 * The req/s row with a minimum share of a floor's req/s: the bare server's (`baseline`), the
 * framework floor's (`framework`), or another measured in the same run (the store floor).
 */
export function rpsRow(
  scenario: string,
  figure: string,
  r: ThroughputResult,
  minShare: number | null,
  against: "baseline" | "framework" | { name: string; rps: number } = "baseline",
): Row {
  const floor =
    against === "baseline" ? r.baseline.rps : against === "framework" ? (r.framework?.rps ?? null) : against.rps;
  const name = against === "baseline" ? "baseline" : against === "framework" ? "the framework floor" : against.name;
  const ratio = ratioOf(r.atelier.rps, floor);
  return {
    scenario,
    figure,
    unit: "/s",
    value: r.atelier.rps,
    baseline: floor,
    ratio,
    target: minShare === null ? "–" : `≥ ${Math.round(minShare * 100)} % of ${name}`,
    pass: minShare === null || ratio === null ? null : ratio >= minShare,
    note: badNote(r.atelier),
  };
}

export function latencyRow(
  scenario: string,
  figure: string,
  r: ThroughputResult,
  maxMs: number | null,
  which: "p50" | "p99" = figure.endsWith("p50") ? "p50" : "p99",
): Row {
  const value = r.atelier[which];
  const baseline = r.baseline[which];
  return {
    scenario,
    figure,
    unit: "ms",
    value,
    baseline,
    ratio: ratioOf(value, baseline),
    target: maxMs === null ? "–" : `≤ ${maxMs} ms`,
    pass: maxMs === null ? null : value <= maxMs,
  };
}
