// Reading a workspace's budgets through a door with a Ctx: GET /v1/budgets and the studio's
// Budgets page. What a workspace may spend is its owners' and admins' business, as its audit log
// is: a key a member made reads them while that member is an admin or owner; a key the admin CLI
// made reads them with its workspace:read scope.
import { requireScope, type Ctx } from "../context";
import { requireRole } from "../workspaces/roles";
import { listBudgets } from "./budgets";
import type { BudgetList } from "./budget-shape";

export async function readBudgets(ctx: Ctx): Promise<BudgetList> {
  requireScope(ctx, "workspace:read");
  requireRole(ctx, "admin", "read budgets");
  return { object: "list", data: await listBudgets(ctx) };
}
