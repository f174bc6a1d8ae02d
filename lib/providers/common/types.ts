// What a remote provider adapter offers (lib/providers): maybe prepare a request (unbilled work,
// before the run's cancel point), submit it, poll a job, maybe cancel it, and a health record the
// catalog reads to answer 503 while the provider is down.
import type {
  ModelExample,
  ModelLifecycle,
  ModelOutput,
  ModelPricing,
  ModelStatus,
  Modality,
  ProviderCost,
} from "../../core/catalog/model-definition";
import { ModelError } from "../../core/catalog/model-definition";
import type { JsonSchemaObject } from "../../primitives/json-schema";

/** One catalog entry served by a provider, as read from the providers file. */
/** How a routed entry picks its target (docs/providers.md, "Routes and failover"). */
export const ROUTE_POLICIES = ["ordered", "weighted", "cheapest", "fastest"] as const;
export type RoutePolicy = (typeof ROUTE_POLICIES)[number];

/** One more provider serving an entry: its upstream model, its kind's fields, its cost, its weight. */
export interface RouteTarget {
  providerId: string;
  upstreamModel: string;
  /** The target kind's entry fields, parsed (as RemoteEntryConfig.options). */
  options: Record<string, unknown>;
  cost: ProviderCost | null;
  weight: number;
}

export interface EntryRoutes {
  policy: RoutePolicy;
  /** The entry's own provider's weight under "weighted". */
  weight: number;
  /** The targets besides the entry's own provider, in the order given. */
  targets: RouteTarget[];
}

export interface RemoteEntryConfig {
  /** Catalog id, `<creator>/<name>`; never `atelier/…`. */
  id: string;
  /** The model name the provider knows it by ("" for kinds that have none, such as a ComfyUI workflow). */
  upstreamModel: string;
  name: string;
  creator: string;
  description: string;
  modality: Modality;
  tasks: string[];
  revision: string;
  status: ModelStatus;
  lifecycle: ModelLifecycle | null;
  inputSchema: JsonSchemaObject;
  pricing: ModelPricing;
  /** What a run costs upstream (`cost`), ops-only; null or absent when the file declares none. */
  cost?: ProviderCost | null;
  /** Inputs the model page offers (`examples`), each valid against inputSchema; absent when none. */
  examples?: ModelExample[];
  /** What the entry's kind-specific fields parsed to (ProviderKind.parseEntry); {} when it has none. */
  options: Record<string, unknown>;
  /** Other providers that serve it too (`routes`); absent: its own provider only. */
  routes?: EntryRoutes;
}

export interface ProviderConfig {
  /** Shown as a run's `provider`. */
  id: string;
  /** Which adapter speaks to it (its protocol): a key of PROVIDER_KINDS (lib/providers/kinds.ts). */
  kind: string;
  /** Without a trailing slash. */
  baseUrl: string;
  /** Resolved from `api_key_env`; null when the provider needs no key. */
  apiKey: string | null;
  /** Limit for one call to the provider, fetching its results included. */
  timeoutMs: number;
  /** How long a queued job (ComfyUI, Replicate, fal…) may take before it is given up; null for the engine's default. */
  jobTimeoutMs: number | null;
  /** What the provider's kind-specific fields parsed to (ProviderKind.parseProvider); {} when it has none. */
  options: Record<string, unknown>;
  entries: RemoteEntryConfig[];
}

export interface ProviderRequest {
  upstreamModel: string;
  /** The validated input, defaults filled. */
  input: Record<string, unknown>;
  /** The entry being run (its kind-specific `options` included). */
  entry: RemoteEntryConfig;
  /** The bytes of a workspace file named by a file input (`file_…`), to send to the provider. */
  readFile(fileId: string): Promise<{ data: Buffer; contentType: string }>;
  /**
   * Where the provider may push news of the job (a webhook URL under PUBLIC_BASE_URL; absent:
   * none, the job is only polled). An adapter whose provider offers webhooks hands it on with the
   * submit; what arrives there only makes the engine poll sooner (docs/providers.md, "Push and polling").
   */
  webhookUrl?: string;
}

/**
 * A provider's output as fetched: bytes and the type the provider said (null when it said none).
 * The remote entry measures it (lib/providers/common/measure-output.ts: an image's size, a video's size,
 * duration and poster, a sound's duration) into a ModelOutput of the entry's modality, so
 * adapters never probe media themselves.
 */
export interface FetchedOutput {
  type: "file";
  data: Buffer;
  content_type: string | null;
}

/**
 * Outputs are fetched into memory (never a provider's URL: it expires and names the provider);
 * the engine stores them in blobs.
 */
export type ProviderResult =
  | {
      kind: "done";
      outputs: Array<ModelOutput | FetchedOutput>;
      /** Seconds of provider time the provider reported for the job (Replicate's `metrics.predict_time`), when it did. */
      providerSeconds?: number | null;
    }
  /** `started`: the provider now bills this job even if it is canceled (fal IN_PROGRESS); the run passes its cancel point. */
  | {
      kind: "pending";
      jobId: string;
      started?: boolean;
      /** How far the job is, 0 to 1, when the provider tells (its logs). */ progress?: number | null;
      /**
       * The job's place in the provider's own queue while it waits there (fal IN_QUEUE's
       * `queue_position`: 0 = next), when the provider tells; the run shows it as its queue_position.
       */
      queuePosition?: number | null;
    };

export interface ProviderHealth {
  lastFailure: { at: string; message: string } | null;
  /** Epoch milliseconds until which the provider is treated as down; null when it is not. */
  downUntil: number | null;
}

/**
 * A submitted job as the engine asks about it: the provider's id for it and the entry it runs,
 * at the revision the run was created with. The entry comes from the run, never from the
 * adapter's own config: an adapter outlives catalog edits (it keeps its health), so the entries
 * it was built with may be older or fewer than the run's.
 */
export interface ProviderJob {
  id: string;
  entry: RemoteEntryConfig;
}

export interface ProviderAdapter {
  /** True when a submitted request is billed whether or not it is canceled later. */
  readonly billsOnSubmit: boolean;
  /** Shared by every entry of the provider. */
  readonly health: ProviderHealth;
  /**
   * Optional: what must happen before the request can be sent and is not billed, such as putting
   * large file inputs in the provider's storage. The run does it BEFORE its cancel point, so a
   * cancel meanwhile still cancels the run (nothing charged, the hold released); the signal is the
   * run's, and aborting it must abort the work. What it answers is the request `submit` is then
   * given, and sent as it is: `input` in the provider's own terms (file ids replaced).
   */
  prepareRequest?(request: ProviderRequest, signal: AbortSignal): Promise<ProviderRequest>;
  /**
   * Optional: the request prepareRequest answered will not be submitted (the run was canceled at
   * its cancel point): what it holds for the submit (a pool's slot) is given back.
   */
  abandon?(request: ProviderRequest): void;
  /**
   * The signal is the run's: aborting it must abort the call. When the adapter has
   * `prepareRequest`, the request is what that answered.
   */
  submit(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResult>;
  poll(job: ProviderJob, signal: AbortSignal): Promise<ProviderResult>;
  /** Best effort: asks the provider to stop a job (and, where it can, not to bill it). */
  cancel?(job: ProviderJob): Promise<void>;
  /**
   * Optional: one cheap call that lists or reads something at the provider (never a generation,
   * nothing billed), within timeout_ms, to tell an operator the provider answers and takes the
   * key. Answers a short description of what it read ("account acme (organization)"); fails
   * with the ProviderError a run would get from the same answer (a refused key, an outage),
   * and the adapter's health is marked as for a run.
   */
  checkConnection?(signal: AbortSignal): Promise<string>;
}

/**
 * A provider's failure, told to the person like any ModelError. `transient` ones (5xx,
 * unreachable, timeouts) may succeed when tried again; a refusal (4xx) will not.
 */
export class ProviderError extends ModelError {
  constructor(
    message: string,
    readonly transient: boolean,
    /** Seconds of provider time the provider reported for the failed job (it may bill them); null: none. */
    readonly providerSeconds: number | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
