// A providers-file entry turned into a ModelDefinition, so the engine runs remote entries exactly
// like built-in ones: run() prepares the request (the adapter's unbilled work, such as uploading
// file inputs, while the run can still be canceled), submits it to the provider (past the cancel
// point first when the provider bills on submit) and, for providers that answer with a job, polls
// it with backoff; then it shares the provider's health (down until …, or up again) with every
// process on the store. The provider time a finished job reports goes to the run's tools (the
// engine counts a per-second `cost` on it).
//
// Push: where the server has a public address the request carries the run's webhook URL, which
// adapters whose provider pushes (Replicate, fal) hand on. A webhook there is a nudge: the wait
// before the next poll ends at once (PollNudges), and that poll reads the job's state as any poll
// does. Without webhooks the polls run as before.
import { setTimeout as sleep } from "node:timers/promises";
import { METRICS } from "../../primitives/metrics";
import type { ModelDefinition, ModelOutput, ProviderPush, RunTools } from "../../core/catalog/model-definition";
import { providerUnavailableReason } from "./health";
import { measureOutput } from "./measure-output";
import { tracedProviderCall } from "./provider-span";
import {
  ProviderError,
  type ProviderAdapter,
  type ProviderConfig,
  type ProviderJob,
  type ProviderRequest,
  type ProviderResult,
  type RemoteEntryConfig,
} from "./types";

type Done = Extract<ProviderResult, { kind: "done" }>;

export { providerUnavailableReason } from "./health";

export interface PollOptions {
  /** How long a job may take from submission before it is given up (and canceled). */
  maxWaitMs: number;
  firstPollMs: number;
  maxPollMs: number;
  /** Transient poll failures in a row before the run fails. */
  maxPollFailures: number;
}

/** A signal no cancel reaches (a submit that must get its answer). */
const NOT_ABORTED = new AbortController().signal;

// A job's first look within 250 ms and then at most every 2 s: a finished job is noticed, and
// its progress shown, about as soon as a person would look again (issue 38's ceilings).
export const DEFAULT_POLL: PollOptions = {
  maxWaitMs: 15 * 60_000,
  firstPollMs: 250,
  maxPollMs: 2_000,
  maxPollFailures: 3,
};

/**
 * Polls a webhook has asked for come at most this often (from the start of one to the start of
 * the next): a provider repeating its webhooks, or one token holder sending many, costs the
 * provider no more than a few reads a second for the run.
 */
export const NUDGED_POLL_GAP_MS = 250;

/**
 * The nudges of a run's provider webhooks (RunTools.providerPush), heard from before the submit,
 * so that one arriving before the first wait (a job done at once) is not missed.
 */
class PollNudges {
  private pending = false;
  private wake: (() => void) | null = null;
  private readonly unsubscribe: () => void;

  constructor(push: ProviderPush | undefined) {
    this.unsubscribe = push
      ? push.onNudge(() => {
          this.pending = true;
          this.wake?.();
        })
      : () => undefined;
  }

  /**
   * Waits `ms`; a nudge (one already heard, or one arriving meanwhile) ends the wait early,
   * though not before `notBefore` (epoch ms). The poll that follows uses the nudge up; one heard
   * during that poll cuts the next wait short. Rejects when `signal` aborts.
   */
  async pause(ms: number, notBefore: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (!this.pending) {
      await new Promise<void>((resolve, reject) => {
        const settle = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", aborted);
          this.wake = null;
        };
        const done = () => (settle(), resolve());
        const aborted = () => (settle(), reject(signal.reason));
        const timer = setTimeout(done, ms);
        signal.addEventListener("abort", aborted, { once: true });
        this.wake = done;
      });
    }
    if (this.pending) {
      const rest = notBefore - Date.now();
      if (rest > 0) await sleep(rest, undefined, { signal });
    }
    this.pending = false;
  }

  close(): void {
    this.unsubscribe();
  }
}

/** A remote entry: `provider` is set to the provider's id (the run's `provider`). */
export type RemoteModelDefinition = ModelDefinition & { provider: string };

function duration(ms: number): string {
  if (ms >= 60_000) return `${Math.round(ms / 60_000)} min`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

async function waitForJob(
  provider: ProviderConfig,
  adapter: ProviderAdapter,
  submitted: ProviderJob,
  tools: RunTools,
  options: PollOptions,
  nudges: PollNudges,
): Promise<Done> {
  const deadline = Date.now() + options.maxWaitMs;
  let delay = options.firstPollMs;
  /** When the last poll began (0: none yet): a nudged one waits NUDGED_POLL_GAP_MS from it. */
  let polledAt = 0;
  let failures = 0;
  let uncancelable = false;
  // The job the provider follows now: an adapter may move it (a ComfyUI pool resubmits a job
  // whose box stopped answering elsewhere) and answer its new id; later polls and a cancel use it.
  let job = submitted;
  try {
    for (;;) {
      if (Date.now() + delay > deadline) {
        throw new ProviderError(
          `The provider ${provider.id} did not finish within ${duration(options.maxWaitMs)}.`,
          true,
        );
      }
      // A webhook for the run ends the wait early: the provider has news, which this poll reads.
      await nudges.pause(delay, polledAt + NUDGED_POLL_GAP_MS, tools.signal);
      delay = Math.min(Math.round(delay * 1.5), options.maxPollMs);
      polledAt = Date.now();
      let result;
      try {
        result = await adapter.poll(job, tools.signal);
      } catch (err) {
        // The job may well be fine: a hiccup while asking about it is not worth failing a paid run.
        if (
          err instanceof ProviderError &&
          err.transient &&
          !tools.signal.aborted &&
          ++failures < options.maxPollFailures
        )
          continue;
        throw err;
      }
      failures = 0;
      if (result.kind === "done") return result;
      if (result.jobId !== job.id) job = { ...job, id: result.jobId };
      // Waiting in the provider's own queue: the run shows that place (null: the provider no longer
      // says one). Once started there it no longer waits, whatever the provider said before.
      if (result.started) tools.reportQueuePosition(null);
      else if (result.queuePosition !== undefined) tools.reportQueuePosition(result.queuePosition);
      if (typeof result.progress === "number") tools.reportProgress(result.progress);
      if (result.started && !adapter.billsOnSubmit && !uncancelable) {
        // Throws if the run was canceled meanwhile; the catch below then cancels at the provider.
        await tools.markUncancelable("provider");
        uncancelable = true;
      }
    }
  } catch (err) {
    // Canceled, given up or failed: ask the provider to stop, so it does not work (or bill) for nothing.
    await adapter.cancel?.(job).catch(() => undefined);
    throw tools.signal.aborted ? tools.signal.reason : err;
  } finally {
    // A job done straight from the provider's queue (or a preset's step) leaves no place behind
    // for the rest of the run; the engine sends nothing when none was shown.
    tools.reportQueuePosition(null);
  }
}

/**
 * One try of a request at one provider: unbilled work first (uploads), the cancel point where the
 * provider bills on submit, the submit, the job's polls; the provider's health shared either way.
 * The outputs fetched and measured, or the provider's error.
 */
export async function runAtProvider(
  provider: ProviderConfig,
  entry: RemoteEntryConfig,
  adapter: ProviderAdapter,
  poll: PollOptions,
  input: Record<string, unknown>,
  tools: RunTools,
): Promise<ModelOutput[]> {
  tools.signal.throwIfAborted();
  let done: Done;
  // Heard from before the submit: a webhook may come before its answer is back.
  const nudges = new PollNudges(tools.providerPush);
  try {
    const request: ProviderRequest = {
      upstreamModel: entry.upstreamModel,
      input,
      entry,
      readFile: (id) => tools.readFile(id),
      ...(tools.providerPush && { webhookUrl: tools.providerPush.url }),
    };
    // Unbilled work first (uploading file inputs): a cancel meanwhile still cancels the run,
    // as the run's signal ends it.
    const prepared = adapter.prepareRequest ? await adapter.prepareRequest(request, tools.signal) : request;
    try {
      // Past this point cancel answers 409 (docs/api.md, "States and money"): the provider bills once it has the
      // request. It throws when the run was canceled meanwhile, so nothing is sent.
      if (adapter.billsOnSubmit) await tools.markUncancelable("provider");
      tools.signal.throwIfAborted();
    } catch (err) {
      adapter.abandon?.(prepared);
      throw err;
    }
    // A provider that bills nothing on submit may start the job before its answer (the job's
    // id) is back: aborting the request on a cancel would leave that job running with nobody
    // to stop it. Its submit runs to the answer (bounded by the provider's timeout); a cancel
    // meanwhile is honoured right after, and waitForJob stops the job at the provider.
    const submitted = await adapter.submit(prepared, adapter.billsOnSubmit ? tools.signal : NOT_ABORTED);
    if (submitted.kind === "done") tools.signal.throwIfAborted();
    done =
      submitted.kind === "done"
        ? submitted
        : await waitForJob(provider, adapter, { id: submitted.jobId, entry }, tools, poll, nudges);
  } catch (err) {
    if (err instanceof ProviderError && !tools.signal.aborted) METRICS.providerErrors.inc({ provider: provider.id });
    // A failed job the provider still bills for its time (Replicate): its cost is the run's too.
    if (err instanceof ProviderError && err.providerSeconds !== null) tools.reportProviderTime(err.providerSeconds);
    // The adapter marked the provider down (5xx, unreachable, timeout): tell the other processes.
    // The run's own error matters more than the report, which this process's health still holds.
    const down = providerUnavailableReason(provider.id, adapter.health);
    if (down)
      await tools.reportProviderHealth(provider.id, { until: down.until, reason: down.message }).catch(() => undefined);
    throw err;
  } finally {
    nudges.close();
  }
  // A good answer ends an outage another process may have recorded (best effort: the outputs
  // are paid for, and a row left behind lapses by itself).
  await tools.reportProviderHealth(provider.id, null).catch(() => undefined);
  if (typeof done.providerSeconds === "number") tools.reportProviderTime(done.providerSeconds);
  const measure = { providerId: provider.id, ffmpegPath: tools.ffmpegPath, signal: tools.signal };
  return Promise.all(done.outputs.map((output) => measureOutput(output, entry.modality, measure)));
}

/** The catalog's side of a remote entry: its words, schema, price and lifecycle. */
export function remoteEntryFacts(entry: RemoteEntryConfig) {
  return {
    id: entry.id,
    type: "model" as const,
    name: entry.name,
    creator: entry.creator,
    modality: entry.modality,
    tasks: entry.tasks,
    description: entry.description,
    revision: entry.revision,
    status: entry.status,
    pricing: entry.pricing,
    ...(entry.cost ? { cost: entry.cost } : {}),
    lifecycle: entry.lifecycle,
    input_schema: entry.inputSchema,
    ...(entry.examples ? { examples: entry.examples } : {}),
  };
}

export function remoteModelDefinition(
  provider: ProviderConfig,
  entry: RemoteEntryConfig,
  adapter: ProviderAdapter,
  pollOptions: Partial<PollOptions> = {},
): RemoteModelDefinition {
  const poll = { ...DEFAULT_POLL, ...pollOptions };
  return {
    ...remoteEntryFacts(entry),
    provider: provider.id,
    unavailableReason: () => providerUnavailableReason(provider.id, adapter.health),
    run: (input, tools) =>
      tracedProviderCall(provider, entry, tools.signal, () =>
        runAtProvider(provider, entry, adapter, poll, input, tools),
      ),
  };
}
