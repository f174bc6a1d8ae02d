// What the server and each worker process run in the background, started and stopped together:
// the run engine, the webhook sender (and the events purge), the output and audit retentions.
import type { Logger } from "pino";
import { startEngine } from "../engine/engine";
import { startOutputRetention } from "../engine/output-retention";
import { startAuditRetention } from "../engine/audit-retention";
import { startWebhookSender } from "../engine/webhook-sender";
import type { Runtime } from "./boot";
import type { Config } from "./config";

export interface BackgroundWork {
  /** Finishes or releases in-flight runs and deliveries, then resolves. */
  stop(): Promise<void>;
}

export function startBackgroundWork(
  { store, services }: Pick<Runtime, "store" | "services">,
  config: Config,
  logger: Logger,
  process: { name: "server" | "worker"; concurrency: number },
): BackgroundWork {
  const { name, concurrency } = process;
  const everyMs = config.eventsPurgeIntervalSeconds * 1000;
  const engine = startEngine({ db: store.db, dialect: store.dialect, services, logger, concurrency, name });
  const webhookSender = startWebhookSender({
    db: store.db,
    dialect: store.dialect,
    services,
    logger,
    name,
    purgeEveryMs: everyMs,
  });
  const outputRetention = startOutputRetention({
    db: store.db,
    services,
    logger,
    days: config.outputRetentionDays,
    everyMs,
    name,
  });
  const auditRetention = startAuditRetention({
    db: store.db,
    logger,
    days: config.auditRetentionDays,
    everyMs,
    name,
  });
  return {
    stop: async () => {
      await Promise.all([engine.stop(), webhookSender.stop(), outputRetention.stop(), auditRetention.stop()]);
    },
  };
}
