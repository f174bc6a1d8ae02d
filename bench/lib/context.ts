// Settings of one benchmark run: the full run, or the smoke run that only proves the harness works.
export interface BenchSettings {
  smoke: boolean;
  /** Every store on PostgreSQL (--pg). */
  pg: boolean;
  /** Connections of the load generator. */
  connections: number;
  /** Seconds measured per load test, after `warmup` seconds thrown away. */
  seconds: number;
  warmup: number;
  /** node --cpu-prof output directory for the server processes, or null. */
  cpuProfDir: string | null;
}

export function settingsFor(options: { smoke: boolean; pg: boolean; cpuProfDir: string | null }): BenchSettings {
  return options.smoke
    ? { ...options, connections: 4, seconds: 1, warmup: 0 }
    : { ...options, connections: 50, seconds: 10, warmup: 3 };
}
