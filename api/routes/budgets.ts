import { readBudgets } from "../../lib/core/budgets/budget-reads";
import { jsonResponse } from "../respond";
import type { Router } from "../route";

export function budgetRoutes(router: Router): void {
  // GET /v1/budgets – the workspace's caps and what each has spent and has left (owners and admins)
  router.keyed("GET", "/v1/budgets", {}, async (_c, ctx) => jsonResponse(await readBudgets(ctx)));
}
