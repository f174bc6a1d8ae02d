// The bodies /v1 answers and takes, as JSON Schema 2020-12 (OpenAPI 3.1's own dialect), converted
// from the zod shapes the core's types come from (lib/core/<feature>/*-shape.ts; the building
// blocks in lib/primitives/api-shape.ts). Shapes are closed (`additionalProperties: false`) so
// that the API tests, which check every answer they receive against these (answer-check.ts),
// catch a field the code adds and the shape does not name.
import { z } from "zod";
import { EmptyBodyShape } from "../../lib/primitives/api-shape";
import { ErrorShape } from "../../lib/primitives/error-shape";
import {
  AvailabilityShape,
  DeprecationShape,
  ModelListShape,
  ModelShape,
  ModelWithSchemaShape,
  PricingShape,
} from "../../lib/core/catalog/model-shape";
import { CreditsShape } from "../../lib/core/credits/credits-shape";
import {
  FileListShape,
  FileShape,
  UploadReceiptShape,
  UploadRequestShape,
  UploadShape,
} from "../../lib/core/files/file-shape";
import {
  BatchRequestShape,
  BatchShape,
  GenerationListShape,
  GenerationRequestShape,
  GenerationShape,
  OutputItemShape,
  PreviewShape,
  QuoteShape,
} from "../../lib/core/runs/generation-shape";
import {
  DeletedWebhookEndpointShape,
  DeliveryAttemptShape,
  DeliveryListShape,
  DeliveryShape,
  EventListShape,
  EventShape,
  ResendRequestShape,
  ResentDeliveriesShape,
  WebhookEndpointListShape,
  WebhookEndpointRequestShape,
  WebhookEndpointShape,
  WebhookEndpointUpdateShape,
  WebhookPayloadShape,
  WebhookSecretShape,
} from "../../lib/core/webhooks/webhook-shape";
import { WorkspaceShape } from "../../lib/core/workspaces/workspace-shape";
import { AuditEventListShape, AuditEventShape } from "../../lib/core/audit/audit-shape";
import { UsageRowShape, UsageShape } from "../../lib/core/usage/usage-shape";
import { BudgetListShape, BudgetShape } from "../../lib/core/budgets/budget-shape";

export type JsonSchema = Record<string, unknown>;

/**
 * The document's components, by name. A shape named here is written as a `$ref` wherever another
 * uses it; any other shape is written in place.
 */
const COMPONENTS: Record<string, z.ZodType> = {
  Error: ErrorShape,
  Pricing: PricingShape,
  Deprecation: DeprecationShape,
  Availability: AvailabilityShape,
  Model: ModelShape,
  ModelList: ModelListShape,
  Quote: QuoteShape,
  Credits: CreditsShape,
  Workspace: WorkspaceShape,
  AuditEvent: AuditEventShape,
  AuditEventList: AuditEventListShape,
  Usage: UsageShape,
  UsageRow: UsageRowShape,
  Budget: BudgetShape,
  BudgetList: BudgetListShape,
  OutputItem: OutputItemShape,
  Preview: PreviewShape,
  Generation: GenerationShape,
  GenerationList: GenerationListShape,
  Batch: BatchShape,
  File: FileShape,
  FileList: FileListShape,
  Upload: UploadShape,
  UploadReceipt: UploadReceiptShape,
  WebhookEndpoint: WebhookEndpointShape,
  WebhookEndpointList: WebhookEndpointListShape,
  DeletedWebhookEndpoint: DeletedWebhookEndpointShape,
  WebhookSecret: WebhookSecretShape,
  Event: EventShape,
  EventList: EventListShape,
  DeliveryAttempt: DeliveryAttemptShape,
  Delivery: DeliveryShape,
  DeliveryList: DeliveryListShape,
  ResentDeliveries: ResentDeliveriesShape,
  WebhookPayload: WebhookPayloadShape,

  // Request bodies.
  GenerationRequest: GenerationRequestShape,
  BatchRequest: BatchRequestShape,
  UploadRequest: UploadRequestShape,
  WebhookEndpointRequest: WebhookEndpointRequestShape,
  WebhookEndpointUpdate: WebhookEndpointUpdateShape,
  EmptyBody: EmptyBodyShape,
  ResendRequest: ResendRequestShape,
  ModelWithSchema: ModelWithSchemaShape,
};

const isEmpty = (value: unknown) => typeof value === "object" && value !== null && Object.keys(value).length === 0;

/**
 * What zod writes that says nothing here: `z.int()`'s safe-integer range (JSON has no such
 * limit and the document never stated one), and a record's `propertyNames: {type: "string"}` and
 * `additionalProperties: {}` (every JSON key is a string; any value is allowed).
 */
function dropVacuous({ jsonSchema: s }: { jsonSchema: JsonSchema }): void {
  if (s.type === "integer") {
    if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
    if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
  }
  if (s.type === "object" && !("properties" in s)) {
    const names = s.propertyNames as JsonSchema | undefined;
    if (names && Object.keys(names).length === 1 && names.type === "string") delete s.propertyNames;
    if (isEmpty(s.additionalProperties)) delete s.additionalProperties;
  }
}

function convert(components: Record<string, z.ZodType>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, shape] of Object.entries(components)) registry.add(shape, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    override: dropVacuous,
  });
  if ("__shared" in schemas) throw new Error("openapi: a shape was written out as a shared definition");
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      // Each comes as a document of its own; as a component it needs neither its dialect nor an $id.
      const { $schema: _dialect, $id: _id, ...component } = schema as JsonSchema;
      return [id, component];
    }),
  );
}

let converted: Record<string, JsonSchema> | null = null;

/** The document's components.schemas, converted on first use (openApiDocument builds once too). */
export function componentSchemas(): Record<string, JsonSchema> {
  return (converted ??= convert(COMPONENTS));
}
