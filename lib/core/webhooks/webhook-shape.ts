// Webhook endpoints, events, deliveries and the signing secret as the API shows them, the payload
// receivers get, and the bodies that manage endpoints: the one source of their types and of the
// document's components (lib/primitives/api-shape.ts).
import { z } from "zod";
import { closed, pagedList, prefixedId, timestamp, usd } from "../../primitives/api-shape";
import { LIMITS } from "../../primitives/limits";
import { GenerationShape } from "../runs/generation-shape";
import { EVENT_TYPES } from "./webhook-endpoints";

const eventType = z.enum(EVENT_TYPES);

export const WebhookEndpointShape = closed({
  id: prefixedId("webhook"),
  object: z.literal("webhook_endpoint"),
  url: z.string().max(LIMITS.webhookUrlLength),
  description: z.string(),
  event_types: z.array(eventType).meta({ description: "Empty: every type." }),
  enabled: z.boolean(),
  /** Why the delivery engine disabled it (410, or failing for 5 days); null otherwise. */
  disabled_reason: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const WebhookEndpointListShape = pagedList(WebhookEndpointShape);

export const DeletedWebhookEndpointShape = closed({
  id: prefixedId("webhook"),
  object: z.literal("webhook_endpoint"),
  deleted: z.literal(true),
});

export const WebhookSecretShape = closed({
  object: z.literal("webhook_secret"),
  secret: z.string().regex(/^whsec_/),
  previous_expires_at: timestamp.nullable().meta({
    description: "Until when the previous secret still signs deliveries (two signatures); null when there is none.",
  }),
});

/** The data of `budget.threshold_reached`: the budget's counter that reached 50, 80 or 100 % of its cap. */
export const BudgetThresholdShape = closed({
  budget: closed({
    scope: z.enum(["workspace", "member", "key"]),
    subject_id: z.string(),
    period: z.enum(["day", "month"]),
    period_start: z.string().meta({ description: "The UTC day, or the month's first day (YYYY-MM-DD)." }),
    cap_usd: usd,
  }),
  threshold: z.union([z.literal(50), z.literal(80), z.literal(100)]),
  spent_usd: usd.meta({ description: "The counter when the threshold was reached." }),
});

/** The data of `credits.low`: the workspace's available balance dropped under its low-balance threshold. */
export const LowCreditShape = closed({
  available_usd: usd.meta({ description: "The available balance when it dropped under the threshold." }),
  threshold_usd: usd.meta({ description: "The workspace's low-balance threshold then." }),
});

const eventData = z.union([
  GenerationShape.meta({ description: "generation.*: the Generation as it ended." }),
  BudgetThresholdShape,
  LowCreditShape,
]);

export const EventShape = closed({
  id: prefixedId("event"),
  object: z.literal("event"),
  type: eventType,
  timestamp: timestamp,
  data: eventData,
});

export const EventListShape = pagedList(EventShape);

export const DeliveryAttemptShape = closed({
  attempt: z.int().min(1),
  at: timestamp,
  response_status: z.int().nullable(),
  latency_ms: z.int().min(0),
  response_body: z.string().meta({ description: "The first 20 kB of the answer, as text." }),
  error: z.string().nullable(),
});

export const DeliveryShape = closed({
  id: prefixedId("delivery"),
  object: z.literal("webhook_delivery"),
  event_id: prefixedId("event"),
  webhook_id: prefixedId("webhook").nullable().meta({ description: "Null for a run's own `webhook` URL." }),
  url: z.string(),
  status: z.enum(["pending", "succeeded", "failed"]),
  attempts: z.array(DeliveryAttemptShape),
  next_attempt_at: timestamp.nullable(),
  created_at: timestamp,
});

export const DeliveryListShape = pagedList(DeliveryShape);

export const ResentDeliveriesShape = closed({ object: z.literal("list"), data: z.array(DeliveryShape) });

/** What a receiver gets: the body of every delivery. */
export const WebhookPayloadShape = closed({ type: eventType, timestamp: timestamp, data: eventData });

// Request bodies: what the document shows. The core checks them itself (webhook-endpoints.ts,
// webhook-deliveries.ts), with its own messages; these shapes never parse one.

const endpointFields = {
  url: z.string().max(LIMITS.webhookUrlLength),
  description: z.string().max(500),
  event_types: z.array(eventType),
  enabled: z.boolean(),
};

export const WebhookEndpointRequestShape = closed({
  ...endpointFields,
  description: endpointFields.description.optional(),
  event_types: endpointFields.event_types.optional(),
  enabled: endpointFields.enabled.optional(),
});

export const WebhookEndpointUpdateShape = closed(endpointFields).partial();

export const ResendRequestShape = closed({ webhook_id: prefixedId("webhook").optional() });

export type WebhookEndpoint = z.infer<typeof WebhookEndpointShape>;
export type WebhookEndpointList = z.infer<typeof WebhookEndpointListShape>;
export type DeletedWebhookEndpoint = z.infer<typeof DeletedWebhookEndpointShape>;
export type WebhookSecret = z.infer<typeof WebhookSecretShape>;
export type Event = z.infer<typeof EventShape>;
export type EventList = z.infer<typeof EventListShape>;
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptShape>;
export type Delivery = z.infer<typeof DeliveryShape>;
export type DeliveryList = z.infer<typeof DeliveryListShape>;
export type ResentDeliveries = z.infer<typeof ResentDeliveriesShape>;
export type BudgetThreshold = z.infer<typeof BudgetThresholdShape>;
export type LowCredit = z.infer<typeof LowCreditShape>;
export type WebhookPayload = z.infer<typeof WebhookPayloadShape>;
export type WebhookEndpointRequest = z.input<typeof WebhookEndpointRequestShape>;
export type WebhookEndpointUpdate = z.input<typeof WebhookEndpointUpdateShape>;
export type ResendRequest = z.input<typeof ResendRequestShape>;
