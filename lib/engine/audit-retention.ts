// The audit log's retention schedule (AUDIT_RETENTION_DAYS, 365 by default; the purge itself is
// lib/core/audit/audit-retention.ts, the log's only delete): every process on the store asks each
// interval, and the one that takes the turn (scheduled-tasks.ts, task "audit_purge") purges.
import type { Logger } from "pino";
import { purgeAuditEvents } from "../core/audit/audit-retention";
import { randomBase62 } from "../primitives/ids";
import type { Db } from "../store/database";
import { claimScheduledTurn } from "./scheduled-tasks";

export interface AuditRetention {
  stop(): Promise<void>;
}

export function startAuditRetention(options: {
  db: Db;
  logger: Logger;
  days: number;
  /** How often a turn is asked for (EVENTS_PURGE_INTERVAL_SECONDS); hourly by default. */
  everyMs?: number;
  name?: string;
}): AuditRetention {
  const owner = `${options.name ?? "audit"}-${process.pid}-${randomBase62(6)}`;
  const everyMs = options.everyMs ?? 3600 * 1000;
  let stopping = false;
  let running: Promise<void> | null = null;

  const turn = async () => {
    try {
      if (!(await claimScheduledTurn(options.db, { name: "audit_purge", everyMs, owner }))) return;
      const purged = await purgeAuditEvents({ db: options.db }, { olderThanDays: options.days });
      if (purged > 0) options.logger.info({ purged, days: options.days }, "purged audit events past the retention");
    } catch (err) {
      options.logger.error({ err }, "audit retention turn failed; trying again next interval");
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
