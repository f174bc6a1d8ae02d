import { isFinal, retryAfterSeconds } from "../../lib/core/generation-view";
import {
  cancelGeneration,
  createGeneration,
  getGeneration,
  listGenerations,
  parsePreferWait,
  type GenerationAnswer,
} from "../../lib/core/generations";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

/** The headers SPEC.md asks of an answer that carries one generation. */
function generationResponse(
  answer: GenerationAnswer,
  status: number,
  extra: { wait: number | null; created?: boolean; idempotencyKeySent?: boolean },
): Response {
  const { generation } = answer;
  const headers: Record<string, string> = { ...answer.headers, Vary: "Prefer" };
  if (extra.created) headers.Location = `/v1/generations/${generation.id}`;
  if (extra.idempotencyKeySent) headers["Idempotent-Replayed"] = String(answer.replayed);
  if (extra.wait !== null) headers["Preference-Applied"] = `wait=${extra.wait}`;
  if (!isFinal(generation.status)) headers["Retry-After"] = String(retryAfterSeconds(generation.modality));
  return jsonResponse(generation, status, headers);
}

export function generationRoutes(router: Router): void {
  // POST /v1/generations – start a run (price held; Idempotency-Key and Prefer: wait honoured)
  router.keyed("POST", "/v1/generations", { body: true }, async (c, ctx, { body }) => {
    const wait = parsePreferWait(c.req.header("prefer"));
    const idempotencyKey = c.req.header("idempotency-key");
    const answer = await createGeneration(ctx, body, { idempotencyKey, waitSeconds: wait });
    return generationResponse(answer, 201, { wait, created: true, idempotencyKeySent: idempotencyKey !== undefined });
  });

  // GET /v1/generations – the workspace's runs, newest first, cursor paged
  router.keyed("GET", "/v1/generations", { query: ["limit", "cursor", "model", "source", "status", "batch"] }, async (_c, ctx, { query }) =>
    jsonResponse(await listGenerations(ctx, query)),
  );

  // GET /v1/generations/:id – one run with fresh output links (Prefer: wait honoured)
  router.keyed("GET", "/v1/generations/:id", {}, async (c, ctx, { params }) => {
    const wait = parsePreferWait(c.req.header("prefer"));
    return generationResponse(await getGeneration(ctx, { id: params.id!, waitSeconds: wait }), 200, { wait });
  });

  // POST /v1/generations/:id/cancel – stop a run and release its hold; safe to repeat
  router.keyed("POST", "/v1/generations/:id/cancel", {}, async (_c, ctx, { params }) =>
    generationResponse(await cancelGeneration(ctx, { id: params.id! }), 200, { wait: null }),
  );
}
