// One period of a budget on the Budgets page: the cap, a bar of what its runs spent, and what is
// left, in words too (never colour alone). A period without a cap says so.
export function BudgetPeriod({
  label,
  cap,
  spent,
  left,
  when,
}: {
  label: string;
  cap: string | null;
  spent: string | null;
  left: string | null;
  when: string;
}) {
  if (cap === null || spent === null || left === null)
    return (
      <div className="text-sm text-zinc-500">
        <span className="font-medium text-zinc-700">{label}</span>: no cap
      </div>
    );
  const share = Number(cap) === 0 ? 1 : Math.min(1, Number(spent) / Number(cap));
  const tone = share >= 1 ? "bg-red-500" : share >= 0.8 ? "bg-amber-500" : "bg-indigo-500";
  return (
    <div className="text-sm">
      <div className="flex items-baseline justify-between gap-2">
        <span className="font-medium text-zinc-700">{label}</span>
        <span className="text-zinc-900 tabular-nums">${cap}</span>
      </div>
      <div
        className="mt-1.5 h-1.5 overflow-hidden rounded-full bg-zinc-100"
        role="meter"
        aria-label={`${label} spent`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(share * 100)}
      >
        <div className={`h-full ${tone}`} style={{ width: `${share * 100}%` }} />
      </div>
      <p className="mt-1 text-xs text-zinc-500 tabular-nums">
        ${spent} spent {when} ·{" "}
        <span className={Number(left) === 0 ? "font-medium text-red-700" : ""}>${left} left</span>
      </p>
    </div>
  );
}
