// `npm run worker`: an extra run-engine process on the same store (SQLite file or PostgreSQL).
import { loadConfigOrExit, startRuntime } from "../lib/boot/boot";
import { startBackgroundWork } from "../lib/boot/background-work";
import { startTracing } from "../lib/boot/tracing";
import { createLogger } from "../lib/primitives/logger";

async function main(): Promise<void> {
  const config = loadConfigOrExit("worker");
  const logger = createLogger(config.logLevel, "atelier-worker");
  // A run created with a trace continues it here (lib/engine/engine.ts); off without OTEL_EXPORTER_OTLP_ENDPOINT.
  const tracing = await startTracing(config, "atelier-worker", logger);
  const { store, services, crossProcess } = await startRuntime(config, logger);
  const concurrency = Math.max(1, config.workerConcurrency);
  const background = startBackgroundWork({ store, services }, config, logger, { name: "worker", concurrency });
  logger.info({ concurrency, store: store.dialect }, "worker started");

  const shutdown = async (signal: string) => {
    logger.info({ signal }, "worker stopping: finishing or releasing in-flight runs");
    await background.stop();
    await crossProcess.close();
    await store.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
