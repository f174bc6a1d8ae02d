import { createBatch, getBatch } from "../../lib/core/runs/batches";
import { jsonResponse } from "../respond";
import { requestHeader, type Router } from "../route";

export function batchRoutes(router: Router): void {
  // POST /v1/batches – start 1 to 50 runs together: all or none
  router.keyed("POST", "/v1/batches", { body: true }, async (c, ctx, { body }) => {
    const idempotencyKey = requestHeader(c, "idempotency-key");
    const { batch, replayed } = await createBatch(ctx, body, { idempotencyKey });
    const headers: Record<string, string> = { Location: `/v1/batches/${batch.id}` };
    if (idempotencyKey !== undefined) headers["Idempotent-Replayed"] = String(replayed);
    return jsonResponse(batch, 201, headers);
  });

  // GET /v1/batches/:id – the batch and its runs as they are now
  router.keyed("GET", "/v1/batches/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await getBatch(ctx, { id: params.id! })),
  );
}
