// The studio door's context: the signed-in user's workspace (the session's) and role there, with source "studio". Every page
// and server action of the studio gets its Ctx here, never from a form.
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { scopesOfRole, type Ctx } from "@/lib/core/context";
import { getRuntime } from "@/lib/boot/runtime";
import { studioUser, type StudioUser } from "@/app/auth";
import { CLIENT_IP_HEADER } from "@/app/studio-throttles";
import { plainAddress } from "@/lib/primitives/http/client-address";

export { studioUser, type StudioUser };

export async function requireStudioCtx(): Promise<Ctx & { user: StudioUser }> {
  const user = await studioUser();
  if (!user) redirect("/sign-in");
  return studioCtxFor(user);
}

/**
 * The request's address: server.ts stamps the connection's on every studio request, replacing
 * whatever a client sent (app/studio-budget-door.ts). Kept with the audit events of its changes.
 */
export async function studioClientIp(): Promise<string | undefined> {
  const ip = (await headers()).get(CLIENT_IP_HEADER);
  return ip && ip !== "unknown" ? plainAddress(ip) : undefined;
}

/** The Ctx of a signed-in user (route handlers answer 401 themselves when there is none). */
export async function studioCtxFor(user: StudioUser): Promise<Ctx & { user: StudioUser }> {
  const [{ store, services }, ip] = await Promise.all([getRuntime(), studioClientIp()]);
  return {
    db: store.db,
    workspaceId: user.workspaceId,
    actor: { kind: "user", id: user.id },
    // The member's role decides: a viewer reads and cannot spend (workspaces/roles.ts).
    scopes: scopesOfRole(user.role),
    role: user.role,
    source: "studio",
    // Same-origin blob links and named downloads in the studio's pages (Services.studioLinks).
    services: { ...services, studioLinks: true },
    user,
    ...(ip !== undefined && { ip }),
  };
}

// requireOps' imports, here rather than at the top (the top belongs to the session functions).
import { notFound } from "next/navigation";
import { ApiError } from "@/lib/primitives/errors";
import { opsPrincipal, type OpsCtx } from "@/lib/core/ops/ops-principal";

/**
 * The ops pages' and actions' door: the signed-in user's Ctx and the ops principal, which only
 * a user whose role in the store is ops gets (lib/core/ops/ops-principal.ts); anyone else gets the
 * 404 of a page that is not theirs. Each ops page and action calls it itself before any read:
 * Next renders a layout and its page at once, so a check in the layout alone stops nothing.
 */
export async function requireOps(): Promise<{ ctx: Ctx & { user: StudioUser }; ops: OpsCtx }> {
  const ctx = await requireStudioCtx();
  try {
    return { ctx, ops: await opsPrincipal(ctx.db, ctx.user.id, ctx.services.historyReads, ctx.ip) };
  } catch (err) {
    if (err instanceof ApiError && err.code === "resource_not_found") notFound();
    throw err;
  }
}

/**
 * The ops principal of a signed-in user who operates the install, else null: for a page that ops
 * and members both open (the Audit page shows ops every workspace).
 */
export async function studioOps(ctx: Ctx & { user: StudioUser }): Promise<OpsCtx | null> {
  if (!ctx.user.isOps) return null;
  try {
    return await opsPrincipal(ctx.db, ctx.user.id, ctx.services.historyReads, ctx.ip);
  } catch (err) {
    if (err instanceof ApiError && err.code === "resource_not_found") return null;
    throw err;
  }
}
