"use server";
// The ops entry editor's actions (/ops/entries): check a document as the store would and quote its
// example, import one from the provider's own schema, save it as a draft or publish it, deprecate
// and retire it. Each asks for the ops principal first (anyone else gets the 404) and goes through
// the stored catalog's verbs, so a refusal is the verb's message naming its field. No provider key
// ever leaves the server: an import reads it here and answers the document only.
// Nothing here revalidates a path: the entry pages are dynamic, and a refresh would remount the
// editor (its URL moves from /new to the entry's after the first save) and lose what it says.
import { getRuntime } from "@/lib/boot/runtime";
import { ApiError } from "@/lib/primitives/errors";
import { formatUsd } from "@/lib/primitives/money";
import { openSecret } from "@/lib/primitives/secret-box";
import { priceInput } from "@/lib/core/runs/pricing";
import { readRemoteProvider } from "@/lib/core/catalog/remote-store";
import {
  listStoredEntries,
  providerSecretPurpose,
  type CatalogCtx,
} from "@/lib/providers/stored-catalog/catalog-verbs";
import { checkEntryDocument, storedRouteProviders } from "@/lib/providers/stored-catalog/documents";
import {
  addEntry,
  deprecateEntry,
  editEntry,
  publishEntry,
  retireEntry,
} from "@/lib/providers/stored-catalog/entry-verbs";
import { importEntry, SchemaImportError } from "@/lib/providers/import-entry";
import { importComfyEntry } from "@/lib/providers/comfyui/import-comfyui";
import { startAiSdkEntry } from "@/lib/providers/ai-sdk/ai-sdk-start";
import type { Modality } from "@/lib/core/catalog/model-definition";
import { actionError } from "@/app/_studio/action-error";
import { requireOps } from "@/app/_studio/studio-ctx";

export type EntryRefusal = { ok: false; message: string; param: string | null };

/** What the editor shows of a stored entry after a change. */
export interface SavedEntry {
  id: string;
  state: "draft" | "published";
  revision: string;
  /** The revision before the change, when the change made a new one. */
  previousRevision: string | null;
  lifecycle: { deprecated_at?: string; sunset_at?: string; replaced_by?: string | null } | null;
}

async function catalogCtx(): Promise<CatalogCtx> {
  const { ops } = await requireOps();
  const { config } = await getRuntime();
  return { db: ops.db, secretKey: config.secretKey, env: { ...config.providerEnv }, actingAs: ops };
}

/**
 * The providers file may name a ComfyUI workflow by a path, read from the server's disk when the
 * file is applied. From a browser that would read any file the server can (and a refusal's JSON
 * error quotes its start): the studio takes the workflow itself only.
 */
function inlineOnly(document: unknown): void {
  if (document && typeof document === "object" && typeof (document as { workflow?: unknown }).workflow === "string")
    throw new ApiError(
      "invalid_parameter",
      "entry.workflow must be the workflow itself (ComfyUI's API format, as JSON) here, not a path on the server.",
      { param: "entry.workflow" },
    );
}

function refusal(err: unknown): EntryRefusal {
  if (err instanceof SchemaImportError) return { ok: false, message: err.message, param: "import" };
  const { message, param } = actionError(err);
  return { ok: false, message, param };
}

function saved(
  entry: { id: string; state: "draft" | "published"; revision: string; document: Record<string, unknown> },
  before: string | null,
): SavedEntry {
  return {
    id: entry.id,
    state: entry.state,
    revision: entry.revision,
    previousRevision: before !== null && before !== entry.revision ? before : null,
    lifecycle: (entry.document.lifecycle as SavedEntry["lifecycle"]) ?? null,
  };
}

export type EntryCheck = { ok: true; quoteUsd: string | null; quoteError: string | null } | EntryRefusal;

/**
 * The document checked by the providers file's own parser against the provider's kind, and the
 * price of `example` under its pricing (priceInput, as a quote makes it).
 */
export async function checkEntryAction(
  providerId: string,
  document: unknown,
  example: Record<string, unknown>,
): Promise<EntryCheck> {
  try {
    const ctx = await catalogCtx();
    const provider = await readRemoteProvider(ctx.db, providerId);
    if (!provider)
      throw new ApiError("resource_not_found", `No provider "${providerId}" in the stored catalog.`, {
        param: "provider",
      });
    inlineOnly(document);
    const { parsed } = checkEntryDocument(document, provider, {
      baseDir: process.cwd(),
      env: ctx.env,
      providers: await storedRouteProviders(ctx.db),
    });
    try {
      return { ok: true, quoteUsd: formatUsd(priceInput(parsed.pricing, example)), quoteError: null };
    } catch (err) {
      return { ok: true, quoteUsd: null, quoteError: (err as Error).message };
    }
  } catch (err) {
    return refusal(err);
  }
}

export type ImportResult = { ok: true; document: Record<string, unknown>; notes: string[] } | EntryRefusal;

/** A text field of an import's input, trimmed: a client may send anything, so its type is checked. */
function text(value: unknown, param: string, fallback = ""): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") throw new ApiError("invalid_parameter", `${param} must be text.`, { param });
  return value.trim() || fallback;
}

type ProviderSettings = { api_key_env?: string; base_url?: string; openapi_base_url?: string; provider?: string };

/**
 * What every import starts from: the operator's context, the stored provider (one of `kinds`,
 * else `wrongKind` is the refusal), its settings, and the new entry's id and price as typed.
 */
async function importFrom(
  input: { providerId: unknown; id: unknown; usd: unknown; unit: unknown },
  kinds: readonly string[],
  wrongKind: string,
  usdFallback = "",
) {
  const ctx = await catalogCtx();
  const provider =
    typeof input.providerId === "string" ? await readRemoteProvider(ctx.db, input.providerId) : undefined;
  if (!provider || !kinds.includes(provider.kind))
    throw new ApiError("invalid_parameter", wrongKind, { param: "provider" });
  return {
    ctx,
    provider,
    settings: JSON.parse(provider.settings_json) as ProviderSettings,
    facts: {
      id: text(input.id, "id"),
      usd: text(input.usd, "usd", usdFallback),
      unit: text(input.unit, "unit", "image"),
    },
  };
}

/** The provider's key, pasted (stored sealed) or named by a variable of the server's. */
function providerKey(
  ctx: CatalogCtx,
  provider: { id: string; secret_ciphertext: string | null },
  settings: ProviderSettings,
): string | null {
  if (provider.secret_ciphertext)
    return openSecret(ctx.secretKey, providerSecretPurpose(provider.id), provider.secret_ciphertext);
  return settings.api_key_env ? (ctx.env[settings.api_key_env] ?? null) : null;
}

/** A ready document from the provider's own schema: a Replicate model or a fal endpoint. */
export async function importEntryAction(input: {
  providerId: string;
  source: string;
  id: string;
  usd: string;
  unit: string;
}): Promise<ImportResult> {
  try {
    const { ctx, provider, settings, facts } = await importFrom(
      input,
      ["replicate", "fal"],
      "Importing reads a Replicate or fal provider's schema.",
    );
    const source = text(input.source, "source");
    const imported = await importEntry({
      ...facts,
      source: provider.kind === "replicate" ? { kind: "replicate", model: source } : { kind: "fal", endpoint: source },
      apiKey: provider.kind === "replicate" ? providerKey(ctx, provider, settings) : null,
      // Replicate's schema from the API the provider's runs go to (its base_url, when set); fal's
      // documents from fal's own host, or the provider's openapi_base_url.
      baseUrl: provider.kind === "replicate" ? settings.base_url : settings.openapi_base_url,
      signal: AbortSignal.timeout(20_000),
    });
    const dropped = imported.dropped.map((d) => `left out ${d.field}: ${d.reason}`);
    return { ok: true, document: imported.entry, notes: [...imported.notes, ...dropped] };
  } catch (err) {
    return refusal(err);
  }
}

/** Fields bound to node inputs as the picker sends them: `{field: [{node, input}, …]}`, checked. */
function bindingsOf(value: unknown): Record<string, Array<{ node: string; input: string }>> {
  const refused = () =>
    new ApiError("invalid_parameter", "bindings must map each field to a list of {node, input} (text).", {
      param: "bindings",
    });
  if (!value || typeof value !== "object" || Array.isArray(value)) throw refused();
  const bindings: Record<string, Array<{ node: string; input: string }>> = {};
  for (const [field, targets] of Object.entries(value)) {
    if (!Array.isArray(targets) || targets.length === 0 || targets.length > 64) throw refused();
    bindings[field] = targets.map((t: unknown) => {
      const { node, input } = (t ?? {}) as { node?: unknown; input?: unknown };
      if (typeof node !== "string" || typeof input !== "string") throw refused();
      return { node, input };
    });
  }
  return bindings;
}

/**
 * A ready document from a ComfyUI workflow (API format, uploaded in the browser) and the fields
 * bound to its node inputs; the provider's box describes the bound inputs' choices and bounds
 * (its GET /object_info). The workflow is held inline by the entry.
 */
export async function importComfyAction(input: {
  providerId: string;
  workflow: unknown;
  bindings: Record<string, Array<{ node: string; input: string }>>;
  id: string;
  usd: string;
  unit: string;
}): Promise<ImportResult> {
  try {
    const { ctx, provider, settings, facts } = await importFrom(
      input,
      ["comfyui"],
      "Importing a workflow needs a ComfyUI provider.",
    );
    if (!input.workflow || typeof input.workflow !== "object" || Array.isArray(input.workflow))
      return {
        ok: false,
        message: "The workflow must be a JSON object of nodes (ComfyUI's API format).",
        param: "import",
      };
    const imported = await importComfyEntry({
      ...facts,
      workflow: input.workflow as Record<string, unknown>,
      baseDir: process.cwd(),
      bindings: bindingsOf(input.bindings),
      baseUrl: settings.base_url,
      apiKey: providerKey(ctx, provider, settings),
      signal: AbortSignal.timeout(20_000),
    });
    return { ok: true, document: imported.entry, notes: imported.notes };
  } catch (err) {
    return refusal(err);
  }
}

/**
 * A starting document for an AI SDK or openai-images provider, which publish no schema: the
 * model id the package takes and the call's standard arguments for the modality as fields.
 */
export async function startEntryAction(input: {
  providerId: string;
  modelId: string;
  /** "" for the package's first. */
  modality: string;
  id: string;
  usd: string;
  unit: string;
}): Promise<ImportResult> {
  try {
    const { provider, settings, facts } = await importFrom(
      input,
      ["ai-sdk", "openai-images"],
      "Starting from a model id needs an AI SDK or openai-images provider.",
      "0.04",
    );
    const modelId = text(input.modelId, "model_id");
    const modality = text(input.modality, "modality");
    const started = startAiSdkEntry({
      ...facts,
      providerKind: provider.kind as "ai-sdk" | "openai-images",
      aiSdkProvider: settings.provider,
      modelId,
      id: facts.id || `${provider.id}/${modelId.split("/").at(-1) ?? "model"}`,
      ...(modality ? { modality: modality as Modality } : {}),
    });
    return { ok: true, document: started.entry, notes: started.notes };
  } catch (err) {
    return refusal(err);
  }
}

export type SaveResult = { ok: true; entry: SavedEntry } | EntryRefusal;

/** Adds the entry (a draft, or published at once) or edits the stored one; then publishes when asked. */
export async function saveEntryAction(input: {
  providerId: string;
  /** The stored entry's id when editing; null for a new one. */
  storedId: string | null;
  document: unknown;
  publish: boolean;
}): Promise<SaveResult> {
  try {
    const ctx = await catalogCtx();
    inlineOnly(input.document);
    let before: string | null = null;
    let entry;
    if (input.storedId === null) {
      entry = await addEntry(ctx, { providerId: input.providerId, document: input.document, publish: input.publish });
    } else {
      const current = (await listStoredEntries(ctx)).find((e) => e.id === input.storedId);
      before = current?.revision ?? null;
      // The editor leaves the lifecycle to deprecate and retire: a save keeps the stored one.
      const lifecycle = current?.document.lifecycle;
      const document =
        input.document && typeof input.document === "object" && !Array.isArray(input.document)
          ? { ...(input.document as Record<string, unknown>), ...(lifecycle ? { lifecycle } : {}) }
          : input.document;
      entry = await editEntry(ctx, { id: input.storedId, document });
      if (input.publish) entry = await publishEntry(ctx, { id: entry.id });
    }
    return { ok: true, entry: saved(entry, before) };
  } catch (err) {
    return refusal(err);
  }
}

/** Deprecated now, retired at `sunsetAt` (a date or ISO time), pointing at `replacedBy` when given. */
export async function deprecateEntryAction(input: {
  id: string;
  sunsetAt: string;
  replacedBy: string;
}): Promise<SaveResult> {
  try {
    const ctx = await catalogCtx();
    const sunset = input.sunsetAt.trim();
    const when = /^\d{4}-\d{2}-\d{2}$/.test(sunset) ? `${sunset}T00:00:00.000Z` : sunset;
    if (!when || Number.isNaN(Date.parse(when)))
      return { ok: false, message: "Give the sunset as a date, such as 2027-01-31.", param: "sunset_at" };
    const entry = await deprecateEntry(ctx, {
      id: input.id,
      sunsetAt: new Date(when).toISOString(),
      replacedBy: input.replacedBy.trim() || null,
    });
    return { ok: true, entry: saved(entry, null) };
  } catch (err) {
    return refusal(err);
  }
}

/** Retired now: new runs answer 410 and the catalog no longer lists it. */
export async function retireEntryAction(input: { id: string; replacedBy: string }): Promise<SaveResult> {
  try {
    const ctx = await catalogCtx();
    const entry = await retireEntry(ctx, { id: input.id, replacedBy: input.replacedBy.trim() || null });
    return { ok: true, entry: saved(entry, null) };
  } catch (err) {
    return refusal(err);
  }
}
