import Link from "next/link";
import type { ReactNode } from "react";
import { readBalance, presentCredits } from "@/lib/core/credits";
import { getWorkspace } from "@/lib/core/workspaces";
import { SignOutButton } from "@/components/sign-out-button";
import { StudioNav } from "@/components/studio-nav";
import { requireStudioCtx } from "./studio-ctx";

export const dynamic = "force-dynamic";

const NAV: { href: string; label: string; opsOnly?: boolean }[] = [
  { href: "/catalog", label: "Catalog" },
  { href: "/runs", label: "Runs" },
  { href: "/keys", label: "API keys" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/ops", label: "Ops", opsOnly: true },
];

// The frame of every signed-in page: sidebar (a top bar on a phone), workspace and balance.
export default async function StudioLayout({ children }: { children: ReactNode }) {
  const ctx = await requireStudioCtx();
  const [workspace, balance] = await Promise.all([getWorkspace(ctx), readBalance(ctx.db, ctx.workspaceId)]);
  const credits = presentCredits(balance);
  const low = balance.availableMicros < 1_000_000;
  return (
    <div className="flex min-h-screen flex-col bg-zinc-50 md:flex-row">
      <aside className="flex shrink-0 flex-row items-center gap-4 border-b border-zinc-200 bg-white px-4 py-3 md:w-56 md:flex-col md:items-stretch md:border-r md:border-b-0 md:px-3 md:py-5">
        <Link href="/catalog" className="text-lg font-semibold tracking-tight text-zinc-900 md:px-2">
          Atelier
        </Link>
        <StudioNav items={NAV.filter((item) => !item.opsOnly || ctx.user.role === "ops")} />
        <div className="flex items-center gap-2 text-xs text-zinc-500 md:block md:border-t md:border-zinc-200 md:px-2 md:pt-3">
          <div className="hidden truncate md:block" title={ctx.user.email}>
            {ctx.user.email}
          </div>
          <div className="mb-2 hidden capitalize md:block">{ctx.user.role}</div>
          <SignOutButton />
        </div>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex items-center justify-between border-b border-zinc-200 bg-white px-6 py-3">
          <div className="text-sm font-medium text-zinc-900">{workspace.name}</div>
          <div className={`text-sm ${low ? "text-amber-700" : "text-zinc-600"}`} data-testid="balance">
            ${credits.available_usd} available
            {balance.heldMicros > 0 ? <span className="text-zinc-500"> · ${credits.held_usd} held</span> : null}
            {low ? <span className="ml-2 text-xs">Low credit: ask ops to add some.</span> : null}
          </div>
        </header>
        <main className="flex-1 px-6 py-8">{children}</main>
      </div>
    </div>
  );
}
