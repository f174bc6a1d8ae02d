import { getEvent, listEvents } from "../../lib/core/webhooks/events";
import { listEndpointDeliveries, listEventDeliveries, resendEvent } from "../../lib/core/webhooks/webhook-deliveries";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
} from "../../lib/core/webhooks/webhook-endpoints";
import { getDefaultWebhookSecret, rotateDefaultWebhookSecret } from "../../lib/core/webhooks/webhook-secrets";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

const PAGE = { query: ["limit", "cursor"] };

export function webhookRoutes(router: Router): void {
  // GET /v1/webhooks/default/secret – the workspace's signing secret (registered before /:id)
  router.keyed("GET", "/v1/webhooks/default/secret", {}, async (_c, ctx) =>
    jsonResponse(await getDefaultWebhookSecret(ctx)),
  );

  // POST /v1/webhooks/default/secret/rotate – a new secret; the old one keeps signing for 24 h
  router.keyed("POST", "/v1/webhooks/default/secret/rotate", { body: true }, async (_c, ctx) =>
    jsonResponse(await rotateDefaultWebhookSecret(ctx)),
  );

  // POST /v1/webhooks – register an endpoint for the workspace's events
  router.keyed("POST", "/v1/webhooks", { body: true }, async (_c, ctx, { body }) => {
    const endpoint = await createWebhookEndpoint(ctx, body);
    return jsonResponse(endpoint, 201, { Location: `/v1/webhooks/${endpoint.id}` });
  });

  // GET /v1/webhooks – the workspace's endpoints
  router.keyed("GET", "/v1/webhooks", PAGE, async (_c, ctx, { query }) =>
    jsonResponse(await listWebhookEndpoints(ctx, query)),
  );

  // GET /v1/webhooks/:id – one endpoint
  router.keyed("GET", "/v1/webhooks/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await getWebhookEndpoint(ctx, { id: params.id! })),
  );

  // PATCH /v1/webhooks/:id – change url, description, event_types or enabled
  router.keyed("PATCH", "/v1/webhooks/:id", { body: true }, async (_c, ctx, { params, body }) =>
    jsonResponse(await updateWebhookEndpoint(ctx, { id: params.id!, body })),
  );

  // DELETE /v1/webhooks/:id – remove an endpoint; its pending deliveries stop
  router.keyed("DELETE", "/v1/webhooks/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await deleteWebhookEndpoint(ctx, { id: params.id! })),
  );

  // GET /v1/webhooks/:id/deliveries – deliveries to one endpoint, with their attempts
  router.keyed("GET", "/v1/webhooks/:id/deliveries", PAGE, async (_c, ctx, { params, query }) =>
    jsonResponse(await listEndpointDeliveries(ctx, { id: params.id!, query })),
  );

  // GET /v1/events – the workspace's events, newest first
  router.keyed("GET", "/v1/events", { query: ["limit", "cursor", "type"] }, async (_c, ctx, { query }) =>
    jsonResponse(await listEvents(ctx, query)),
  );

  // GET /v1/events/:id – one event
  router.keyed("GET", "/v1/events/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await getEvent(ctx, { id: params.id! })),
  );

  // GET /v1/events/:id/deliveries – the deliveries of one event, with their attempts
  router.keyed("GET", "/v1/events/:id/deliveries", PAGE, async (_c, ctx, { params, query }) =>
    jsonResponse(await listEventDeliveries(ctx, { id: params.id!, query })),
  );

  // POST /v1/events/:id/resend – send the event again (to one endpoint, or all its destinations)
  router.keyed("POST", "/v1/events/:id/resend", { body: true }, async (_c, ctx, { params, body }) =>
    jsonResponse(await resendEvent(ctx, { id: params.id!, body }), 201),
  );
}
