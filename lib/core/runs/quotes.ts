// Validating and pricing a run request: the one function quotes, generations and batches share.
import { deprecationHeaders, findCatalogEntry } from "../catalog/catalog";
import { requireScope, type Ctx } from "../context";
import { checkFileInputs, hasFileInputs } from "../catalog/file-inputs";
import { validateModelInput } from "../catalog/input-validation";
import { formatUsd, type Micros } from "../../primitives/money";
import { traced } from "../../primitives/tracing";
import { requireInService } from "../catalog/model-availability";
import { requireSafeWebhookUrl } from "../webhooks/webhook-url";
import { priceInput } from "./pricing";
import { parseRunRequest, type RunRequest } from "./run-request";
import type { ModelDefinition } from "../catalog/model-definition";
import type { Quote } from "./generation-shape";

export type { Quote };

export interface PricedRun {
  request: RunRequest;
  definition: ModelDefinition;
  /** The catalog ID that will run (a preset without version resolved to its latest). */
  modelId: string;
  input: Record<string, unknown>;
  costMicros: Micros;
  holdMicros: Micros;
  /** Deprecation, Sunset and Link headers the answer must carry; {} when not deprecated. */
  headers: Record<string, string>;
}

/**
 * Parses, resolves, validates and prices a run request: the one function quotes, generations
 * and batches share. `prefix` names params inside a batch ("requests[3].").
 */
export async function priceRunRequest(ctx: Ctx, body: unknown, prefix = ""): Promise<PricedRun> {
  const request = parseRunRequest(body, prefix, { allowInsecureWebhooks: ctx.services.webhooks.allowInsecure });
  if (request.webhook) await requireSafeWebhookUrl(ctx.services, request.webhook, `${prefix}webhook`);
  const { definition, model } = findCatalogEntry(request.model, `${prefix}model`);
  const inService = requireInService(ctx.db, definition);
  if (inService) await inService;
  const input = validateModelInput(definition.input_schema, request.input, {
    modelId: model.id,
    paramPrefix: `${prefix}input`,
  });
  if (hasFileInputs(definition.input_schema)) {
    await checkFileInputs(ctx.db, {
      workspaceId: ctx.workspaceId,
      schema: definition.input_schema,
      values: input,
      paramPrefix: `${prefix}input`,
    });
  }
  const costMicros = priceInput(definition.pricing, input);
  return {
    request,
    definition,
    modelId: model.id,
    input,
    costMicros,
    holdMicros: costMicros,
    headers: deprecationHeaders(model),
  };
}

/** POST /v1/quotes: the exact price of a run. Starts nothing, holds nothing. */
export function quoteRun(ctx: Ctx, body: unknown): Promise<{ quote: Quote; headers: Record<string, string> }> {
  return traced("run.quote", () => priceQuote(ctx, body), {
    attributes: () => ({ "atelier.workspace.id": ctx.workspaceId }),
  });
}

async function priceQuote(ctx: Ctx, body: unknown): Promise<{ quote: Quote; headers: Record<string, string> }> {
  requireScope(ctx, "generations:read");
  const priced = await priceRunRequest(ctx, body);
  return {
    headers: priced.headers,
    quote: {
      object: "quote",
      model: priced.modelId,
      revision: priced.definition.revision,
      input: priced.input,
      cost_usd: formatUsd(priced.costMicros),
      hold_usd: formatUsd(priced.holdMicros),
    },
  };
}
