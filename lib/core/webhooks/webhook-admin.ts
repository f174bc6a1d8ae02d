// Who may change where the workspace's events go: a key with generations:write, and when a member
// acts (in the studio, or through a key they made) an admin or owner.
import { requireScope, type Ctx } from "../context";
import { requireRole } from "../workspaces/roles";

export function requireWebhookAdmin(ctx: Ctx): void {
  requireRole(ctx, "admin", "manage webhooks");
  requireScope(ctx, "generations:write");
}
