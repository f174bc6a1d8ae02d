import { quoteRun } from "../../lib/core/runs/quotes";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

export function quoteRoutes(router: Router): void {
  // POST /v1/quotes – the exact price of a run; starts nothing
  router.keyed("POST", "/v1/quotes", { body: true }, async (_c, ctx, { body }) => {
    const { quote, headers } = await quoteRun(ctx, body);
    return jsonResponse(quote, 200, headers);
  });
}
