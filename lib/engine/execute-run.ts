// Running one claimed run: the model, its outputs into blobs, and the finish transaction.
import type { Logger } from "pino";
import type { Services } from "../core/context";
import { definitionAtRevision } from "../core/catalog/catalog";
import { findBlockedTerm, refusedPromptMessage } from "../core/catalog/moderation";
import { ModelError, type ModelDefinition, type RouteAttempt } from "../core/catalog/model-definition";
import { failedJobCostMicros, providerCostMicros } from "../core/runs/provider-cost";
import type { Db, GenerationsTable } from "../store/database";
import { BUILT_IN_PROVIDER, renewLease } from "./claim";
import { finishRun, type RunOutcome } from "./finish";
import { createRunTools, RunNoLongerOursError } from "./run-tools";
import { storeOutputs } from "./store-outputs";

/** A run that lost its worker this many times is failed rather than tried again. */
export const MAX_ATTEMPTS = 3;

export interface ExecuteOptions {
  db: Db;
  services: Services;
  logger: Logger;
  owner: string;
  leaseMs: number;
  /** Aborted on shutdown: the run is then given back to the queue, not failed. */
  shutdown: AbortSignal;
}

/** "released" when shutdown interrupted it, "lost" when no longer ours, else the ended row as committed. */
export type ExecuteResult = { kind: "finished"; row: GenerationsTable } | { kind: "lost" } | { kind: "released" };

const LOST: ExecuteResult = { kind: "lost" };
const RELEASED: ExecuteResult = { kind: "released" };

/** A routed run's attempts for its finish, and the target that made its outputs (the run's `provider`). */
function routeOf(attempts: RouteAttempt[]): { attempts?: RouteAttempt[]; provider?: string } {
  if (attempts.length === 0) return {};
  const made = attempts.findLast((a) => a.outcome === "succeeded");
  return { attempts, ...(made ? { provider: made.provider } : {}) };
}

export async function executeRun(options: ExecuteOptions, run: GenerationsTable): Promise<ExecuteResult> {
  const { db, services, logger, owner, leaseMs } = options;
  if (run.attempts > MAX_ATTEMPTS) {
    const row = await finishRun(db, services, {
      id: run.id,
      owner,
      outcome: {
        status: "failed",
        message: "The run was interrupted several times (its worker stopped) and was given up.",
      },
    });
    return row ? { kind: "finished", row } : LOST;
  }
  const stop = new AbortController();
  let lost = false;
  const checkOwnership = () => {
    renewLease(db, { id: run.id, owner, leaseMs })
      .then((ours) => {
        if (!ours) {
          lost = true;
          stop.abort();
        }
      })
      .catch((err) => logger.warn({ err, run: run.id }, "lease renewal failed"));
  };
  const renewal = setInterval(checkOwnership, Math.max(50, Math.floor(leaseMs / 3)));
  // A cancel (in any process) ends the run in the store and signals its finish: the lease is
  // looked at then, not at the next renewal (up to a third of the lease later), so the model
  // stops, and a provider is asked to drop the job, within moments of the cancel's answer.
  const stopListening = services.signals.onRunSignal((id, kind) => {
    if (id === run.id && kind === "finished" && !stop.signal.aborted) checkOwnership();
  });
  // A provider that bills once submitted must not get the run twice: past that point a shutdown
  // waits for the run (bounded by the provider's timeout) instead of giving it back to the queue.
  let atBillingProvider = false;
  const onShutdown = () => {
    if (!atBillingProvider) stop.abort();
  };
  options.shutdown.addEventListener("abort", onShutdown);
  // The provider time its provider reported (Replicate's predict_time), for a per-second cost.
  let providerSeconds: number | null = null;
  // A routed entry's tries of its targets (lib/providers/common/route-run.ts), kept with the run.
  const attempts: RouteAttempt[] = [];
  // What the run ran as, once known: a failed run's provider cost is counted on its entry's cost.
  let ranAs: ModelDefinition | undefined;

  let outcome: RunOutcome;
  try {
    // The entry as the run was created with it: a remote entry edited meanwhile runs its old revision.
    const definition = await definitionAtRevision(db, run.model, run.revision);
    ranAs = definition;
    const input = JSON.parse(run.input_json) as Record<string, unknown>;
    const blocked = findBlockedTerm(services.moderationBlocklist, definition.input_schema, input);
    if (blocked) throw new ModelError(refusedPromptMessage(blocked));
    const provider = definition.provider ?? BUILT_IN_PROVIDER;
    if (provider !== run.provider) {
      await db
        .updateTable("generations")
        .set({ provider })
        .where("id", "=", run.id)
        .where("lease_owner", "=", owner)
        .execute();
    }
    const tools = createRunTools({
      db,
      services,
      run,
      owner,
      signal: stop.signal,
      onCancelPoint: (reason) => {
        if (reason === "provider") atBillingProvider = true;
      },
      onProviderTime: (seconds) => {
        providerSeconds = (providerSeconds ?? 0) + seconds;
      },
      onAttempt: (attempt) => attempts.push(attempt),
    });
    const outputs = await definition.run(input, tools);
    if (stop.signal.aborted) throw stop.signal.reason;
    const stored = await storeOutputs(services, outputs);
    // What it cost upstream (ops' margins only): counted once the outputs are kept, so a
    // per-second cost without a reported time runs from the run's start to this, its finish.
    const started = Date.parse(run.started_at ?? "");
    const wallMs = Number.isNaN(started) ? 0 : Date.now() - started;
    outcome = {
      status: "succeeded",
      outputs: stored,
      providerCostMicros: providerCostMicros(definition.cost, input, { reportedSeconds: providerSeconds, wallMs }),
      ...routeOf(attempts),
    };
  } catch (err) {
    if (options.shutdown.aborted && !lost) return RELEASED;
    if (lost || err instanceof RunNoLongerOursError) return LOST;
    const code = (err as { code?: string })?.code;
    // Taken out of the catalog after the run was queued (its entry or its provider removed).
    const removed = !ranAs && code === "resource_not_found";
    const message =
      err instanceof ModelError
        ? err.message
        : code === "gone"
          ? (err as Error).message
          : removed
            ? `The model ${run.model} was removed from the catalog after this run was queued. Nothing was charged.`
            : "The model stopped with an unexpected error. Nothing was charged; try again.";
    if (!(err instanceof ModelError) && !removed) logger.error({ err, run: run.id }, "model failed");
    outcome = {
      status: "failed",
      message,
      providerCostMicros: failedJobCostMicros(ranAs?.cost, providerSeconds),
      ...routeOf(attempts),
    };
  } finally {
    clearInterval(renewal);
    stopListening();
    options.shutdown.removeEventListener("abort", onShutdown);
  }
  const row = await finishRun(db, services, { id: run.id, owner, outcome });
  return row ? { kind: "finished", row } : LOST;
}
