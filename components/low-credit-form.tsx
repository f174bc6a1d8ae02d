"use client";
// The Budgets page's low-balance alert: the threshold under which the available balance writes a
// credits.low webhook event (once per crossing), set with a small form (react-hook-form; the rules
// are the core's, whose message lands under the field) or cleared.
import { useId, useState, useTransition } from "react";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import type { LowCreditAlert } from "@/lib/core/credits/credits-shape";
import { clearLowCreditAction, setLowCreditAction } from "@/app/_studio/actions/budgets";
import { card, danger, primary } from "./webhooks-ui";

const input =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 focus:outline-2 focus:outline-indigo-500/40 aria-[invalid=true]:border-red-400 sm:text-sm";

export function LowCreditForm({ alert }: { alert: LowCreditAlert }) {
  const id = useId();
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [clearError, setClearError] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<{ usd: string }>({
    defaultValues: { usd: alert.threshold_usd ?? "" },
  });
  const error = formState.errors.usd;

  async function onSubmit(values: { usd: string }) {
    setClearError(null);
    const result = await setLowCreditAction(values.usd);
    if (!result.ok) return setError("usd", { message: result.message }, { shouldFocus: true });
    router.refresh();
  }

  const clear = () =>
    startTransition(async () => {
      setClearError(null);
      const result = await clearLowCreditAction();
      if (!result.ok) return setClearError(result.message);
      reset({ usd: "" });
      router.refresh();
    });

  return (
    <section aria-labelledby={`${id}-heading`} className={`${card} p-5`} data-testid="low-credit">
      <h2 id={`${id}-heading`} className="text-base font-semibold text-zinc-900">
        Low balance alert
      </h2>
      <p className="mt-1 text-sm text-zinc-500" data-testid="low-credit-state">
        {alert.threshold_usd === null ? (
          <>No alert set. </>
        ) : (
          <>
            Alerting under <span className="font-medium text-zinc-900 tabular-nums">${alert.threshold_usd}</span>
            {alert.under ? <span className="font-medium text-amber-700">: the balance is under it now</span> : null}
            .{" "}
          </>
        )}
        Available now: <span className="tabular-nums">${alert.available_usd}</span>.
      </p>
      <form
        onSubmit={(e) => void handleSubmit(onSubmit)(e)}
        aria-label="Set the low balance alert"
        className="mt-3 flex flex-wrap items-end gap-3"
        noValidate
      >
        <div className="w-48">
          <label htmlFor={`${id}-usd`} className="block text-sm font-medium text-zinc-700">
            Alert under <span className="font-normal text-zinc-400">(USD)</span>
          </label>
          <input
            id={`${id}-usd`}
            inputMode="decimal"
            autoComplete="off"
            placeholder="e.g. 5"
            aria-invalid={error ? true : undefined}
            aria-describedby={[`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(" ")}
            {...register("usd")}
            className={`${input} tabular-nums`}
          />
        </div>
        <button type="submit" disabled={formState.isSubmitting} className={primary}>
          Save alert
        </button>
        {alert.threshold_usd !== null ? (
          <button type="button" className={danger} disabled={pending} onClick={clear}>
            Clear alert
          </button>
        ) : null}
        {error ? (
          <p id={`${id}-error`} className="basis-full text-sm text-red-700" data-testid="low-credit-error">
            {error.message}
          </p>
        ) : null}
        {clearError ? (
          <p role="alert" className="basis-full text-sm text-red-700">
            {clearError}
          </p>
        ) : null}
        <p id={`${id}-hint`} className="basis-full text-xs text-zinc-500">
          When the available balance drops under this amount, the workspace&apos;s webhook endpoints that take{" "}
          <code>credits.low</code> get one event; it fires again once added credit brings the balance back over it.
        </p>
      </form>
    </section>
  );
}
