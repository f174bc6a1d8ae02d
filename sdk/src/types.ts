// The SDK's public types: aliases of the OpenAPI document's schemas (schema.ts is generated from
// it by scripts/sdk-types.ts), so they cannot say anything the API does not.
import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];

export type Model = Schemas["Model"];
export type ModelWithSchema = Schemas["ModelWithSchema"];
export type ModelList = Schemas["ModelList"];
export type Pricing = Schemas["Pricing"];
export type Deprecation = Schemas["Deprecation"];
export type Availability = Schemas["Availability"];
export type Quote = Schemas["Quote"];
export type Credits = Schemas["Credits"];
export type Workspace = Schemas["Workspace"];
export type AuditEvent = Schemas["AuditEvent"];
export type AuditAction = AuditEvent["action"];
export type AuditEventList = Schemas["AuditEventList"];
export type Usage = Schemas["Usage"];
export type UsageRow = Schemas["UsageRow"];
export type Budget = Schemas["Budget"];
export type BudgetList = Schemas["BudgetList"];
export type Generation = Schemas["Generation"];
export type GenerationStatus = Generation["status"];
export type OutputItem = Schemas["OutputItem"];
export type Preview = Schemas["Preview"];
export type GenerationList = Schemas["GenerationList"];
export type Batch = Schemas["Batch"];
export type File = Schemas["File"];
export type FileList = Schemas["FileList"];
export type Upload = Schemas["Upload"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointList = Schemas["WebhookEndpointList"];
export type DeletedWebhookEndpoint = Schemas["DeletedWebhookEndpoint"];
export type WebhookSecret = Schemas["WebhookSecret"];
export type Event = Schemas["Event"];
export type EventType = Event["type"];
export type EventList = Schemas["EventList"];
export type Delivery = Schemas["Delivery"];
export type DeliveryAttempt = Schemas["DeliveryAttempt"];
export type DeliveryList = Schemas["DeliveryList"];
export type ResentDeliveries = Schemas["ResentDeliveries"];
export type WebhookPayload = Schemas["WebhookPayload"];
export type ErrorBody = Schemas["Error"];

// Request bodies.
export type GenerationRequest = Schemas["GenerationRequest"];
export type QuoteRequest = Schemas["GenerationRequest"];
export type BatchRequest = Schemas["BatchRequest"];
export type UploadRequest = Schemas["UploadRequest"];
export type WebhookEndpointRequest = Schemas["WebhookEndpointRequest"];
export type WebhookEndpointUpdate = Schemas["WebhookEndpointUpdate"];
export type ResendRequest = Schemas["ResendRequest"];

// Query parameters of the lists.
type Query<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;
export type ListGenerationsQuery = Query<"listGenerations">;
export type ListFilesQuery = Query<"listFiles">;
export type ListEventsQuery = Query<"listEvents">;
export type ListWebhookEndpointsQuery = Query<"listWebhookEndpoints">;
export type ListDeliveriesQuery = Query<"listEventDeliveries">;
export type ListAuditEventsQuery = Query<"listAuditEvents">;
export type UsageQuery = Query<"getUsage">;

/** Any page of a cursor-paged list. */
export interface Page<T> {
  object: "list";
  url: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
