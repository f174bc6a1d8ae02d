// The audit log's retention schedule (AUDIT_RETENTION_DAYS, 365 by default; the purge itself is
// lib/core/audit/audit-retention.ts, the log's only delete): every process on the store asks each
// interval, and the one that takes the turn (scheduled-tasks.ts, task "audit_purge") purges.
import type { Logger } from "pino";
import { purgeAuditEvents } from "../core/audit/audit-retention";
import { randomBase62 } from "../primitives/ids";
import type { Db } from "../store/database";
import { startScheduledTurns, type ScheduledTurns } from "./scheduled-tasks";

export type AuditRetention = ScheduledTurns;

export function startAuditRetention(options: {
  db: Db;
  logger: Logger;
  days: number;
  /** How often a turn is asked for (EVENTS_PURGE_INTERVAL_SECONDS); hourly by default. */
  everyMs?: number;
  name?: string;
}): AuditRetention {
  return startScheduledTurns({
    db: options.db,
    name: "audit_purge",
    everyMs: options.everyMs ?? 3600 * 1000,
    owner: `${options.name ?? "audit"}-${process.pid}-${randomBase62(6)}`,
    logger: options.logger,
    work: async () => {
      const purged = await purgeAuditEvents({ db: options.db }, { olderThanDays: options.days });
      if (purged > 0) options.logger.info({ purged, days: options.days }, "purged audit events past the retention");
    },
  });
}
