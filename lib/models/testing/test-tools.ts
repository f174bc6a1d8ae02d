// RunTools for a model's unit tests: real files from a map, real ffmpeg, steps run through the
// real catalog with validated input, and previews, the cancel point, progress, provider queue
// places, provider health reports and provider times recorded for assertions.
import { defaultFfmpegPath } from "../../media/ffmpeg";
import type {
  ImageOutput,
  ModelDefinition,
  ModelOutput,
  RouteAttempt,
  RunTools,
} from "../../core/catalog/model-definition";
import { validateModelInput } from "../../core/catalog/input-validation";

export interface TestTools extends RunTools {
  previews: ImageOutput[];
  uncancelableReasons: string[];
  steps: string[];
  /** Every progress value the run reported, in order (unthrottled). */
  progress: number[];
  /** Every place in its provider's queue the run reported (null: cleared), in order. */
  queuePositions: Array<number | null>;
  /** What the run told of its remote provider's health, in order. */
  providerReports: Array<{ providerId: string; down: { until: string; reason: string } | null }>;
  /** The provider times the run reported (seconds), in order. */
  providerTimes: number[];
  /** A routed entry's attempts, in order. */
  attempts: RouteAttempt[];
}

export function testRunTools(
  options: {
    files?: Record<string, { data: Buffer; contentType: string }>;
    ffmpegPath?: string;
    signal?: AbortSignal;
    /** Entries `runStep` may call (presets); looked up by id. */
    models?: readonly ModelDefinition[];
  } = {},
): TestTools {
  const tools: TestTools = {
    signal: options.signal ?? new AbortController().signal,
    ffmpegPath: options.ffmpegPath ?? defaultFfmpegPath(process.env.PATH ?? ""),
    previews: [],
    uncancelableReasons: [],
    steps: [],
    progress: [],
    queuePositions: [],
    attempts: [],
    providerReports: [],
    providerTimes: [],
    async readFile(fileId) {
      const file = options.files?.[fileId];
      if (!file) throw new Error(`test tools: no file ${fileId}`);
      return file;
    },
    async runStep(modelId, input, files): Promise<ModelOutput[]> {
      const model = options.models?.find((m) => m.id === modelId);
      if (!model) throw new Error(`test tools: no step model ${modelId}`);
      tools.steps.push(modelId);
      // As the engine does: the step gets the tools runStep was called on (stepProgress scales them).
      const parent: RunTools = this ?? tools;
      const stepTools: RunTools = files
        ? { ...parent, readFile: async (id) => files[id] ?? parent.readFile(id) }
        : parent;
      return model.run(validateModelInput(model.input_schema, input, { modelId }), stepTools);
    },
    async publishPreview(preview) {
      tools.previews.push(preview);
      tools.uncancelableReasons.push("preview");
    },
    async markUncancelable(reason) {
      tools.uncancelableReasons.push(reason);
    },
    reportProgress(fraction) {
      tools.progress.push(fraction);
    },
    reportQueuePosition(position) {
      tools.queuePositions.push(position);
    },
    async reportProviderHealth(providerId, down) {
      tools.providerReports.push({ providerId, down });
    },
    reportProviderTime(seconds) {
      tools.providerTimes.push(seconds);
    },
    reportAttempt(attempt) {
      tools.attempts.push(attempt);
    },
  };
  return tools;
}

/** Validates `input` against the model's schema (defaults filled) and runs it with test tools. */
export async function runModelForTest(
  model: ModelDefinition,
  input: Record<string, unknown>,
  tools: TestTools = testRunTools(),
): Promise<ModelOutput[]> {
  return model.run(validateModelInput(model.input_schema, input, { modelId: model.id }), tools);
}
