// Output retention's schedule (OUTPUT_RETENTION_DAYS; the purge itself is
// lib/core/runs/output-retention.ts): every process on the store asks each interval, and the one
// that takes the turn (scheduled-tasks.ts, task "outputs_purge") purges. Off when unset.
import type { Logger } from "pino";
import type { Services } from "../core/context";
import { purgeOldOutputs } from "../core/runs/output-retention";
import { randomBase62 } from "../primitives/ids";
import type { Db } from "../store/database";
import { startScheduledTurns, type ScheduledTurns } from "./scheduled-tasks";

export type OutputRetention = ScheduledTurns;

export function startOutputRetention(options: {
  db: Db;
  services: Pick<Services, "blobs">;
  logger: Logger;
  /** OUTPUT_RETENTION_DAYS; null keeps outputs forever (nothing is scheduled). */
  days: number | null;
  /** How often a turn is asked for (EVENTS_PURGE_INTERVAL_SECONDS); hourly by default. */
  everyMs?: number;
  name?: string;
}): OutputRetention {
  const { days } = options;
  if (days === null) return { stop: async () => undefined };
  return startScheduledTurns({
    db: options.db,
    name: "outputs_purge",
    everyMs: options.everyMs ?? 3600 * 1000,
    owner: `${options.name ?? "retention"}-${process.pid}-${randomBase62(6)}`,
    logger: options.logger,
    work: async (shouldStop) => {
      const purged = await purgeOldOutputs(
        { db: options.db, blobs: options.services.blobs },
        { olderThanDays: days, shouldStop },
      );
      if (purged.runs > 0 || purged.blobsDeleted > 0 || purged.blobsLeft > 0) {
        options.logger.info({ ...purged, days }, "purged outputs past the retention");
      }
      if (purged.blobsLeft > 0) {
        options.logger.warn(
          { blobsLeft: purged.blobsLeft },
          "some output blobs could not be deleted; retrying next turn",
        );
      }
    },
  });
}
