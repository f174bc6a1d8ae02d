import { openApiDocument } from "../openapi/document";
import { serializedJsonResponse } from "../respond";
import type { Router } from "../route";

let json: string | null = null;

export function openApiRoutes(router: Router): void {
  // GET /v1/openapi.json – the OpenAPI 3.1 document of this API; public and cacheable for an hour
  router.open("GET", "/v1/openapi.json", {}, () => {
    json ??= JSON.stringify(openApiDocument());
    return serializedJsonResponse(json, 200, { "Cache-Control": "public, max-age=3600" });
  });
}
