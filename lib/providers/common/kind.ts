// What one provider kind (one protocol: an OpenAI-compatible images endpoint, a ComfyUI server,
// the AI SDK's providers…) adds to the providers file and to the run engine. The file's common
// fields (id, kind, base_url, api_key_env, timeout_ms, entries; and each entry's catalog fields)
// are parsed once for every kind (providers-file.ts, entry-config.ts); a kind names only its own
// extra fields, checks them, and makes the adapter that runs its entries.
import type { JsonSchemaObject } from "../../primitives/json-schema";
import type { Modality } from "../../core/catalog/model-definition";
import type { JsonObject } from "./json-fields";
import type { ProviderAdapter, ProviderConfig } from "./types";

export interface ParseContext {
  /** The providers file's folder: relative paths in it (a workflow file) are read from there. */
  baseDir: string;
  /** The environment, for `*_env` fields naming variables (keys are never written in the file). */
  env: Record<string, string | undefined>;
  /**
   * Whether an `api_key_env` must name a variable set here (true, the default: the file at start).
   * A document written to the store is checked in a process that may not hold the server's
   * variables (the admin CLI), so there it may name one this process lacks.
   */
  keysRequired?: boolean;
  /**
   * The catalog's other providers, by id, with their kind and settings: what an entry's `routes`
   * may name. A parse without them refuses routes (it cannot check their fields).
   */
  providers?: ReadonlyMap<string, RouteProvider>;
}

/** A provider an entry's `routes` may name: its kind, and its settings as the file or the store holds them. */
export interface RouteProvider {
  kind: ProviderKind;
  /** Unchecked here (the provider's own parse checks them): read defensively. */
  settings: JsonObject;
}

/** What one provider makes, when its settings narrow its kind's modalities (ProviderKind.modalitiesOf). */
export interface ProviderModalities {
  modalities: readonly Modality[];
  /** Why, for messages: "@ai-sdk/elevenlabs makes audio (speech) only". */
  says: string;
}

export interface ProviderKind {
  /** The `kind` value in the providers file. */
  readonly name: string;
  /** What its entries may produce. */
  readonly modalities: readonly Modality[];
  /**
   * Optional: what one provider of this kind makes, from its settings (unchecked: null when they
   * say nothing sure), when that is less than `modalities`: an AI SDK package that makes speech
   * only. Its own entries and every route naming it are held to it.
   */
  modalitiesOf?(settings: JsonObject): ProviderModalities | null;
  /** Whether a provider of this kind must have `base_url` (a hosted API with a fixed host may not). */
  readonly baseUrlRequired: boolean;
  /**
   * A hosted API that always needs its key: the usual name of its variable (such as
   * "REPLICATE_API_TOKEN"), for the message when neither `api_key_env` nor a stored key gives one.
   */
  readonly keyRequired?: { example: string };
  /** Whether each entry names `upstream_model` (a ComfyUI workflow has none). */
  readonly upstreamModelRequired: boolean;
  /** Extra fields a provider object of this kind may carry. */
  readonly providerFields: readonly string[];
  /** Extra fields an entry of this kind may carry. */
  readonly entryFields: readonly string[];
  /** Checks the provider's extra fields; the result becomes ProviderConfig.options. Throws via `fail`. */
  parseProvider?(provider: JsonObject, path: string, ctx: ParseContext): Record<string, unknown>;
  /**
   * Checks an entry's extra fields against its (already valid) input schema; the result becomes
   * RemoteEntryConfig.options. A kind that needs certain input fields (a prompt) says so here.
   */
  parseEntry?(entry: JsonObject, path: string, schema: JsonSchemaObject, ctx: ParseContext): Record<string, unknown>;
  /**
   * The entry as the store keeps it: what the file names by path (a ComfyUI workflow file) put
   * inline, from what parseEntry read, so the stored document stands alone.
   */
  inlineEntry?(entry: JsonObject, options: Record<string, unknown>): JsonObject;
  /** One adapter per provider: its entries share it (and so its health). */
  createAdapter(config: ProviderConfig): ProviderAdapter;
}
