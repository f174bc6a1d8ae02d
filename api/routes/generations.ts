import { isFinal, retryAfterSeconds } from "../../lib/core/runs/generation-view";
import {
  cancelGeneration,
  createGeneration,
  getGeneration,
  listGenerations,
  parsePreferWait,
  type GenerationAnswer,
} from "../../lib/core/runs/generations";
import { acceptsEventStream, eventStreamBody, parseLastEventId } from "../../lib/core/run-streams/event-stream";
import type { Ctx } from "../../lib/core/context";
import { acquireKeyReader, inKeyReaderSlot, releasingSource } from "../../lib/core/run-streams/open-readers";
import { followRuns } from "../../lib/core/run-streams/run-follow";
import type { Context } from "hono";
import type { ApiEnv } from "../env";
import { jsonResponse, loggedError } from "../respond";
import { requestHeader, type Router } from "../route";

/** The headers of an answer that carries one generation (docs/api.md, "Generations"). */
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

/**
 * Runs a read that Prefer: wait may hold open in one of the key's open-reader slots (429 past the
 * cap); the slot comes back when it answers or the client leaves.
 */
function whileWaiting<T>(c: Context<ApiEnv>, ctx: Ctx, wait: number | null, read: () => Promise<T>): Promise<T> {
  return wait ? inKeyReaderSlot(ctx.actor.id, read, c.req.raw.signal) : read();
}

export function generationRoutes(router: Router): void {
  // POST /v1/generations – start a run (price held; Idempotency-Key and Prefer: wait honoured)
  router.keyed("POST", "/v1/generations", { body: true }, async (c, ctx, { body }) => {
    const wait = parsePreferWait(requestHeader(c, "prefer"));
    const idempotencyKey = requestHeader(c, "idempotency-key");
    const answer = await whileWaiting(c, ctx, wait, () =>
      createGeneration(ctx, body, { idempotencyKey, waitSeconds: wait }),
    );
    return generationResponse(answer, 201, { wait, created: true, idempotencyKeySent: idempotencyKey !== undefined });
  });

  // GET /v1/generations – the workspace's runs, newest first, cursor paged
  router.keyed(
    "GET",
    "/v1/generations",
    { query: ["limit", "cursor", "model", "source", "status", "batch"] },
    async (_c, ctx, { query }) => jsonResponse(await listGenerations(ctx, query)),
  );

  // GET /v1/generations/:id – one run with fresh output links (Prefer: wait honoured), or with
  // Accept: text/event-stream its status stream until it is final (docs/api.md, "Status stream")
  router.keyed("GET", "/v1/generations/:id", {}, async (c, ctx, { params }) => {
    if (acceptsEventStream(requestHeader(c, "accept"))) {
      // A slot of the key's open readers, given back when the stream ends or the client leaves.
      const release = acquireKeyReader(ctx.actor.id);
      let follow: Awaited<ReturnType<typeof followRuns>>;
      try {
        follow = await followRuns(ctx, {
          ids: [params.id!],
          afterSeq: parseLastEventId(requestHeader(c, "last-event-id")),
        });
      } catch (err) {
        release();
        throw err;
      }
      const where = { requestId: c.get("requestId"), method: "GET", path: c.req.path };
      const body = eventStreamBody(
        releasingSource(release, async function* (stop) {
          for await (const event of follow(stop)) yield { id: event.seq, event: "generation", data: event.generation };
        }),
        { onError: (err) => loggedError(router.deps, err, where) },
      );
      return new Response(body, {
        headers: {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-cache, no-transform",
          "X-Accel-Buffering": "no",
          Vary: "Accept",
        },
      });
    }
    const wait = parsePreferWait(requestHeader(c, "prefer"));
    return generationResponse(
      await whileWaiting(c, ctx, wait, () => getGeneration(ctx, { id: params.id!, waitSeconds: wait })),
      200,
      { wait },
    );
  });

  // POST /v1/generations/:id/cancel – stop a run and release its hold; safe to repeat
  router.keyed("POST", "/v1/generations/:id/cancel", {}, async (_c, ctx, { params }) =>
    generationResponse(await cancelGeneration(ctx, { id: params.id! }), 200, { wait: null }),
  );
}
