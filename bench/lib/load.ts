// The load generator: autocannon, the same settings for Atelier and for its baseline.
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds measured. */
  seconds: number;
  /** Seconds of warm-up run first and thrown away (0: none). */
  warmupSeconds: number;
}

export interface LoadResult {
  /** 2xx answers per second. */
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  /** Answers that were not 2xx, and connection errors or timeouts. */
  bad: number;
}

function once(options: LoadOptions, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: options.url,
        method: options.method ?? "GET",
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration: seconds,
        timeout: 30,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds > 0) await once(options, options.warmupSeconds);
  const r = await once(options, options.seconds);
  const ok = r["2xx"];
  const bad = r.non2xx + r.errors + r.timeouts;
  const seconds = r.duration > 0 ? r.duration : options.seconds;
  return { rps: ok / seconds, p50: r.latency.p50, p99: r.latency.p99, ok, bad };
}
