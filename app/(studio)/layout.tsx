import Link from "next/link";
import type { ReactNode } from "react";
import { getWorkspace } from "@/lib/core/workspaces/workspaces";
import { listUserWorkspaces } from "@/lib/core/workspaces/members";
import { roleAtLeast, type MemberRole } from "@/lib/core/workspaces/roles";
import { WorkspaceSwitcher } from "@/components/workspace-switcher";
import { AccountMenu } from "@/components/account-menu";
import { BalanceBadge } from "@/components/balance-badge";
import { SpendBanner } from "@/components/spend-banner";
import { spendWarnings } from "@/lib/core/budgets/spend-warnings";
import { StudioNav } from "@/components/studio-nav";
import { requireStudioCtx } from "@/app/_studio/studio-ctx";
import { studioBalance } from "@/app/_studio/studio-balance";

export const dynamic = "force-dynamic";

// Each page checks its own reader's rights; the menu only leaves out what the role cannot open.
const NAV: { href: string; label: string; least?: MemberRole; opsOnly?: boolean; orOps?: boolean }[] = [
  { href: "/catalog", label: "Catalog" },
  { href: "/runs", label: "Runs" },
  { href: "/files", label: "Files" },
  { href: "/keys", label: "API keys" },
  { href: "/webhooks", label: "Webhooks", least: "admin" },
  { href: "/members", label: "Members", least: "admin" },
  { href: "/budgets", label: "Budgets", least: "admin" },
  // Ops see every workspace's audit log, whatever their role here.
  { href: "/audit", label: "Audit", least: "admin", orOps: true },
  // Spend is the workspace's money: admins and owners; ops see every workspace's.
  { href: "/usage", label: "Usage", least: "admin", orOps: true },
  { href: "/ops", label: "Ops", opsOnly: true },
];

// The frame of every signed-in page: sidebar (a top bar on a phone), workspace and balance.
export default async function StudioLayout({ children }: { children: ReactNode }) {
  const ctx = await requireStudioCtx();
  const [workspace, balance, workspaces, warnings] = await Promise.all([
    getWorkspace(ctx),
    studioBalance(ctx),
    listUserWorkspaces(ctx.db, ctx.user.id),
    spendWarnings(ctx),
  ]);
  const items = NAV.filter(
    (item) =>
      (!item.opsOnly || ctx.user.isOps) &&
      (item.least === undefined || roleAtLeast(ctx.user.role, item.least) || (item.orOps === true && ctx.user.isOps)),
  );
  return (
    <div className="flex min-h-screen flex-col bg-zinc-50 md:flex-row">
      <aside className="flex shrink-0 flex-row items-center gap-4 border-b border-zinc-200 bg-white px-4 py-3 md:w-56 md:flex-col md:items-stretch md:border-r md:border-b-0 md:px-3 md:py-5">
        <Link href="/catalog" className="text-lg font-semibold tracking-tight text-zinc-900 md:px-2">
          Atelier
        </Link>
        <StudioNav items={items.map(({ href, label }) => ({ href, label }))} />
        <AccountMenu email={ctx.user.email} role={ctx.user.isOps ? "Operates this install" : null} />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex items-center justify-between gap-4 border-b border-zinc-200 bg-white px-4 py-3 md:px-6">
          <WorkspaceSwitcher
            current={{ id: workspace.id, name: workspace.name, role: ctx.user.role }}
            workspaces={workspaces}
          />
          <BalanceBadge initial={balance} />
        </header>
        <SpendBanner warnings={warnings} />
        <main className="flex-1 px-4 py-6 md:px-6 md:py-8">{children}</main>
      </div>
    </div>
  );
}
