import { listInvitations } from "@/lib/core/workspaces/invitations";
import { creatorKeysAllowed, listMembers } from "@/lib/core/workspaces/members";
import { MEMBER_ROLES, roleAtLeast } from "@/lib/core/workspaces/roles";
import { MembersManager } from "@/components/members-manager";
import { RoleNotice } from "@/components/role-notice";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export const dynamic = "force-dynamic";
export const metadata = { title: "Members · Atelier" };

// Owners and admins: who belongs to this workspace, with which role, and who is invited.
export default async function MembersPage() {
  const ctx = await requireStudioCtx();
  if (!roleAtLeast(ctx.user.role, "admin"))
    return <RoleNotice title="Members" role={ctx.user.role} who="Admins and owners invite people and manage roles." />;
  const [members, invitations, creatorKeys] = await Promise.all([
    listMembers(ctx),
    listInvitations(ctx),
    creatorKeysAllowed(ctx.db, ctx.workspaceId),
  ]);
  // An admin gives the roles below owner; an owner gives every role.
  const assignable = MEMBER_ROLES.filter((role) => ctx.user.role === "owner" || role !== "owner");
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Members</h1>
        <p className="mt-1 text-sm text-zinc-500">
          Owners do everything; admins manage keys, webhooks and members below owner; creators run models; viewers see
          runs and outputs without spending.
        </p>
      </div>
      <MembersManager
        members={members.map((m) => ({
          userId: m.user_id,
          email: m.email,
          role: m.role,
          joinedAt: m.joined_at,
          lastSeenAt: m.last_seen_at,
        }))}
        invitations={invitations.map((i) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expires_at }))}
        assignable={[...assignable]}
        me={ctx.user.id}
        creatorKeys={creatorKeys}
      />
    </div>
  );
}
