// The studio door's context: the signed-in user's workspace, with source "studio". Every page
// and server action of the studio gets its Ctx here, never from a form.
import { redirect } from "next/navigation";
import { SCOPES, type Ctx } from "@/lib/core/context";
import { getRuntime } from "@/lib/runtime";
import { studioUser, type StudioUser } from "../auth";

export { studioUser, type StudioUser };

export async function requireStudioCtx(): Promise<Ctx & { user: StudioUser }> {
  const user = await studioUser();
  if (!user) redirect("/sign-in");
  return studioCtxFor(user);
}

/** The Ctx of a signed-in user (route handlers answer 401 themselves when there is none). */
export async function studioCtxFor(user: StudioUser): Promise<Ctx & { user: StudioUser }> {
  const { store, services } = await getRuntime();
  return {
    db: store.db,
    workspaceId: user.workspaceId,
    actor: { kind: "user", id: user.id },
    scopes: [...SCOPES],
    source: "studio",
    // Same-origin blob links and named downloads in the studio's pages (Services.studioLinks).
    services: { ...services, studioLinks: true },
    user,
  };
}
