import {
  getModel,
  getPublicModel,
  listCatalogJson,
  listModelsJson,
  deprecationHeaders,
} from "../../lib/core/catalog/catalog";
import { jsonResponse, serializedJsonResponse } from "../respond";
import type { Router } from "../route";

// The public twins may sit in a CDN for an hour (docs/api.md, "Model entries"). Their `availability` can be that old; the
// keyed /v1/models, quotes and runs always answer the live state.
const PUBLIC_CACHE = { "Cache-Control": "public, max-age=3600, s-maxage=3600" };

export function modelRoutes(router: Router): void {
  // GET /v1/models – every model and preset the key can run
  router.keyed("GET", "/v1/models", {}, async (_c, ctx) => serializedJsonResponse(await listModelsJson(ctx)));

  // GET /v1/models/:creator/:name – one entry with its input schema
  router.keyed("GET", "/v1/models/:creator/:name", {}, async (_c, ctx, { params }) => {
    const model = await getModel(ctx, { id: `${params.creator}/${params.name}` });
    return jsonResponse(model, 200, deprecationHeaders(model));
  });

  // GET /v1/public/models – the catalog without a key
  router.open("GET", "/v1/public/models", {}, async (_c, _parts, sys) =>
    serializedJsonResponse(await listCatalogJson(sys.db), 200, PUBLIC_CACHE),
  );

  // GET /v1/public/models/:creator/:name – one entry without a key
  router.open("GET", "/v1/public/models/:creator/:name", {}, async (_c, { params }, sys) => {
    const model = await getPublicModel(sys.db, { id: `${params.creator}/${params.name}` });
    return jsonResponse(model, 200, { ...PUBLIC_CACHE, ...deprecationHeaders(model) });
  });
}
