import { readBudgets } from "@/lib/core/budgets/budget-reads";
import { readLowCreditAlert } from "@/lib/core/credits/low-credit";
import { listApiKeys } from "@/lib/core/keys/api-keys";
import { listMembers } from "@/lib/core/workspaces/members";
import { roleAtLeast } from "@/lib/core/workspaces/roles";
import { BudgetsManager } from "@/components/budgets-manager";
import { LowCreditForm } from "@/components/low-credit-form";
import { RoleNotice } from "@/components/role-notice";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";

export const dynamic = "force-dynamic";
export const metadata = { title: "Budgets · Atelier" };

// Owners and admins: what the workspace, each member and each key may spend per UTC day and
// month, and what is spent and left, and the low-balance alert. Read through the same verb as
// GET /v1/budgets, with this page's Ctx: the role is checked where the budgets are read.
export default async function BudgetsPage() {
  const ctx = await requireStudioCtx();
  if (!roleAtLeast(ctx.user.role, "admin"))
    return (
      <RoleNotice title="Budgets" role={ctx.user.role} who="Admins and owners set what the workspace may spend." />
    );
  const [{ data: budgets }, members, keys, lowCredit] = await Promise.all([
    readBudgets(ctx),
    listMembers(ctx),
    listApiKeys(ctx, { workspaceId: ctx.workspaceId }),
    readLowCreditAlert(ctx),
  ]);
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Budgets</h1>
        <p className="mt-1 text-sm text-zinc-500">
          Caps on what runs may spend per UTC day and month: for the whole workspace, a member (their studio runs and
          their keys&apos; runs) or an API key. A run counts from when it starts; a canceled or failed run gives its
          amount back.
        </p>
      </div>
      <BudgetsManager
        budgets={budgets}
        members={members.map((m) => ({ userId: m.user_id, email: m.email, role: m.role }))}
        keys={keys.map((k) => ({ id: k.id, name: k.name, hint: k.hint, revoked: k.revoked_at !== null }))}
      />
      <LowCreditForm alert={lowCredit} />
    </div>
  );
}
