// A ComfyUI provider is a pool of boxes (issue 38): `base_url` alone is a pool of one, `pool` lists
// several. Each run goes to the in-service box with the least work, preferring boxes under their
// `max_running`; a box that stops answering (unreachable, 5xx, no answer in time) is out of
// service for 30 s alone, and the provider is down only while every box is. A job whose box
// failed twice in a row is resubmitted elsewhere (ComfyUI bills nothing; uploads redone there) and
// the engine follows its new id. Job ids say the box: `${box index}:${prompt id}`. What pools of
// every kind share (the `pool` field, health, the least-work choice, the check) is server-pool.ts's.
import { randomUUID } from "node:crypto";
import type { JsonObject } from "../common/json-fields";
import { MAX_RUNNING, parsePool as parseServerPool, ServerPool, type PoolServer } from "../common/server-pool";
import { ProviderError, type ProviderAdapter, type ProviderConfig, type ProviderRequest } from "../common/types";
import { comfyBox, type ComfyBox } from "./comfyui";
import type { ComfyEntryOptions } from "./comfyui-workflow";

/** Times one job may be moved to another box: a workflow that kills every box must not loop. */
export const MAX_MOVES = 2;
/** Reading a box's queue length before a submit: a box that hangs is left out quickly. */
const PROBE_MS = 5_000;

/**
 * `pool`: 1–64 `{base_url, max_running?}` (the prompts of ours a box may hold before others are
 * preferred: ComfyUI runs one at a time, more only queue there); base_url, when also given, must
 * be the first box's (server-pool.ts).
 */
export function parsePool(provider: JsonObject, path: string): { pool?: PoolServer[] } {
  return parseServerPool(provider, path, { baseUrl: "the ComfyUI server", noun: "box" });
}

interface Box {
  index: number;
  client: ComfyBox;
  health: ComfyBox["health"];
  maxRunning: number;
  /** Our prompts queued here and not yet done, canceled or moved. */
  jobs: Set<string>;
  /** Submits to this box still waiting for their prompt id. */
  reserved: number;
}

const inFlight = (box: Box) => box.jobs.size + box.reserved;

/** What a job needs to be queued again elsewhere: the request before any upload. */
interface JobRecord {
  original: ProviderRequest;
  moves: number;
}

const NOT_ABORTED = new AbortController().signal;

export function comfyPool(config: ProviderConfig): ProviderAdapter {
  // Names this server to ComfyUI (its websocket messages go to a client id); one per adapter.
  const clientId = `atelier-${randomUUID()}`;
  const settings = (config.options.pool as PoolServer[] | undefined) ?? [
    { baseUrl: config.baseUrl, maxRunning: MAX_RUNNING },
  ];
  const pool = new ServerPool<Box>(
    settings.map((s, index) => {
      const client = comfyBox(config, s.baseUrl, clientId);
      return { index, client, health: client.health, maxRunning: s.maxRunning, jobs: new Set<string>(), reserved: 0 };
    }),
    { noun: "box", nouns: "boxes", inFlight },
  );
  const boxes = pool.members;
  const health = pool.health;
  const jobs = new Map<string, JobRecord>();
  /** prepareRequest's uploads, by the request it answered: submit queues there. */
  const staged = new WeakMap<ProviderRequest, { box: Box; original: ProviderRequest }>();

  const inService = (box: Box) => pool.inService(box);
  const jobId = (box: Box, promptId: string) => `${box.index}:${promptId}`;
  const answered = (box: Box) => pool.answered(box);
  const onBox = <T>(box: Box, fn: () => Promise<T>) => pool.on(box, fn);
  const boxFailed = (err: unknown, box: Box) => pool.failed(err, box);

  /**
   * The box for a new prompt: in service and not in `exclude`; under its max_running if any is;
   * then the least work, ours in flight there or its own queue (GET /prompt's queue_remaining,
   * which counts our queued prompts too), whichever is more. Null when none answers.
   */
  async function choose(exclude: Set<Box>, signal: AbortSignal): Promise<Box | null> {
    const candidates = pool.candidates(exclude);
    if (candidates.length <= 1) return candidates[0] ?? null;
    const loads = await Promise.all(
      candidates.map((box) =>
        onBox(box, () => box.client.queueRemaining(signal, Math.min(config.timeoutMs, PROBE_MS))).then(
          (remaining) => ({ member: box, work: Math.max(remaining, box.jobs.size) + box.reserved }),
          () => {
            if (signal.aborted) throw signal.reason;
            return null;
          },
        ),
      ),
    );
    return pool.leastWork(loads.filter((load) => load !== null));
  }

  /**
   * Uploads and queues the request on a chosen box (or on `first`, where prepareRequest uploaded
   * it), trying the next box when one stops answering. The prompt is ours on the box it answers.
   */
  async function place(
    original: ProviderRequest,
    exclude: Set<Box>,
    signal: AbortSignal,
    first?: { box: Box; request: ProviderRequest },
  ): Promise<{ box: Box; promptId: string }> {
    let lastError: unknown = null;
    for (let attempt = 0; attempt < boxes.length; attempt++) {
      const box = attempt === 0 && first ? first.box : await choose(exclude, signal);
      if (!box) break;
      box.reserved++;
      try {
        const promptId = await onBox(box, async () =>
          box.client.queue(
            attempt === 0 && first ? first.request : await box.client.withUploads(original, signal),
            signal,
          ),
        );
        box.jobs.add(promptId);
        box.client.steps.watch(promptId);
        answered(box);
        return { box, promptId };
      } catch (err) {
        if (!boxFailed(err, box)) throw err;
        exclude.add(box);
        lastError = err;
      } finally {
        box.reserved--;
      }
    }
    throw lastError ?? noBox();
  }

  function noBox(): ProviderError {
    pool.settle();
    return new ProviderError(
      `The provider ${config.id} has no ComfyUI server in service: each stopped answering a moment ago. Try again later.`,
      true,
    );
  }

  function boxOf(id: string): { box: Box; promptId: string } {
    const colon = id.indexOf(":");
    const box = boxes[Number(id.slice(0, colon))];
    if (colon < 1 || !box) throw new ProviderError(`The provider ${config.id} does not know the job ${id}.`, false);
    return { box, promptId: id.slice(colon + 1) };
  }

  function forget(id: string): void {
    const { box, promptId } = boxOf(id);
    box.jobs.delete(promptId);
    box.client.steps.forget(promptId);
    jobs.delete(id);
  }

  /** The job's box stopped answering: queue it elsewhere (and take it off that box, if it hears). */
  async function move(id: string, record: JobRecord, from: Box): Promise<string> {
    // Never the run's signal: a prompt queued by an aborted request would run with nobody to stop it.
    const placed = await place(record.original, new Set([from]), NOT_ABORTED);
    const { promptId } = boxOf(id);
    forget(id);
    void from.client.cancel(promptId).catch(() => undefined);
    const moved = jobId(placed.box, placed.promptId);
    jobs.set(moved, { original: record.original, moves: record.moves + 1 });
    return moved;
  }

  const checkConnection = (signal: AbortSignal) => pool.checkEach((box) => box.client.describe(signal), signal);

  return {
    billsOnSubmit: false,
    health,
    checkConnection,
    // File inputs go up to the box the run will likely go to, while the run can still be canceled.
    async prepareRequest(request, signal) {
      const options = request.entry.options as unknown as ComfyEntryOptions;
      if (!options.fileFields.some((field) => typeof request.input[field] === "string")) return request;
      const exclude = new Set<Box>();
      for (;;) {
        const box = await choose(exclude, signal);
        if (!box) throw noBox();
        try {
          const uploaded = await onBox(box, () => box.client.withUploads(request, signal));
          answered(box);
          staged.set(uploaded, { box, original: request });
          return uploaded;
        } catch (err) {
          // Another box will do (submit uploads again anyway if this one is out by then).
          if (!boxFailed(err, box) || exclude.size + 1 >= boxes.length) throw err;
          exclude.add(box);
        }
      }
    },
    async submit(request, signal) {
      const prepared = staged.get(request);
      const original = prepared?.original ?? request;
      const first = prepared && inService(prepared.box) ? { box: prepared.box, request } : undefined;
      const { box, promptId } = await place(original, new Set(), signal, first);
      const id = jobId(box, promptId);
      jobs.set(id, { original, moves: 0 });
      return { kind: "pending", jobId: id };
    },
    async poll({ id, entry }, signal) {
      const { box, promptId } = boxOf(id);
      // One failure may be a hiccup; a box already out of service that fails again has gone.
      const wasOut = !inService(box);
      try {
        const result = await onBox(box, () => box.client.poll(promptId, entry, signal));
        answered(box);
        if (result.kind === "done") forget(id);
        return result.kind === "pending" ? { ...result, jobId: id } : result;
      } catch (err) {
        const record = jobs.get(id);
        if (!wasOut || !boxFailed(err, box) || !record || record.moves >= MAX_MOVES || signal.aborted) {
          if (!(err instanceof ProviderError && err.transient)) forget(id);
          throw err;
        }
        return { kind: "pending", jobId: await move(id, record, box) };
      }
    },
    async cancel({ id }) {
      const { box, promptId } = boxOf(id);
      forget(id);
      await box.client.cancel(promptId);
    },
  };
}
