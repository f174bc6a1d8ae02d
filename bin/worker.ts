// `npm run worker`: an extra run-engine process on the same store (SQLite file or PostgreSQL).
import { loadConfigOrExit, startRuntime } from "../lib/boot/boot";
import { startEngine } from "../lib/engine/engine";
import { startOutputRetention } from "../lib/engine/output-retention";
import { startWebhookSender } from "../lib/engine/webhook-sender";
import { createLogger } from "../lib/primitives/logger";

async function main(): Promise<void> {
  const config = loadConfigOrExit("worker");
  const logger = createLogger(config.logLevel, "atelier-worker");
  const { store, services, crossProcess } = await startRuntime(config, logger);
  const concurrency = Math.max(1, config.workerConcurrency);
  const engine = startEngine({ db: store.db, dialect: store.dialect, services, logger, concurrency, name: "worker" });
  const webhookSender = startWebhookSender({
    db: store.db,
    dialect: store.dialect,
    services,
    logger,
    name: "worker",
    purgeEveryMs: config.eventsPurgeIntervalSeconds * 1000,
  });
  const outputRetention = startOutputRetention({
    db: store.db,
    services,
    logger,
    days: config.outputRetentionDays,
    everyMs: config.eventsPurgeIntervalSeconds * 1000,
    name: "worker",
  });
  logger.info({ concurrency, store: store.dialect }, "worker started");

  const shutdown = async (signal: string) => {
    logger.info({ signal }, "worker stopping: finishing or releasing in-flight runs");
    await Promise.all([engine.stop(), webhookSender.stop(), outputRetention.stop()]);
    await crossProcess.close();
    await store.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
