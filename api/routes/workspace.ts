import { getWorkspace } from "../../lib/core/workspaces/workspaces";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

export function workspaceRoutes(router: Router): void {
  // GET /v1/workspace – the workspace the key belongs to
  router.keyed("GET", "/v1/workspace", {}, async (_c, ctx) => jsonResponse(await getWorkspace(ctx)));
}
