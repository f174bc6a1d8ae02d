"use server";
// The ops Providers page's changes (issue 37): add, edit and remove a stored provider through the
// catalog verbs, acting as the operator (the OpsCtx each action asks for itself: anyone else gets
// the 404), and test a provider's connection. A pasted key goes in and never comes back: the
// answers carry the provider as the verbs present it (`credential`: "secret set" or the variable's
// name) and a check's words, scrubbed of the key.
import { revalidatePath } from "next/cache";
import { getRuntime } from "@/lib/boot/runtime";
import { ApiError } from "@/lib/primitives/errors";
import {
  addProvider,
  editProvider,
  removeProvider,
  type CatalogCtx,
  type StoredProvider,
} from "@/lib/providers/stored-catalog/catalog-verbs";
import { providerPassedCheck, storedProviders } from "@/lib/providers/stored-catalog/load";
import { checkProviderConnection, type ConnectionCheck } from "@/lib/providers/connection-check";
import type { OpsCtx } from "@/lib/core/ops/ops-principal";
import { actionError } from "@/app/_studio/action-error";
import { requireOps } from "@/app/_studio/studio-ctx";

/** The form's fields, as typed. `key`: how the key is given ("keep": as stored, on an edit only). */
export interface ProviderFormInput {
  kind: string;
  id: string;
  base_url: string;
  timeout_ms: string;
  job_timeout_ms: string;
  /** The kind's other settings, a JSON object as text (empty: none). */
  extra: string;
  key: "none" | "env" | "paste" | "keep";
  key_env: string;
  api_key: string;
}

export type ProviderField = Exclude<keyof ProviderFormInput, "key">;

export type ProviderResult<T> = { ok: true; value: T } | { ok: false; message: string; field: ProviderField | null };

/** The form's field a verb's refusal names (its param is the document's path). */
function fieldOf(param: string | null): ProviderField | null {
  if (param === null) return null;
  const known: Record<string, ProviderField> = {
    "provider.id": "id",
    "provider.kind": "kind",
    "provider.base_url": "base_url",
    "provider.timeout_ms": "timeout_ms",
    "provider.job_timeout_ms": "job_timeout_ms",
    "provider.api_key_env": "key_env",
    api_key: "api_key",
  };
  if (Object.hasOwn(known, param)) return known[param]!;
  return param === "provider" || param.startsWith("provider.") ? "extra" : null;
}

function refusal(err: unknown): { ok: false; message: string; field: ProviderField | null } {
  const { message, param } = actionError(err);
  return { ok: false, message, field: fieldOf(param) };
}

/** A whole number as a number; anything else as typed, for the parser to refuse by name. */
function number(text: string): number | string {
  return /^\d{1,12}$/.test(text.trim()) ? Number(text.trim()) : text.trim();
}

/** The provider document the form describes (what the providers file would hold, without entries). */
function documentOf(input: ProviderFormInput): Record<string, unknown> {
  let extra: Record<string, unknown> = {};
  if (input.extra.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input.extra);
    } catch (err) {
      throw new ApiError("invalid_parameter", `Other settings must be a JSON object: ${(err as Error).message}.`, {
        param: "provider",
      });
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new ApiError("invalid_parameter", 'Other settings must be a JSON object, such as {"provider": "openai"}.', {
        param: "provider",
      });
    extra = parsed as Record<string, unknown>;
    for (const named of ["id", "kind", "base_url", "api_key_env", "timeout_ms", "job_timeout_ms"])
      if (Object.hasOwn(extra, named))
        throw new ApiError("invalid_parameter", `Other settings must not repeat "${named}": it has its own field.`, {
          param: "provider",
        });
  }
  return {
    id: input.id.trim(),
    kind: input.kind,
    ...(input.base_url.trim() !== "" && { base_url: input.base_url.trim() }),
    ...(input.key === "env" && { api_key_env: input.key_env.trim() }),
    ...(input.timeout_ms.trim() !== "" && { timeout_ms: number(input.timeout_ms) }),
    ...(input.job_timeout_ms.trim() !== "" && { job_timeout_ms: number(input.job_timeout_ms) }),
    ...extra,
  };
}

/** The key the verb takes: a pasted one, null to have none, undefined to keep what is stored. */
function apiKeyOf(input: ProviderFormInput): string | null | undefined {
  if (input.key === "paste") {
    if (input.api_key.trim() === "")
      throw new ApiError("invalid_parameter", "Paste the provider's API key, or choose another way.", {
        param: "api_key",
      });
    return input.api_key;
  }
  if (input.key === "keep") return undefined;
  return null;
}

async function catalogCtx(ops: OpsCtx): Promise<CatalogCtx> {
  const { config } = await getRuntime();
  return { db: ops.db, secretKey: config.secretKey, env: config.providerEnv, actingAs: ops };
}

function changed() {
  revalidatePath("/ops/providers");
  revalidatePath("/", "layout");
}

export async function addProviderAction(input: ProviderFormInput): Promise<ProviderResult<StoredProvider>> {
  const { ops } = await requireOps();
  try {
    if (input.key === "keep") throw new ApiError("invalid_parameter", "A new provider has no key to keep.", { param: "api_key" }); // prettier-ignore
    const provider = await addProvider(await catalogCtx(ops), { document: documentOf(input), apiKey: apiKeyOf(input) });
    changed();
    return { ok: true, value: provider };
  } catch (err) {
    return refusal(err);
  }
}

export async function editProviderAction(
  id: string,
  input: ProviderFormInput,
): Promise<ProviderResult<StoredProvider>> {
  const { ops } = await requireOps();
  try {
    const provider = await editProvider(await catalogCtx(ops), {
      id,
      document: documentOf(input),
      apiKey: apiKeyOf(input),
    });
    changed();
    return { ok: true, value: provider };
  } catch (err) {
    return refusal(err);
  }
}

export async function removeProviderAction(id: string): Promise<ProviderResult<{ id: string; entries: number }>> {
  const { ops } = await requireOps();
  try {
    const removed = await removeProvider(await catalogCtx(ops), { id });
    changed();
    return { ok: true, value: removed };
  } catch (err) {
    return refusal(err);
  }
}

/**
 * One cheap call to the provider as the store holds it now (its key opened with SECRET_KEY or
 * read from its variable here), through a new adapter: a failed check takes nothing out of service,
 * and a passing one ends an outage a failed run recorded (the page then shows it in service).
 */
export async function testProviderAction(id: string): Promise<ConnectionCheck> {
  const { ops } = await requireOps();
  const { config } = await getRuntime();
  const warnings: string[] = [];
  const providers = await storedProviders({
    db: ops.db,
    secretKey: config.secretKey,
    env: config.providerEnv,
    warn: (message) => warnings.push(message),
  });
  const provider = providers.find((p) => p.id === id);
  if (!provider) {
    const why = warnings.find((w) => w.startsWith(`stored provider ${id} `));
    return {
      ok: false,
      latency_ms: 0,
      error: why ? `This server cannot build the provider: ${why.replace(/^stored provider \S+ is left out of the catalog: /, "")}` : `No provider "${id}" in the stored catalog.`, // prettier-ignore
    };
  }
  try {
    const check = await checkProviderConnection(provider);
    if (check.ok) await providerPassedCheck(ops.db, id);
    return check;
  } catch (err) {
    return { ok: false, latency_ms: 0, error: actionError(err).message };
  }
}
