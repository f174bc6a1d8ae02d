// What a model module exports (docs/models-and-presets.md, "Add a model"). The catalog is the list of these.
import type { JsonSchemaObject } from "../../primitives/json-schema";
import type { ModelLifecycle, ModelPricing, PriceOverride } from "./model-shape";

/** The kinds of output a catalog entry makes: its `modality`, and an output item's `type`. */
export const MODALITIES = ["image", "video", "audio", "3d"] as const;
export type Modality = (typeof MODALITIES)[number];

/** Catalog maturity. Lifecycle (deprecated, retired) is told by `lifecycle`, not here. */
export type ModelStatus = "stable" | "beta";

/** Price and lifecycle are public as they are written here: their shapes are model-shape.ts's. */
export type { ModelLifecycle, ModelPricing, PriceOverride };

export interface ImageOutput {
  type: "image";
  content_type: string;
  data: Buffer;
  width: number;
  height: number;
}

export interface VideoOutput {
  type: "video";
  /** Always "video/mp4" (H.264) for the built-in models. */
  content_type: string;
  data: Buffer;
  width: number;
  height: number;
  /** Seconds. */
  duration: number;
  /** A still of the video, shown before it plays. */
  poster: { content_type: string; data: Buffer; width: number; height: number };
}

export interface AudioOutput {
  type: "audio";
  /** "audio/wav" or "audio/mpeg". */
  content_type: string;
  data: Buffer;
  /** Seconds. */
  duration: number;
}

export interface ThreeDOutput {
  type: "3d";
  /** Always "model/gltf-binary": one glTF 2.0 binary (.glb). */
  content_type: "model/gltf-binary";
  data: Buffer;
  /** Vertices over all primitives: what a glTF loader reports (the sum of POSITION accessor counts). */
  vertices: number;
  /** Triangles over all primitives. */
  triangles: number;
  /** Metres, world space: the POSITION accessors' min/max after node transforms. */
  bounding_box: { min: [number, number, number]; max: [number, number, number] };
  /** A rendered still of the model, shown in lists and cards as a video's poster is. */
  poster: { content_type: string; data: Buffer; width: number; height: number };
}

export type ModelOutput = ImageOutput | VideoOutput | AudioOutput | ThreeDOutput;

/**
 * What a run of a remote entry costs the operators upstream (the providers file's `cost`): per
 * unit, priced from the input like `pricing`, or per second of provider time. Ops-only: it is never
 * part of the catalog, a Generation or anything a workspace reads (lib/core/runs/provider-cost.ts).
 */
export type ProviderCost = { per: "unit"; pricing: ModelPricing } | { per: "second"; usd: string };

/**
 * Bytes a step's file inputs may name besides the workspace's files: how a preset hands one
 * step's output to the next without storing it as a file. Keys must look like file IDs.
 */
export type StepFiles = Record<string, { data: Buffer; contentType: string }>;

export interface RunTools {
  /** Aborted when the run is canceled or the worker shuts down: stop work and child processes. */
  signal: AbortSignal;
  /** The bytes of a workspace file named by a file input (already checked to exist). */
  readFile(fileId: string): Promise<{ data: Buffer; contentType: string }>;
  /** The ffmpeg binary to run: the system one when present, else the one an npm package ships. */
  ffmpegPath: string;
  /**
   * Runs another catalog entry as one step of this run (presets): its input is validated with
   * defaults filled, like a request's, and its outputs come back unstored. The step runs with the
   * tools this is called on, so `stepProgress(tools, from, to).runStep(…)` (lib/models/progress.ts)
   * maps the step's progress into its share of the run.
   */
  runStep(modelId: string, input: Record<string, unknown>, files?: StepFiles): Promise<ModelOutput[]>;
  /**
   * Shows a first image of a run that is still going (presets). From then on the run can no
   * longer be canceled (docs/api.md, "Previews and the cancel point"): cancel answers 409 and the run goes on.
   */
  publishPreview(preview: ImageOutput): Promise<void>;
  /** The point past which cancel cannot stop the spending (a remote provider bills once submitted). */
  markUncancelable(reason: string): Promise<void>;
  /**
   * How far the run is, from 0 to 1 (ffmpeg's progress, rendering, a preset's steps, a provider's
   * report). Cheap to call often: it never writes to the store, and followers hear at most a few
   * updates a second; a value below one already reported is ignored.
   */
  reportProgress(fraction: number): void;
  /**
   * Where the run waits in its remote provider's own queue (fal's `queue_position`: 0 = next
   * there), shown as the running run's `queue_position`; null once it no longer waits there (the
   * provider started it). Held in memory like progress: cheap to call on every poll.
   */
  reportQueuePosition(position: number | null): void;
  /**
   * Shares what this run learnt of its remote provider with every process on the store: down
   * until `down.until` (ISO 8601) and why, or back up (null). The catalog, quotes and queued runs
   * everywhere then see it (lib/providers/common/health.ts keeps only this process's view).
   */
  reportProviderHealth(providerId: string, down: { until: string; reason: string } | null): Promise<void>;
  /**
   * The seconds of provider time the provider says this run took (Replicate's
   * `metrics.predict_time`): what a per-second `cost` is counted on. Ops' figure only.
   */
  reportProviderTime(seconds: number): void;
  /**
   * One try of a routed entry's targets (lib/providers/common/route-run.ts): kept with the run
   * for its page and the ops run page, never in the public Generation; the last succeeded one
   * names the run's `provider`.
   */
  reportAttempt(attempt: RouteAttempt): void;
  /**
   * Push from a remote provider (docs/providers.md, "Push and polling"): the URL a provider that
   * offers webhooks is given for this run's job, and the nudges webhooks there make, heard from
   * whichever process received them. A nudge says only "look now": the job's state is what a poll
   * reads. Absent when the server has no PUBLIC_BASE_URL: jobs are only polled.
   */
  providerPush?: ProviderPush;
}

export interface ProviderPush {
  /** POST {PUBLIC_BASE_URL}/v1/provider-webhooks/{run_id}?token=… (lib/core/runs/provider-webhooks.ts). */
  url: string;
  /** Calls `listener` at each webhook for this run; returns the unsubscribe. */
  onNudge(listener: () => void): () => void;
}

/** A routed run's try of one target: which, how it ended, when and how long. */
export interface RouteAttempt {
  /** The target's provider id. */
  provider: string;
  upstream_model: string;
  outcome: "succeeded" | "failed" | "skipped";
  /** Why it failed or was passed over (out of service); null when it succeeded. */
  reason: string | null;
  started_at: string;
  ms: number;
}

export interface ModelExample {
  title: string;
  /** A valid input (the schema's defaults fill the rest). */
  input: Record<string, unknown>;
}

/** Field → enum value (as a string) → the label the studio shows for it. */
export type EnumLabels = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface ModelDefinition {
  /** `<creator>/<name>`, or `<creator>/<name>@<version>` for a preset. */
  id: string;
  type: "model" | "preset";
  name: string;
  creator: string;
  modality: Modality;
  tasks: string[];
  description: string;
  /** Date of the model's current behaviour, YYYY-MM-DD. */
  revision: string;
  status: ModelStatus;
  pricing: ModelPricing;
  /** A remote entry's upstream cost, when its file declares one; ops-only, never in the catalog. */
  cost?: ProviderCost;
  lifecycle: ModelLifecycle | null;
  input_schema: JsonSchemaObject;
  /**
   * Inputs that work and show what the model does, each with a short title ("Neon city at
   * night"); the first is what the studio's form opens with and what the catalog card shows.
   */
  examples?: readonly ModelExample[];
  /**
   * Readable names for enum values, for the studio's form only (the API's schema is unchanged):
   * field → value (as a string) → label, e.g. `{ motion: { "zoom-in": "Zoom in" } }`.
   */
  enumLabels?: EnumLabels;
  /** Who runs it, shown as the run's `provider`: "atelier" for built-ins, else the remote provider's id. */
  provider?: string;
  /**
   * Every provider that may serve it, for a routed entry (`routes`): an outage the store records
   * takes it out of service only when every one of them is down.
   */
  routeProviders?: readonly string[];
  /**
   * Presets: the entries it runs as steps (`tools.runStep`). While any of them is out of service
   * the preset is too, so quotes and runs answer 503 instead of failing half-way.
   */
  steps?: readonly ModelDefinition[];
  /**
   * Null when it can run here now; else why not, for a while (a remote provider found down): its
   * catalog entry says out_of_service, quotes and runs get 503 with Retry-After. Something missing
   * from this install is `missingInstall`, never this.
   */
  unavailableReason?(): { message: string; until: string | null } | null;
  /**
   * Null when everything it needs is installed on this server; else what is missing (`what`, e.g.
   * "the espeak-ng program") and how to install it (`install`, e.g. "apt-get install espeak-ng").
   * A fact about the install, not an outage: its catalog entry says not_installed, and quotes
   * and runs get 503 without Retry-After and a message naming the fix.
   */
  missingInstall?(): { what: string; install: string } | null;
  run(input: Record<string, unknown>, tools: RunTools): Promise<ModelOutput[]>;
}

/** A model's own refusal or failure, with a message fit to show the person who ran it. */
export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelError";
  }
}
