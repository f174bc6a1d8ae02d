import Link from "next/link";
import type { SpendWarning } from "@/lib/core/budgets/spend-warnings";

// The studio's money warnings under the header (owners and admins only: the layout reads them
// with the reader's Ctx). Red when nothing more can start under a budget, amber before that.
export function SpendBanner({ warnings }: { warnings: SpendWarning[] }) {
  if (warnings.length === 0) return null;
  return (
    <div role="status" aria-label="Spending alerts" className="space-y-px border-b border-zinc-200">
      {warnings.map((warning) => (
        <p
          key={warning.message}
          className={`flex flex-wrap items-center justify-between gap-x-4 gap-y-1 px-4 py-2 text-sm md:px-6 ${
            warning.tone === "danger" ? "bg-red-50 text-red-800" : "bg-amber-50 text-amber-900"
          }`}
        >
          <span>{warning.message}</span>
          <Link href={warning.href} className="font-medium underline underline-offset-2">
            Review budgets
          </Link>
        </p>
      ))}
    </div>
  );
}
