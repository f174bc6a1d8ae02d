// The queue depth gauge's reading (lib/primitives/metrics.ts): one count on the status index
// when /metrics is scraped. Here, beside the store it reads, so the metrics stay a leaf.
import { METRICS } from "../primitives/metrics";
import type { Db } from "./database";

/** How long a scrape waits for the queue depth before reporting NaN. */
const QUEUE_DEPTH_TIMEOUT_MS = 2_000;

/** The queue depth gauge reads `db` (one count on the status index) when scraped. */
export function measureQueueDepthFrom(db: Db, timeoutMs = QUEUE_DEPTH_TIMEOUT_MS): void {
  METRICS.state.queueDepth = async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the queue depth query took too long")), timeoutMs);
    });
    try {
      const row = await Promise.race([
        db
          .selectFrom("generations")
          .select((eb) => eb.fn.countAll<string | number>().as("n"))
          .where("status", "=", "queued")
          .executeTakeFirst(),
        timeout,
      ]);
      return Number(row?.n ?? 0);
    } finally {
      clearTimeout(timer);
    }
  };
}
