// The run engine: N worker slots that claim queued runs, run them and finish them. Idle slots
// sleep until a "run queued" signal, with a slow poll only as the fallback.
import type { Logger } from "pino";
import type { Services } from "../core/context";
import { randomBase62 } from "../primitives/ids";
import type { Db, GenerationsTable } from "../store/database";
import type { DialectName } from "../store/dialects";
import { logStoreUnreachable, storeUnreachable } from "../primitives/unreachable";
import { outOfServiceModelIds } from "../core/catalog/model-pauses";
import { claimNextRun, releaseRun } from "./claim";
import { executeRun, type ExecuteOptions, type ExecuteResult } from "./execute-run";
import { isTracing, SpanKind, tracedFrom } from "../primitives/tracing";

export interface EngineOptions {
  db: Db;
  dialect: DialectName;
  services: Services;
  logger: Logger;
  concurrency: number;
  leaseMs?: number;
  /** How often an idle slot looks at the queue without being woken. */
  idlePollMs?: number;
  /** A name for this process's leases, for logs. */
  name?: string;
}

export interface Engine {
  /** Stops claiming, gives back in-flight runs that do not end within graceMs, and resolves. */
  stop(graceMs?: number): Promise<void>;
}

export const DEFAULT_LEASE_MS = 15_000;

const outcomeOf = (result: ExecuteResult) => (result.kind === "finished" ? result.row.status : result.kind);

/** A run's execution between two debug lines (with the trace's IDs when traced: lib/primitives/logger.ts). */
async function executeLogged(options: ExecuteOptions, run: GenerationsTable): Promise<ExecuteResult> {
  options.logger.debug({ run: run.id, model: run.model, attempt: run.attempts }, "run claimed");
  const result = await executeRun(options, run);
  options.logger.debug({ run: run.id, outcome: outcomeOf(result) }, "run ended");
  return result;
}

/**
 * A run's execution in the span `run.execute`, the child of the create that queued it (the
 * traceparent its row keeps), whichever process created it; a trace of its own when it has none.
 */
function executeTraced(options: ExecuteOptions, run: GenerationsTable): Promise<ExecuteResult> {
  if (!isTracing()) return executeLogged(options, run);
  return tracedFrom(
    run.traceparent,
    "run.execute",
    async (span) => {
      const result = await executeLogged(options, run);
      span?.setAttribute("atelier.run.outcome", outcomeOf(result));
      return result;
    },
    {
      kind: SpanKind.CONSUMER,
      attributes: () => ({
        "atelier.run.id": run.id,
        "atelier.run.model": run.model,
        "atelier.workspace.id": run.workspace_id,
        "atelier.run.attempt": run.attempts,
        "atelier.worker": options.owner,
      }),
    },
  );
}

export function startEngine(options: EngineOptions): Engine {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const idlePollMs = options.idlePollMs ?? 1_000;
  const owner = `${options.name ?? "worker"}-${process.pid}-${randomBase62(6)}`;
  const shutdown = new AbortController();
  let stopping = false;
  const wakers = new Set<() => void>();
  const unsubscribe = options.services.signals.onQueued(() => {
    for (const wake of [...wakers]) wake();
  });

  const sleep = () =>
    new Promise<void>((resolve) => {
      // stop() may have woken the sleepers just before this one began: nothing to wait for then.
      if (stopping) return resolve();
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, idlePollMs);
      wakers.add(done);
    });

  async function slot(): Promise<void> {
    while (!stopping) {
      let run;
      try {
        const waiting = await outOfServiceModelIds(options.db);
        run = await claimNextRun(options.db, options.dialect, { owner, leaseMs, skipModels: waiting });
      } catch (err) {
        if (storeUnreachable(err))
          logStoreUnreachable(
            options.logger,
            err,
            { owner },
            "the store cannot be reached: the engine tries to claim runs again",
          );
        else options.logger.error({ err }, "claiming a run failed");
        await sleep();
        continue;
      }
      if (!run) {
        await sleep();
        continue;
      }
      // Followers see it start, and the runs queued behind it move up.
      options.services.signals.runChanged(run.id);
      try {
        const result = await executeTraced(
          {
            db: options.db,
            services: options.services,
            logger: options.logger,
            owner,
            leaseMs,
            shutdown: shutdown.signal,
          },
          run,
        );
        if (result.kind === "released") {
          await releaseRun(options.db, { id: run.id, owner });
          options.services.signals.runChanged(run.id);
        } else {
          options.services.signals.runFinished(run.id, result.kind === "finished" ? result.row : undefined);
          // A workspace at its cap of running runs may start its next one now (the claim passed
          // over its queued runs while this ran): the idle slots look again.
          for (const wake of [...wakers]) wake();
        }
      } catch (err) {
        options.logger.error(
          { err, run: run.id },
          "running a run failed; its lease will lapse and it will be recovered",
        );
      }
    }
  }

  const slots = Array.from({ length: options.concurrency }, () => slot());

  return {
    async stop(graceMs = 10_000) {
      stopping = true;
      unsubscribe();
      for (const wake of [...wakers]) wake();
      const grace = setTimeout(() => shutdown.abort(), graceMs);
      await Promise.allSettled(slots);
      clearTimeout(grace);
    },
  };
}
