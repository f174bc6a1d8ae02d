// The MCP tools: each one a few lines onto the same core verbs the /v1 routes call, with the
// caller's Ctx (source "mcp"), so money, idempotency, isolation and limits hold as over REST.
// Descriptions are written for a model to read.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { getModel, listModels, type Model } from "../../lib/core/catalog/catalog";
import type { Ctx } from "../../lib/core/context";
import { getCredits } from "../../lib/core/credits/credits";
import { ApiError } from "../../lib/primitives/errors";
import { createImageFile, keepOutputAsFile } from "../../lib/core/files/files";
import { isFinal, type Generation } from "../../lib/core/runs/generation-view";
import { cancelGeneration, createGeneration, getGeneration, listGenerations } from "../../lib/core/runs/generations";
import { LIMITS } from "../../lib/primitives/limits";
import { inKeyReaderSlot } from "../../lib/core/run-streams/open-readers";
import { priceLabel } from "../../lib/core/runs/pricing";
import { quoteRun } from "../../lib/core/runs/quotes";
import { generationResult } from "./generation-content";
import type { ToolName } from "./schemas";

export interface ToolCall {
  /** Ends when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Reports how long a run has been waited for, when the client asked for progress. */
  progress: ((done: number, total: number, message: string) => Promise<void>) | null;
}

export type ToolResult = CallToolResult;

export interface Tool {
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  run(ctx: Ctx, args: Record<string, unknown>, call: ToolCall): Promise<ToolResult>;
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function dataResult(data: object, text: string): ToolResult {
  return { content: [{ type: "text", text }], structuredContent: data as Record<string, unknown> };
}

/** How often a waiting call with a progress token reports while the run is not final. */
const PROGRESS_EVERY_SECONDS = 2;

/** "gen_…: queued, #3 in the queue" / "gen_…: running, 45 %": what a progress notification says. */
function runStatusLine(generation: Generation): string {
  const detail =
    generation.queue_position !== null
      ? generation.status === "queued"
        ? `, #${generation.queue_position} in the queue`
        : `, #${generation.queue_position} in the provider's queue`
      : generation.status === "running" && generation.progress !== null
        ? `, ${Math.round(generation.progress * 100)} %`
        : "";
  return `${generation.id}: ${generation.status}${detail}`;
}

/** Runs a call that may wait for a run in one of the key's open-reader slots, as Prefer: wait does (429 past the cap). */
function whileWaiting<T>(ctx: Ctx, waitSeconds: number, call: ToolCall, fn: () => Promise<T>): Promise<T> {
  return waitSeconds ? inKeyReaderSlot(ctx.actor.id, fn, call.signal) : fn();
}

/**
 * The run once final, or as it is after `waitSeconds`. Without a progress token it is one
 * event-driven wait (as Prefer: wait); with one, the wait is cut into slices that each report.
 */
async function waitForRun(ctx: Ctx, id: string, waitSeconds: number, call: ToolCall): Promise<Generation> {
  // A final run (or no wait) answers at once: getGeneration waits only for a run that is not final.
  if (!call.progress) return (await getGeneration(ctx, { id, waitSeconds })).generation;
  const started = Date.now();
  let generation = (await getGeneration(ctx, { id })).generation;
  for (;;) {
    const waited = (Date.now() - started) / 1000;
    await call.progress(Math.min(waited, waitSeconds), waitSeconds, runStatusLine(generation));
    const left = waitSeconds - waited;
    if (isFinal(generation.status) || left <= 0 || call.signal.aborted) return generation;
    generation = (await getGeneration(ctx, { id, waitSeconds: Math.min(left, PROGRESS_EVERY_SECONDS) })).generation;
  }
}

function modelSummary(model: Model) {
  return {
    id: model.id,
    name: model.name,
    modality: model.modality,
    tasks: model.tasks,
    price: priceLabel(model.pricing),
    available: model.availability.status === "available",
    deprecation: model.deprecation,
  };
}

/** Bare base64 or a data: URI → bytes; anything else is refused rather than decoded leniently. */
function decodeBase64Image(data: string): Buffer {
  const bare = data.replace(/^data:[\w.+-]+\/[\w.+-]+;base64,/i, "").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(bare) || bare.length % 4 === 1) {
    throw new ApiError(
      "invalid_parameter",
      "data must be the image in base64 (A–Z, a–z, 0–9, + and /), bare or as a data: URI.",
      { param: "data" },
    );
  }
  const bytes = Buffer.from(bare, "base64");
  if (bytes.length > LIMITS.imageUploadBytes) throw new ApiError("payload_too_large", "Images are at most 4 MB.");
  return bytes;
}

export const TOOLS: Record<ToolName, Tool> = {
  list_models: {
    title: "List models",
    description:
      "Lists the image, video, audio and 3D models and presets this workspace can run, with what each does and costs. Filter by modality, task or words. Then call get_model for a model's inputs, quote for an exact price, generate to run it.",
    annotations: READ,
    async run(ctx, args) {
      const search = typeof args.search === "string" ? args.search.toLowerCase() : null;
      const models = (await listModels(ctx)).data.filter(
        (m) =>
          (args.modality === undefined || m.modality === args.modality) &&
          (args.task === undefined || m.tasks.includes(args.task as string)) &&
          (search === null ||
            [m.id, m.name, m.creator, m.description].some((text) => text.toLowerCase().includes(search))),
      );
      const lines = models.map(
        (m) =>
          `${m.id} — ${m.name} (${m.modality}; ${m.tasks.join(", ")}) ${priceLabel(m.pricing)}${m.deprecation ? ` [deprecated, sunset ${m.deprecation.sunset_at}]` : ""}`,
      );
      return dataResult({ models: models.map(modelSummary) }, lines.length ? lines.join("\n") : "No model matches.");
    },
  },

  get_model: {
    title: "Get a model",
    description:
      "One model with its input_schema (a JSON Schema of the input that generate and quote take), price and availability.",
    annotations: READ,
    async run(ctx, args) {
      const model = await getModel(ctx, { id: args.id as string });
      return dataResult(model, JSON.stringify(model));
    },
  },

  quote: {
    title: "Price a run",
    description:
      "The exact cost of running a model with this input, and the amount held while it runs. Starts nothing and spends nothing. An invalid input is reported with the field at fault.",
    annotations: READ,
    async run(ctx, args) {
      const { quote } = await quoteRun(ctx, { model: args.model, input: args.input ?? {} });
      return dataResult(quote, `${quote.model} costs $${quote.cost_usd} (held while it runs: $${quote.hold_usd}).`);
    },
  },

  generate: {
    title: "Run a model",
    description: `Runs a model (or preset) with an input, spending the workspace's credit (the price is held, then charged only if it succeeds). Waits up to wait_seconds (default ${LIMITS.mcpDefaultWaitSeconds}) for the result: images come back as images, a short sound as audio, a video or a 3D model as its poster, each with a link to the full output. A run still going is returned with its id: call get_generation to wait for it. Send idempotency_key to retry safely.`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(ctx, args, call) {
      const key = args.idempotency_key as string | undefined;
      // The reader slot is taken before the run starts: a refused wait must not leave a run the agent never heard of.
      return whileWaiting(ctx, args.wait_seconds as number, call, async () => {
        const { generation } = await createGeneration(
          ctx,
          { model: args.model, input: args.input ?? {} },
          { idempotencyKey: key },
        );
        return generationResult(ctx, await waitForRun(ctx, generation.id, args.wait_seconds as number, call));
      });
    },
  },

  get_generation: {
    title: "Get a run",
    description:
      "A run by its id, with its outputs once it has succeeded. wait_seconds waits for it to finish first (up to 60).",
    annotations: READ,
    async run(ctx, args, call) {
      return whileWaiting(ctx, args.wait_seconds as number, call, async () =>
        generationResult(ctx, await waitForRun(ctx, args.id as string, args.wait_seconds as number, call)),
      );
    },
  },

  cancel_generation: {
    title: "Cancel a run",
    description:
      "Stops a queued or running run and releases its held credit; nothing is charged. Refused (conflict) once a run can no longer be stopped, for instance after a provider started billing. Safe to repeat.",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(ctx, args) {
      return generationResult(ctx, (await cancelGeneration(ctx, { id: args.id as string })).generation);
    },
  },

  list_generations: {
    title: "List runs",
    description:
      "The workspace's runs, newest first, with the same filters as GET /v1/generations (model, source, status, batch) and a cursor for the next page.",
    annotations: READ,
    async run(ctx, args) {
      const query = Object.fromEntries(Object.entries(args).map(([name, value]) => [name, String(value)]));
      const list = await listGenerations(ctx, query);
      const lines = list.data.map((g) => `${g.id} ${g.model} ${g.status} ${g.created_at}`);
      return dataResult(
        list,
        `${lines.join("\n") || "No runs."}${list.has_more ? `\nMore: call again with cursor "${list.next_cursor}".` : ""}`,
      );
    },
  },

  get_credits: {
    title: "Get credit",
    description:
      "The workspace's credit in US dollars: what is available to spend, and what is held for runs in progress.",
    annotations: READ,
    async run(ctx) {
      const credits = await getCredits(ctx);
      return dataResult(credits, `$${credits.available_usd} available, $${credits.held_usd} held.`);
    },
  },

  upload_image: {
    title: "Upload an image",
    description:
      "Stores an image (base64, at most 4 MB) as a workspace file and returns its id (file_…), to pass in a model input's image field.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(ctx, args) {
      const file = await createImageFile(ctx, {
        data: decodeBase64Image(args.data as string),
        filename: (args.filename as string | undefined) ?? null,
      });
      return dataResult(
        file,
        `Stored as ${file.id} (${file.content_type}, ${file.width}×${file.height}). Use "${file.id}" in a model's image field.`,
      );
    },
  },

  keep_output: {
    title: "Keep an output as a file",
    description:
      "Keeps an image output of a succeeded run as a workspace file (file_…) that does not expire with the run's links and can feed another run. Again for the same output → the same file.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(ctx, args) {
      const file = await keepOutputAsFile(ctx, { id: args.generation_id as string, index: String(args.index) });
      return dataResult(file, `Kept as ${file.id}.`);
    },
  },
};
