// Catalog card pictures: a real output of each built-in entry, made once by the model itself from
// its first example (else its schema's defaults), shrunk to a WebP thumbnail and kept in the blob
// store under a key derived from the entry's id, revision and example input, so a new revision or
// a new example makes a new one. Images show themselves, videos and 3D models their poster, sounds a waveform
// drawn by atelier/waveform. Making them writes no run and charges nothing: the model's run() is
// called directly with tools of its own. Remote entries never get one (a card must not call a
// paid provider); they keep their icon.
//
// The server starts one queue (`startExampleOutputs`, concurrency 1, after it listens), which has
// them made in a child process (lib/boot/example-picture-process.ts); the studio's pages, which may
// run in a bundled copy of this module, find it through globalThis, read which pictures exist, and
// ask for a missing one to come first.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import sharp from "sharp";
import type { PictureDirectory } from "../../blobs/picture-directory";
import { ModelError, type ModelDefinition, type ModelOutput, type RunTools, type StepFiles } from "./model-definition";
import { allCatalogEntries, findCatalogEntry, isBuiltInModel, isRetired } from "./catalog";
import { isFileField } from "./file-inputs";
import { validateModelInput } from "./input-validation";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { METRICS } from "../../primitives/metrics";

/** Bump when the way a picture is made changes, so every card picture is made again. */
const RENDER_VERSION = 1;
/** A card picture's size in pixels (16:10, the card's shape). */
export const EXAMPLE_THUMBNAIL_SIZE = 512;
export const EXAMPLE_THUMBNAIL_HEIGHT = 320;
/** Where the studio serves a card picture (app/api/examples/[file]/route.ts). */
export const EXAMPLE_PATH_PREFIX = "/api/examples/";

/** Stand-ins for file inputs: a picture or a sound this module makes (FILE_ID_PATTERN shaped). */
const SAMPLE_IMAGE_ID = "file_ExampleImage000000000000";
const SAMPLE_SOUND_ID = "file_ExampleSound000000000000";
/** The entries that make those stand-ins, and the one that draws a sound. */
const SAMPLE_IMAGE_MODEL = "atelier/artwork";
const SAMPLE_SOUND_MODEL = "atelier/music";
const WAVEFORM_MODEL = "atelier/waveform";

function sampleIdFor(schema: JsonSchemaObject): string | null {
  const type = String(schema.contentMediaType);
  if (type.startsWith("image/")) return SAMPLE_IMAGE_ID;
  if (type.startsWith("audio/")) return SAMPLE_SOUND_ID;
  return null;
}

function tryValidate(definition: ModelDefinition, input: Record<string, unknown>): Record<string, unknown> | null {
  try {
    return validateModelInput(definition.input_schema, input, { modelId: definition.id });
  } catch {
    return null;
  }
}

/**
 * The input a card picture is made from, validated with defaults filled: the first example; else
 * the schema's defaults, with required fields taken from their schema `examples` when that makes
 * a valid input. A required file input left empty gets a stand-in picture or sound. Null when no
 * valid input comes of it.
 */
export function exampleInputOf(definition: ModelDefinition): Record<string, unknown> | null {
  const properties = definition.input_schema.properties ?? {};
  const withSamples = (input: Record<string, unknown>) => {
    const filled = { ...input };
    for (const field of definition.input_schema.required ?? []) {
      const schema = properties[field];
      if (filled[field] !== undefined || !schema || !isFileField(schema)) continue;
      const sample = sampleIdFor(schema);
      if (sample) filled[field] = sample;
    }
    return filled;
  };
  const example = definition.examples?.[0]?.input;
  if (example) return tryValidate(definition, withSamples(example));
  const defaults = tryValidate(definition, withSamples({}));
  if (defaults) return defaults;
  const fromSchemaExamples: Record<string, unknown> = {};
  for (const field of definition.input_schema.required ?? []) {
    const sample = properties[field]?.examples?.[0];
    if (sample !== undefined) fromSchemaExamples[field] = sample;
  }
  return tryValidate(definition, withSamples(fromSchemaExamples));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

interface ExamplePlan {
  definition: ModelDefinition;
  input: Record<string, unknown>;
  /** 32 hex digits: a blob key (blob keys are 32 of [0-9A-Za-z]) only this picture ever uses. */
  key: string;
}

const plans = new WeakMap<ModelDefinition, ExamplePlan | null>();

/** Whether this entry gets a card picture: built in, not retired, with a valid example input. */
export function examplePlanOf(definition: ModelDefinition): ExamplePlan | null {
  if (plans.has(definition)) return plans.get(definition)!;
  let plan: ExamplePlan | null = null;
  if (isBuiltInModel(definition.id) && !isRetired(definition.lifecycle)) {
    const input = exampleInputOf(definition);
    if (input) {
      const key = createHash("sha256")
        .update(canonicalJson({ v: RENDER_VERSION, id: definition.id, revision: definition.revision, input }))
        .digest("hex")
        .slice(0, 32);
      plan = { definition, input, key };
    }
  }
  plans.set(definition, plan);
  return plan;
}

/** Whether `key` names the card picture of some catalog entry (the route serves nothing else). */
export function isExampleKey(key: string): boolean {
  return /^[0-9a-f]{32}$/.test(key) && allCatalogEntries().some((d) => examplePlanOf(d)?.key === key);
}

function planFor(modelId: string): ExamplePlan | null {
  const definition = allCatalogEntries().find((d) => d.id === modelId);
  return definition ? examplePlanOf(definition) : null;
}

function missingSomething(definition: ModelDefinition): boolean {
  return definition.missingInstall?.() != null || (definition.steps ?? []).some(missingSomething);
}

/** RunTools for a card picture: files from `files`, steps straight through the catalog, no run row. */
export function exampleRunTools(input: { signal: AbortSignal; ffmpegPath: string; files: StepFiles }): RunTools {
  const tools: RunTools = {
    signal: input.signal,
    ffmpegPath: input.ffmpegPath,
    async readFile(fileId) {
      const file = input.files[fileId];
      if (!file) throw new ModelError(`No sample file ${fileId} for a card picture.`);
      return file;
    },
    async runStep(modelId, stepInput, files) {
      input.signal.throwIfAborted();
      const { definition } = findCatalogEntry(modelId);
      const parent: RunTools = this ?? tools;
      const stepTools: RunTools = files
        ? { ...parent, readFile: async (id) => files[id] ?? parent.readFile(id) }
        : parent;
      return definition.run(validateModelInput(definition.input_schema, stepInput, { modelId }), stepTools);
    },
    async publishPreview() {},
    async markUncancelable() {},
    reportProgress() {},
    reportQueuePosition() {},
    async reportProviderHealth() {},
    reportProviderTime() {},
    reportAttempt() {},
  };
  return tools;
}

/** The picture's border colour when its edge is one plain colour (a QR code, a card, a waveform), else null. */
async function plainBorder(data: Buffer): Promise<{ r: number; g: number; b: number } | null> {
  const n = 32;
  const pixels = await sharp(data).removeAlpha().resize(n, n, { fit: "fill" }).raw().toBuffer();
  const ring: number[][] = [[], [], []];
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (x !== 0 && y !== 0 && x !== n - 1 && y !== n - 1) continue;
      for (let c = 0; c < 3; c++) ring[c]!.push(pixels[(y * n + x) * 3 + c]!);
    }
  }
  const means = ring.map((values) => values.reduce((a, b) => a + b, 0) / values.length);
  const spread = ring.map((values, c) =>
    Math.sqrt(values.reduce((a, v) => a + (v - means[c]!) ** 2, 0) / values.length),
  );
  if (Math.max(...spread) > 10) return null;
  const [r, g, b] = means.map(Math.round) as [number, number, number];
  return { r, g, b };
}

/**
 * The card's 16:10 picture. A picture with a plain border in another shape (a square QR code, a
 * tall story card, a wide waveform) sits whole on its border colour, so nothing is cut off; any
 * other fills the card, cropped to the middle, as a playground's cards do.
 */
async function thumbnail(data: Buffer): Promise<Buffer> {
  const [width, height] = [EXAMPLE_THUMBNAIL_SIZE, EXAMPLE_THUMBNAIL_HEIGHT];
  const meta = await sharp(data).metadata();
  const ratio = (meta.width ?? width) / (meta.height ?? height);
  const border = Math.abs(Math.log(ratio / (width / height))) < 0.12 ? null : await plainBorder(data);
  if (!border) return sharp(data).resize(width, height, { fit: "cover" }).webp({ quality: 82 }).toBuffer();
  const backdrop = await sharp({ create: { width, height, channels: 3, background: border } })
    .png()
    .toBuffer();
  const inset = Math.round(height * 0.06);
  const picture = await sharp(data)
    .resize(width - 2 * inset, height - 2 * inset, { fit: "inside" })
    .toBuffer();
  return sharp(backdrop)
    .composite([{ input: picture, gravity: "center" }])
    .webp({ quality: 82 })
    .toBuffer();
}

export interface ExampleMakerOptions {
  pictures: PictureDirectory;
  ffmpegPath: string;
  signal?: AbortSignal;
}

/** What makes a card picture for the queue: this thread's maker, or another process's. */
export interface ExampleMaker {
  /** Makes and stores the entry's card picture (again, if it exists); false when it gets none. */
  make(modelId: string): Promise<boolean>;
}

/**
 * Makes the card pictures of one process: `make(definition)` runs the model on its example input
 * and stores the thumbnail; stand-in files are made once and shared.
 */
export function createExampleMaker(options: ExampleMakerOptions) {
  const signal = options.signal ?? new AbortController().signal;
  const samples = new Map<string, Promise<StepFiles[string]>>();

  async function runPlan(plan: ExamplePlan, files: StepFiles = {}): Promise<ModelOutput[]> {
    const needed: StepFiles = { ...files };
    for (const value of Object.values(plan.input)) {
      if ((value === SAMPLE_IMAGE_ID || value === SAMPLE_SOUND_ID) && !needed[value])
        needed[value] = await sample(value);
    }
    return plan.definition.run(
      structuredClone(plan.input),
      exampleRunTools({ signal, ffmpegPath: options.ffmpegPath, files: needed }),
    );
  }

  function sample(id: string): Promise<StepFiles[string]> {
    let made = samples.get(id);
    if (!made) {
      made = (async () => {
        const plan = planFor(id === SAMPLE_IMAGE_ID ? SAMPLE_IMAGE_MODEL : SAMPLE_SOUND_MODEL);
        if (!plan || Object.values(plan.input).some((v) => v === SAMPLE_IMAGE_ID || v === SAMPLE_SOUND_ID)) {
          throw new ModelError(`No model to make a sample ${id === SAMPLE_IMAGE_ID ? "picture" : "sound"} with.`);
        }
        const [output] = await runPlan(plan);
        if (!output) throw new ModelError("The sample model made nothing.");
        return { data: output.data, contentType: output.content_type };
      })();
      made.catch(() => samples.delete(id));
      samples.set(id, made);
    }
    return made;
  }

  /** The still a card shows for an output: the image, the video's or 3D model's poster, the sound's waveform. */
  async function stillOf(output: ModelOutput): Promise<Buffer> {
    if (output.type === "image") return output.data;
    if (output.type === "video" || output.type === "3d") return output.poster.data;
    const waveform = planFor(WAVEFORM_MODEL);
    if (!waveform) throw new ModelError("No waveform model to draw a sound with.");
    const drawn = {
      ...waveform,
      input:
        tryValidate(waveform.definition, {
          ...waveform.input,
          audio: SAMPLE_SOUND_ID,
          width: 1024,
          height: 640,
          color: "#818cf8",
          background: "#18181b",
        }) ?? waveform.input,
    };
    const [image] = await runPlan(drawn, {
      [SAMPLE_SOUND_ID]: { data: output.data, contentType: output.content_type },
    });
    if (!image || image.type !== "image") throw new ModelError("The waveform model drew nothing.");
    return image.data;
  }

  return {
    /** Whether the entry's card picture is stored. */
    has(definition: ModelDefinition): boolean {
      const plan = examplePlanOf(definition);
      return plan !== null && existsSync(options.pictures.pathOf(plan.key));
    },
    /** Makes and stores the entry's card picture (again, if it exists); false when it gets none. */
    async make(definition: ModelDefinition): Promise<boolean> {
      const plan = examplePlanOf(definition);
      if (!plan || missingSomething(definition)) return false;
      const [first] = await runPlan(plan);
      if (!first) throw new ModelError(`${definition.id} made no output for its example.`);
      const data = await thumbnail(await stillOf(first));
      const file = options.pictures.pathOf(plan.key);
      await mkdir(path.dirname(file), { recursive: true });
      // Write then rename, so a reader never sees half a picture.
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, data);
      await rename(temporary, file);
      return true;
    },
  };
}

/** What the studio asks of the process's maker (through globalThis: Next may bundle its own copy of this module). */
interface ExampleQueue {
  /** Puts the entry first in line, unless it is made, being made or failed. */
  request(modelId: string): void;
  /** Whether the entry's picture is waiting or being made. */
  pending(modelId: string): boolean;
}

const holder = globalThis as { atelierExampleQueue?: ExampleQueue };

/**
 * Starts making every missing card picture one at a time, after `delayMs` (the server calls this
 * once it listens, so nothing waits for it). Stop it before the process exits.
 */
export function startExampleOutputs(input: {
  pictures: PictureDirectory;
  ffmpegPath: string;
  logger?: Pick<Logger, "warn" | "info">;
  delayMs?: number;
  /** Queue every entry at start (default); false makes pictures only when a page asks. */
  warm?: boolean;
  /** Who makes them (the server: a thread of their own); by default this thread, on its event loop. */
  maker?: ExampleMaker;
  /** Hears each entry that gets no picture (the studio's thread stops waiting for it). */
  onFailed?: (modelId: string) => void;
}): { stop(): Promise<void>; idle(): Promise<void> } {
  const abort = new AbortController();
  const maker = createExampleMaker({ pictures: input.pictures, ffmpegPath: input.ffmpegPath, signal: abort.signal });
  const make = (definition: ModelDefinition) =>
    input.maker ? input.maker.make(definition.id) : maker.make(definition);
  const queue: string[] = [];
  const failed = new Set<string>();
  let current: string | null = null;
  let started = false;
  let working: Promise<void> = Promise.resolve();
  let idleWaiters: Array<() => void> = [];

  const wanted = (modelId: string) => {
    const plan = planFor(modelId);
    return plan !== null && !failed.has(modelId) && current !== modelId && !maker.has(plan.definition);
  };

  const pump = () => {
    METRICS.examplePicturesWaiting.set(queue.length + (current === null ? 0 : 1));
    if (!started || current !== null || abort.signal.aborted) return;
    const next = queue.shift();
    if (next === undefined) {
      const waiters = idleWaiters;
      idleWaiters = [];
      waiters.forEach((w) => w());
      return;
    }
    const plan = planFor(next);
    if (!plan || !wanted(next)) return void setImmediate(pump);
    current = next;
    const began = Date.now();
    working = make(plan.definition)
      .then((made) => {
        if (made) input.logger?.info({ model: next, ms: Date.now() - began }, "made the catalog card picture");
        else {
          failed.add(next);
          input.onFailed?.(next);
        }
      })
      .catch((err: unknown) => {
        failed.add(next);
        input.onFailed?.(next);
        if (!abort.signal.aborted)
          input.logger?.warn(
            { model: next, err: err instanceof Error ? err.message : String(err) },
            "could not make the catalog card picture; the card keeps its icon",
          );
      })
      .finally(() => {
        current = null;
        METRICS.examplePicturesWaiting.set(queue.length);
        // Let requests in between: one picture, then the server's own work.
        setImmediate(pump);
      });
  };

  const enqueue = (modelId: string, first: boolean) => {
    if (!wanted(modelId)) return;
    const at = queue.indexOf(modelId);
    if (at >= 0) {
      if (!first) return;
      queue.splice(at, 1);
    }
    if (first) queue.unshift(modelId);
    else queue.push(modelId);
    pump();
  };

  const mine: ExampleQueue = {
    request: (modelId) => enqueue(modelId, true),
    pending: (modelId) => current === modelId || queue.includes(modelId),
  };
  holder.atelierExampleQueue = mine;
  if (input.warm ?? true) {
    for (const definition of allCatalogEntries()) enqueue(definition.id, false);
  }
  const timer = setTimeout(() => {
    started = true;
    pump();
  }, input.delayMs ?? 0);
  timer.unref();

  return {
    async stop() {
      clearTimeout(timer);
      abort.abort();
      queue.length = 0;
      if (holder.atelierExampleQueue === mine) delete holder.atelierExampleQueue;
      await working.catch(() => undefined);
    },
    idle() {
      if (current === null && queue.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}

/**
 * For a catalog page: the address of each entry's stored card picture, and whether some are still
 * being made (the page looks again later). A missing one is asked for first in line.
 */
export function catalogCardImages(
  pictures: PictureDirectory,
  modelIds: readonly string[],
): { images: Record<string, string>; making: boolean } {
  const images: Record<string, string> = {};
  let making = false;
  const queue = holder.atelierExampleQueue;
  const missing: string[] = [];
  for (const id of modelIds) {
    const plan = planFor(id);
    if (!plan) continue;
    if (existsSync(pictures.pathOf(plan.key))) images[id] = `${EXAMPLE_PATH_PREFIX}${plan.key}.webp`;
    else missing.push(id);
  }
  if (queue) {
    // Last asked is first in line: ask from the end, so they come in the page's order.
    for (const id of missing.toReversed()) queue.request(id);
    making = missing.some((id) => queue.pending(id));
  }
  return { images, making };
}
