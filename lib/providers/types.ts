// What a remote provider adapter offers (lib/providers): submit a request, poll a job, maybe
// cancel it, and a health record the catalog reads to answer 503 while the provider is down.
import type { ImageOutput, ModelLifecycle, ModelPricing, ModelStatus, Modality } from "../models/types";
import { ModelError } from "../models/types";
import type { JsonSchemaObject } from "../core/json-schema";

/** One catalog entry served by a provider, as read from the providers file. */
export interface RemoteEntryConfig {
  /** Catalog id, `<creator>/<name>`; never `atelier/…`. */
  id: string;
  /** The model name the provider knows it by. */
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
}

export interface ProviderConfig {
  /** Shown as a run's `provider`. */
  id: string;
  /** Which adapter speaks to it (its protocol). */
  kind: "openai-images";
  /** Without a trailing slash. */
  baseUrl: string;
  /** Resolved from `api_key_env`; null when the provider needs no key. */
  apiKey: string | null;
  /** Limit for one call to the provider, fetching its results included. */
  timeoutMs: number;
  entries: RemoteEntryConfig[];
}

export interface ProviderRequest {
  upstreamModel: string;
  /** The validated input, defaults filled. */
  input: Record<string, unknown>;
}

/** Outputs are fetched into memory; the engine stores them in blobs. */
export type ProviderResult = { kind: "done"; outputs: ImageOutput[] } | { kind: "pending"; jobId: string };

export interface ProviderHealth {
  lastFailure: { at: string; message: string } | null;
  /** Epoch milliseconds until which the provider is treated as down; null when it is not. */
  downUntil: number | null;
}

export interface ProviderAdapter {
  /** True when a submitted request is billed whether or not it is canceled later. */
  readonly billsOnSubmit: boolean;
  /** Shared by every entry of the provider. */
  readonly health: ProviderHealth;
  /** The signal is the run's: aborting it must abort the call. */
  submit(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResult>;
  poll(jobId: string, signal: AbortSignal): Promise<ProviderResult>;
  /** Best effort: asks the provider to stop a job (and, where it can, not to bill it). */
  cancel?(jobId: string): Promise<void>;
}

/**
 * A provider's failure, told to the person like any ModelError. `transient` ones (5xx,
 * unreachable, timeouts) may succeed when tried again; a refusal (4xx) will not.
 */
export class ProviderError extends ModelError {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
