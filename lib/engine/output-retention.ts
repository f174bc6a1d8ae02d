// Output retention's schedule (OUTPUT_RETENTION_DAYS; the purge itself is
// lib/core/runs/output-retention.ts): every process on the store asks each interval, and the one
// that takes the turn (scheduled-tasks.ts, task "outputs_purge") purges. Off when unset.
import type { Logger } from "pino";
import type { Services } from "../core/context";
import { purgeOldOutputs } from "../core/runs/output-retention";
import { randomBase62 } from "../primitives/ids";
import type { Db } from "../store/database";
import { claimScheduledTurn } from "./scheduled-tasks";

export interface OutputRetention {
  stop(): Promise<void>;
}

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
  const owner = `${options.name ?? "retention"}-${process.pid}-${randomBase62(6)}`;
  const everyMs = options.everyMs ?? 3600 * 1000;
  let stopping = false;
  let running: Promise<void> | null = null;

  const turn = async () => {
    try {
      if (!(await claimScheduledTurn(options.db, { name: "outputs_purge", everyMs, owner }))) return;
      const purged = await purgeOldOutputs(
        { db: options.db, blobs: options.services.blobs },
        { olderThanDays: days, shouldStop: () => stopping },
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
    } catch (err) {
      options.logger.error({ err }, "output retention turn failed; trying again next interval");
    }
  };
  const tick = () => {
    if (stopping || running) return;
    running = turn().finally(() => {
      running = null;
    });
  };
  // Not at once: a starting process has better things to do first.
  const first = setTimeout(tick, Math.min(everyMs, 60_000));
  const timer = setInterval(tick, everyMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      stopping = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
