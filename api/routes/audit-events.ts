import { getAuditEvent, listAuditEvents } from "../../lib/core/audit/audit-events";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

export function auditEventRoutes(router: Router): void {
  // GET /v1/audit-events – the workspace's audit log, newest first (owners and admins)
  router.keyed(
    "GET",
    "/v1/audit-events",
    { query: ["limit", "cursor", "action", "actor", "from", "to"] },
    async (_c, ctx, { query }) => jsonResponse(await listAuditEvents(ctx, query)),
  );

  // GET /v1/audit-events/:id – one event; another workspace's is not found
  router.keyed("GET", "/v1/audit-events/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await getAuditEvent(ctx, { id: params.id! })),
  );
}
