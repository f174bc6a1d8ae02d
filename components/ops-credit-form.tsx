"use client";
import { useActionState, useState } from "react";
import { grantCreditAction, type GrantResult } from "@/app/_studio/actions/ops";

/** The ops forms' field and submit button (ops-workspace-form.tsx too). */
export const field =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm focus-visible:border-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-500";

export const submit =
  "rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-60";

export function OpsCreditForm({ workspaces }: { workspaces: { id: string; name: string; available_usd: string }[] }) {
  // Controlled fields: React resets a form after its action runs, which would silently switch
  // the workspace back to the first one.
  const [workspace, setWorkspace] = useState(workspaces[0]?.id ?? "");
  const [amount, setAmount] = useState("");
  const [result, action, pending] = useActionState<GrantResult | null, FormData>(async (previous, form) => {
    const answer = await grantCreditAction(previous, form);
    if (answer.ok) setAmount("");
    return answer;
  }, null);
  return (
    <form action={action} aria-label="Add credit" className="grid gap-4 sm:grid-cols-[2fr_1fr_2fr_auto] sm:items-end">
      <label className="block text-sm font-medium text-zinc-700">
        Workspace
        <select
          name="workspace"
          className={field}
          required
          value={workspace}
          onChange={(e) => setWorkspace(e.target.value)}
        >
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} · ${w.available_usd} available
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm font-medium text-zinc-700">
        Amount (USD)
        <input
          name="amount"
          inputMode="decimal"
          placeholder="10.00"
          className={field}
          required
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
        />
      </label>
      <label className="block text-sm font-medium text-zinc-700">
        Note <span className="font-normal text-zinc-400">(optional)</span>
        <input name="note" maxLength={200} placeholder="Monthly top-up" className={field} />
      </label>
      <button type="submit" disabled={pending} className={submit}>
        {pending ? "Adding…" : "Add credit"}
      </button>
      {result ? (
        <p
          role={result.ok ? "status" : "alert"}
          className={`text-sm sm:col-span-4 ${result.ok ? "text-emerald-700" : "text-red-700"}`}
        >
          {result.message}
        </p>
      ) : null}
    </form>
  );
}
