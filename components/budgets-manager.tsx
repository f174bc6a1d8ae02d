"use client";
// The Budgets page's interactive part: set or change a cap (react-hook-form; the rules are the
// core's, whose messages land under the field they name), and each budget with what its runs
// spent and what is left today and this month, with Edit, a cap's Clear and Remove.
import { useId, useRef, useState, useTransition } from "react";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import type { Budget } from "@/lib/core/budgets/budget-shape";
import { clearBudgetAction, setBudgetAction, type BudgetSubjectChoice } from "@/app/_studio/actions/budgets";
import { BudgetPeriod } from "./budget-period";
import { card, danger, primary, quiet } from "./webhooks-ui";

export interface BudgetMember {
  userId: string;
  email: string;
  role: string;
}

export interface BudgetKey {
  id: string;
  name: string;
  hint: string;
  revoked: boolean;
}

interface FormValues {
  subject: string;
  daily: string;
  monthly: string;
}
const FIELDS = ["subject", "daily", "monthly"] as const;
const SCOPE_WORDS = { workspace: "Workspace", member: "Member", key: "API key" } as const;

const input =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 focus:outline-2 focus:outline-indigo-500/40 aria-[invalid=true]:border-red-400 sm:text-sm";

/** The picker's value of a budget's subject: "workspace", "member:<email>" or "key:<id>". */
function subjectValue(b: Pick<Budget, "scope" | "subject_id" | "email">): string {
  if (b.scope === "member") return `member:${b.email ?? b.subject_id}`;
  return b.scope === "key" ? `key:${b.subject_id}` : "workspace";
}

function choice(value: string): BudgetSubjectChoice {
  if (value.startsWith("member:")) return { member: value.slice("member:".length) };
  if (value.startsWith("key:")) return { key: value.slice("key:".length) };
  return {};
}

function keyLabel(key: BudgetKey | undefined, id: string): string {
  if (!key) return `API key ${id}`;
  return `Key “${key.name}” (${key.hint})${key.revoked ? ", revoked" : ""}`;
}

export function BudgetsManager({
  budgets,
  members,
  keys,
}: {
  budgets: Budget[];
  members: BudgetMember[];
  keys: BudgetKey[];
}) {
  const id = useId();
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const [pending, startTransition] = useTransition();
  const [error, setError_] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset, setFocus, getValues } = useForm<FormValues>({
    defaultValues: { subject: "workspace", daily: "", monthly: "" },
  });
  const errors = formState.errors;
  const keyById = new Map(keys.map((k) => [k.id, k]));
  const name = (b: Budget) =>
    b.scope === "workspace"
      ? "The workspace"
      : b.scope === "member"
        ? (b.email ?? b.subject_id)
        : keyLabel(keyById.get(b.subject_id), b.subject_id);

  async function onSubmit(values: FormValues) {
    setError_(null);
    const result = await setBudgetAction(choice(values.subject), { daily: values.daily, monthly: values.monthly });
    if (!result.ok) {
      const param = result.param === "member" || result.param === "key" ? "subject" : result.param;
      const field = (FIELDS as readonly string[]).includes(param ?? "") ? (param as (typeof FIELDS)[number]) : null;
      if (field) setError(field, { message: result.message }, { shouldFocus: true });
      else setError("root.server", { message: result.message });
      return;
    }
    // Emptied for the next budget, unless something was typed while this one was saved.
    const now = getValues();
    if (now.subject === values.subject && now.daily === values.daily && now.monthly === values.monthly)
      reset({ subject: values.subject, daily: "", monthly: "" });
    router.refresh();
  }

  const edit = (b: Budget) => {
    reset({ subject: subjectValue(b), daily: b.daily_usd ?? "", monthly: b.monthly_usd ?? "" });
    formRef.current?.scrollIntoView({ block: "start" });
    setFocus("daily");
  };

  const clear = (b: Budget, only: "daily" | "monthly" | null) =>
    startTransition(async () => {
      setError_(null);
      const result = await clearBudgetAction(choice(subjectValue(b)), only);
      if (!result.ok) return setError_(result.message);
      router.refresh();
    });

  const describedBy = (field: (typeof FIELDS)[number], hint?: string) =>
    [hint, errors[field] ? `${id}-${field}-error` : null].filter(Boolean).join(" ") || undefined;
  const fieldError = (field: (typeof FIELDS)[number]) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} className="mt-1 text-sm text-red-700" data-testid={`budget-error-${field}`}>
        {errors[field]?.message}
      </p>
    ) : null;

  return (
    <div className="space-y-8">
      {error ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-2 text-sm text-red-800">
          {error}
        </p>
      ) : null}

      <section aria-labelledby={`${id}-heading`} className={`${card} p-5`}>
        <h2 id={`${id}-heading`} className="text-base font-semibold text-zinc-900">
          Set a budget
        </h2>
        <form
          ref={formRef}
          onSubmit={(e) => void handleSubmit(onSubmit)(e)}
          aria-label="Set a budget"
          className="mt-3 grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-start"
          noValidate
        >
          <div>
            <label htmlFor={`${id}-subject`} className="block text-sm font-medium text-zinc-700">
              Applies to
            </label>
            <select
              id={`${id}-subject`}
              aria-invalid={errors.subject ? true : undefined}
              aria-describedby={describedBy("subject")}
              {...register("subject")}
              className={input}
            >
              <option value="workspace">The whole workspace</option>
              {members.length ? (
                <optgroup label="A member: their studio runs and their keys' runs">
                  {members.map((m) => (
                    <option key={m.userId} value={`member:${m.email}`}>
                      {m.email} ({m.role})
                    </option>
                  ))}
                </optgroup>
              ) : null}
              {keys.some((k) => !k.revoked) ? (
                <optgroup label="An API key: its runs">
                  {keys
                    .filter((k) => !k.revoked)
                    .map((k) => (
                      <option key={k.id} value={`key:${k.id}`}>
                        {keyLabel(k, k.id)}
                      </option>
                    ))}
                </optgroup>
              ) : null}
            </select>
            {fieldError("subject")}
          </div>
          {(["daily", "monthly"] as const).map((field) => (
            <div key={field}>
              <label htmlFor={`${id}-${field}`} className="block text-sm font-medium text-zinc-700">
                {field === "daily" ? "Daily cap" : "Monthly cap"}{" "}
                <span className="font-normal text-zinc-400">(USD)</span>
              </label>
              <input
                id={`${id}-${field}`}
                inputMode="decimal"
                autoComplete="off"
                placeholder={field === "daily" ? "e.g. 25" : "e.g. 500"}
                aria-invalid={errors[field] ? true : undefined}
                aria-describedby={describedBy(field, `${id}-hint`)}
                {...register(field)}
                className={`${input} tabular-nums`}
              />
              {fieldError(field)}
            </div>
          ))}
          <button type="submit" disabled={formState.isSubmitting} className={`${primary} sm:mt-6`}>
            Save budget
          </button>
          <p id={`${id}-hint`} className="text-xs text-zinc-500 sm:col-span-4">
            UTC days and calendar months. A blank field keeps that cap as it is; 0 lets nothing be spent. A run that
            would go past a cap is refused before it starts.
          </p>
          {errors.root?.server ? (
            <p role="alert" className="text-sm text-red-700 sm:col-span-4">
              {errors.root.server.message}
            </p>
          ) : null}
        </form>
      </section>

      <section aria-labelledby={`${id}-list`}>
        <h2 id={`${id}-list`} className="mb-2 text-base font-semibold text-zinc-900">
          Current budgets
        </h2>
        {budgets.length === 0 ? (
          <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-8 text-center text-sm text-zinc-500">
            No budgets yet: the workspace may spend its whole balance. Set one above.
          </div>
        ) : (
          <ul className="space-y-3">
            {budgets.map((b) => (
              <li
                key={`${b.scope}:${b.subject_id}`}
                className={`${card} p-4`}
                data-testid="budget-row"
                data-scope={b.scope}
              >
                <div className="flex flex-wrap items-start justify-between gap-2">
                  <div className="min-w-0">
                    <p className="truncate font-medium text-zinc-900">{name(b)}</p>
                    <p className="text-xs text-zinc-500">{SCOPE_WORDS[b.scope]}</p>
                  </div>
                  <div className="flex shrink-0 gap-1">
                    <button
                      type="button"
                      className={quiet}
                      onClick={() => edit(b)}
                      aria-label={`Edit the budget of ${name(b)}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className={danger}
                      disabled={pending}
                      onClick={() => clear(b, null)}
                      aria-label={`Remove the budget of ${name(b)}`}
                    >
                      Remove
                    </button>
                  </div>
                </div>
                <div className="mt-3 grid gap-4 sm:grid-cols-2">
                  {(
                    [
                      ["daily", "Daily", b.daily_usd, b.spent_today_usd, b.left_today_usd, "today"],
                      [
                        "monthly",
                        "Monthly",
                        b.monthly_usd,
                        b.spent_this_month_usd,
                        b.left_this_month_usd,
                        "this month",
                      ],
                    ] as const
                  ).map(([field, label, cap, spent, left, when]) => (
                    <div key={field} data-testid={`budget-${field}`}>
                      <BudgetPeriod label={label} cap={cap} spent={spent} left={left} when={when} />
                      {/* Clearing the only cap is removing the budget: one button for that. */}
                      {cap !== null && b.daily_usd !== null && b.monthly_usd !== null ? (
                        <button
                          type="button"
                          className={`${quiet} mt-1 -ml-3 text-xs`}
                          disabled={pending}
                          onClick={() => clear(b, field)}
                          aria-label={`Clear the ${field} cap of ${name(b)}`}
                        >
                          Clear {field} cap
                        </button>
                      ) : null}
                    </div>
                  ))}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
