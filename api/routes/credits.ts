import { getCredits } from "../../lib/core/credits/credits";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

export function creditRoutes(router: Router): void {
  // GET /v1/credits – the workspace's available and held balance
  router.keyed("GET", "/v1/credits", {}, async (_c, ctx) => jsonResponse(await getCredits(ctx)));
}
