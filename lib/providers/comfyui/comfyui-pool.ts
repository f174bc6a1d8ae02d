// A ComfyUI provider is a pool of boxes (issue 38): `base_url` alone is a pool of one, `pool` lists
// several. Each run goes to the in-service box with the least work, preferring boxes under their
// `max_running`; a box that stops answering (unreachable, 5xx, no answer in time) is out of
// service for 30 s alone, and the provider is down only while every box is. A job whose box
// failed twice in a row is resubmitted elsewhere (ComfyUI bills nothing; uploads redone there) and
// the engine follows its new id. Job ids say the box: `${box index}:${prompt id}`.
import { randomUUID } from "node:crypto";
import { createHealth, isDown, markUp } from "../common/health";
import { arrayAt, fail, integerAt, objectAt, parseBaseUrl, stringAt, type JsonObject } from "../common/json-fields";
import { ProviderError, type ProviderAdapter, type ProviderConfig, type ProviderRequest } from "../common/types";
import { comfyBox, type ComfyBox } from "./comfyui";
import type { ComfyEntryOptions } from "./comfyui-workflow";

export const MAX_BOXES = 64;
export const MAX_RUNNING = 64;
/** Times one job may be moved to another box: a workflow that kills every box must not loop. */
export const MAX_MOVES = 2;
/** Reading a box's queue length before a submit: a box that hangs is left out quickly. */
const PROBE_MS = 5_000;

export interface PoolBox {
  baseUrl: string;
  /** Our prompts the box may hold before others are preferred (ComfyUI runs one at a time; more only queue there). */
  maxRunning: number;
}

/** `pool`: 1–64 `{base_url, max_running?}`; base_url, when also given, must be the first box's. */
export function parsePool(provider: JsonObject, path: string): { pool?: PoolBox[] } {
  if (provider.pool === undefined) {
    if (provider.base_url === undefined)
      fail(`${path}.base_url`, "is required (the ComfyUI server), unless pool lists the servers.");
    return {};
  }
  const pool = arrayAt(provider.pool, `${path}.pool`, { min: 1, max: MAX_BOXES }).map((value, i) => {
    const at = `${path}.pool[${i}]`;
    const box = objectAt(value, at, ["base_url", "max_running"]);
    const raw = stringAt(box, "base_url", at);
    if (raw.includes("\u0000")) fail(`${at}.base_url`, "must not contain a NUL character (\\u0000).");
    return {
      baseUrl: parseBaseUrl(raw, `${at}.base_url`),
      maxRunning: integerAt(box, "max_running", at, { fallback: 1, min: 1, max: MAX_RUNNING }),
    };
  });
  // base_url may stay (tools that show one URL read it) but must not name another server.
  if (provider.base_url !== undefined && String(provider.base_url).replace(/\/+$/, "") !== pool[0]!.baseUrl)
    fail(`${path}.base_url`, `must be left out or be the first box of pool (${pool[0]!.baseUrl}).`);
  return { pool };
}

interface Box {
  index: number;
  client: ComfyBox;
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
  const health = createHealth();
  // Names this server to ComfyUI (its websocket messages go to a client id); one per adapter.
  const clientId = `atelier-${randomUUID()}`;
  const settings = (config.options.pool as PoolBox[] | undefined) ?? [
    { baseUrl: config.baseUrl, maxRunning: MAX_RUNNING },
  ];
  const boxes: Box[] = settings.map((s, index) => ({
    index,
    client: comfyBox(config, s.baseUrl, clientId),
    maxRunning: s.maxRunning,
    jobs: new Set(),
    reserved: 0,
  }));
  const jobs = new Map<string, JobRecord>();
  /** prepareRequest's uploads, by the request it answered: submit queues there. */
  const staged = new WeakMap<ProviderRequest, { box: Box; original: ProviderRequest }>();

  const inService = (box: Box) => !isDown(box.client.health);
  const jobId = (box: Box, promptId: string) => `${box.index}:${promptId}`;

  /** After a box failed: the provider is down, until the first box is back, once every box is out. */
  function settle(): void {
    if (boxes.some(inService)) return;
    const last = boxes
      .map((box) => ({ box, failure: box.client.health.lastFailure }))
      .filter((b) => b.failure)
      .sort((a, b) => b.failure!.at.localeCompare(a.failure!.at))[0];
    const message = last?.failure?.message ?? "no box answers";
    health.lastFailure = {
      at: last?.failure?.at ?? new Date().toISOString(),
      message: boxes.length === 1 ? message : `every box is out of service; box ${last!.box.index + 1}: ${message}`,
    };
    health.downUntil = Math.min(...boxes.map((box) => box.client.health.downUntil ?? Date.now()));
  }

  function answered(box: Box): void {
    markUp(box.client.health);
    markUp(health);
  }

  /** Runs `fn` on the box; a failure that took the box out of service may take the provider out too. */
  async function onBox<T>(box: Box, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      if (!inService(box)) settle();
    }
  }

  /** The error took the box out of service (it stopped answering), rather than refusing this run. */
  const boxFailed = (err: unknown, box: Box) => err instanceof ProviderError && err.transient && !inService(box);

  /**
   * The box for a new prompt: in service and not in `exclude`; under its max_running if any is;
   * then the least work, ours in flight there or its own queue (GET /prompt's queue_remaining,
   * which counts our queued prompts too), whichever is more. Null when none answers.
   */
  async function choose(exclude: Set<Box>, signal: AbortSignal): Promise<Box | null> {
    let candidates = boxes.filter((box) => !exclude.has(box) && inService(box));
    // Every box out, yet the provider up: an operator's passed connection check ended the outage.
    if (candidates.length === 0 && !isDown(health)) candidates = boxes.filter((box) => !exclude.has(box));
    if (candidates.length <= 1) return candidates[0] ?? null;
    const loads = await Promise.all(
      candidates.map((box) =>
        onBox(box, () => box.client.queueRemaining(signal, Math.min(config.timeoutMs, PROBE_MS))).then(
          (remaining) => ({ box, work: Math.max(remaining, box.jobs.size) + box.reserved }),
          () => {
            if (signal.aborted) throw signal.reason;
            return null;
          },
        ),
      ),
    );
    const answering = loads.filter((load) => load !== null);
    const open = answering.filter((load) => inFlight(load.box) < load.box.maxRunning);
    const ranked = (open.length > 0 ? open : answering).sort(
      (a, b) => a.work - b.work || inFlight(a.box) - inFlight(b.box) || a.box.index - b.box.index,
    );
    return ranked[0]?.box ?? null;
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
    settle();
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

  async function checkConnection(signal: AbortSignal): Promise<string> {
    if (boxes.length === 1) {
      const [box] = boxes as [Box];
      const detail = await onBox(box, () => box.client.describe(signal));
      answered(box);
      return detail;
    }
    const reads = await Promise.allSettled(boxes.map((box) => onBox(box, () => box.client.describe(signal))));
    signal.throwIfAborted();
    const up = reads.filter((read) => read.status === "fulfilled").length;
    if (up === 0) throw (reads[0] as PromiseRejectedResult).reason;
    markUp(health);
    const parts = reads.map((read, i) => {
      if (read.status === "fulfilled") {
        markUp(boxes[i]!.client.health);
        return `box ${i + 1} (${read.value})`;
      }
      const failure = boxes[i]!.client.health.lastFailure?.message ?? (read.reason as Error)?.message;
      return `box ${i + 1} does not answer (${failure})`;
    });
    return `${up} of ${boxes.length} boxes answer: ${parts.join("; ")}`;
  }

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
