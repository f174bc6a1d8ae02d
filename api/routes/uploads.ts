import { completeUpload, getUpload, openUpload, receiveUploadContent } from "../../lib/core/files/uploads";
import type { ApiDeps } from "../env";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

export function uploadRoutes(router: Router, deps: ApiDeps): void {
  // POST /v1/uploads – open a direct upload of a video or sound
  router.keyed("POST", "/v1/uploads", { body: true }, async (_c, ctx, { body }) => {
    const upload = await openUpload(ctx, body);
    return jsonResponse(upload, 201, { Location: `/v1/uploads/${upload.id}` });
  });

  // PUT /v1/uploads/:id/content – the bytes, to the signed URL (no API key)
  router.open("PUT", "/v1/uploads/:id/content", { query: ["expires", "signature"] }, async (c, { params, query }) =>
    jsonResponse(
      await receiveUploadContent(
        { db: deps.store.db, services: deps.services },
        { id: params.id!, expires: query.expires, signature: query.signature, body: chunksOf(c.req.raw.body) },
      ),
    ),
  );

  // POST /v1/uploads/:id/complete – check size and type, measure, and answer the File
  router.keyed("POST", "/v1/uploads/:id/complete", {}, async (_c, ctx, { params }) =>
    jsonResponse(await completeUpload(ctx, { id: params.id! })),
  );

  // GET /v1/uploads/:id – an upload and, once completed, its File
  router.keyed("GET", "/v1/uploads/:id", {}, async (_c, ctx, { params }) =>
    jsonResponse(await getUpload(ctx, { id: params.id! })),
  );
}
