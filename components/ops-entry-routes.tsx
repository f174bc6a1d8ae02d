"use client";
// The entry editor's Routes section (issue 38): the other providers that serve the entry and how a
// run picks among them, as fields (ops-entry-routes-form.ts reads and writes the `routes` value).
// The server's parser judges what is typed; its refusal is shown at the field its path names.
import { useEffect, useRef, useState } from "react";
import {
  MAX_ROUTE_TARGETS,
  POLICY_TEXT,
  ROUTE_POLICIES,
  ROUTE_WEIGHT,
  blankTarget,
  type CostPer,
  type RouteProblem,
  type RouteSpot,
  type RoutesForm,
  type TargetForm,
} from "./ops-entry-routes-form";
import { BUTTON, FieldError, INPUT, LABEL, MONO } from "./ops-entry-ui";

export interface RouteProvider {
  id: string;
  kind: string;
  /** The kind's own entry fields (a workflow, output_fields…): what a target's JSON may hold. */
  entryFields?: readonly string[];
}

const SECONDARY = `${BUTTON} bg-white text-zinc-800 ring-1 ring-zinc-300 hover:bg-zinc-50`;
const SMALL =
  "rounded-md px-2 py-1 text-xs font-medium ring-1 ring-zinc-300 hover:bg-zinc-50 disabled:cursor-not-allowed disabled:opacity-40";

function sameSpot(a: RouteSpot, b: RouteSpot): boolean {
  if (a.at !== b.at) return false;
  return a.at !== "target" || (b.at === "target" && a.index === b.index && a.field === b.field);
}

export function RoutesSection(props: {
  form: RoutesForm;
  onChange: (form: RoutesForm) => void;
  providers: readonly RouteProvider[];
  /** The entry's own provider: it serves the entry already, so it is no target. */
  ownProvider: string;
  /** The price's unit: a declared cost per unit starts with it. */
  priceUnit: string;
  /** The form's own problems and the server's refusal, each at its spot. */
  problems: readonly RouteProblem[];
  /** Set when the document's routes are in "Other fields" (JSON the form cannot hold, or typed there). */
  inOtherFields: { adopt: () => string | null } | null;
}) {
  const { form, onChange, providers, ownProvider } = props;
  const [said, setSaid] = useState("");
  const [adoptError, setAdoptError] = useState<string | null>(null);
  const focusNext = useRef<string | null>(null);

  // After a move, add or remove, focus goes where the keyboard user expects it.
  useEffect(() => {
    const id = focusNext.current;
    if (!id) return;
    focusNext.current = null;
    const el = document.getElementById(id) as HTMLButtonElement | HTMLSelectElement | null;
    if (el && !(el as HTMLButtonElement).disabled) el.focus();
    else if (id.endsWith("-up")) document.getElementById(id.replace(/-up$/, "-down"))?.focus();
    else if (id.endsWith("-down")) document.getElementById(id.replace(/-down$/, "-up"))?.focus();
  });

  const errorAt = (spot: RouteSpot) => props.problems.find((p) => sameSpot(p.spot, spot))?.message;
  const weighted = form.policy === "weighted";
  const ordered = form.policy === "ordered";
  const used = new Set(form.targets.map((t) => t.provider));
  const free = providers.filter((p) => p.id !== ownProvider && !used.has(p.id));
  const setTargets = (targets: TargetForm[]) => onChange({ ...form, targets });
  const patch = (key: string, change: Partial<TargetForm>) =>
    setTargets(form.targets.map((t) => (t.key === key ? { ...t, ...change } : t)));

  function move(index: number, by: -1 | 1) {
    const to = index + by;
    if (to < 0 || to >= form.targets.length) return;
    const targets = [...form.targets];
    const [target] = targets.splice(index, 1);
    targets.splice(to, 0, target!);
    focusNext.current = `route-${target!.key}-${by < 0 ? "up" : "down"}`;
    setSaid(`Target ${index + 1} moved ${by < 0 ? "up" : "down"}: now target ${to + 1} of ${targets.length}.`);
    setTargets(targets);
  }

  function add() {
    const target = blankTarget(free[0]?.id ?? "");
    focusNext.current = `route-${target.key}-provider`;
    setSaid(`Target ${form.targets.length + 1} added.`);
    setTargets([...form.targets, target]);
  }

  function remove(index: number) {
    const target = form.targets[index]!;
    setSaid(`Target ${index + 1}${target.provider ? ` (${target.provider})` : ""} removed.`);
    focusNext.current = "route-add";
    setTargets(form.targets.filter((_, i) => i !== index));
  }

  const general = errorAt({ at: "general" });

  return (
    <section
      aria-labelledby="routes-heading"
      className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm sm:p-5"
      data-testid="routes"
    >
      <h2 id="routes-heading" className="text-base font-semibold text-zinc-900">
        Routes
      </h2>
      <p className="mt-1 mb-3 text-sm text-zinc-600">
        Other providers that serve this entry with the same input, and how a run picks among them. A target that fails
        with an outage before it could bill hands the run to the next; the run is charged its price once.
      </p>

      {props.inOtherFields ? (
        <div className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <p>This entry&apos;s routes are in Other fields (JSON) below.</p>
          <button
            type="button"
            className={`${SECONDARY} mt-2`}
            onClick={() => setAdoptError(props.inOtherFields!.adopt())}
          >
            Edit them here
          </button>
          <FieldError id="routes-adopt-error" message={adoptError ?? undefined} />
        </div>
      ) : (
        <>
          {form.targets.length === 0 ? (
            <p className="text-sm text-zinc-700" data-testid="routes-none">
              Served by its own provider only{ownProvider ? ` (${ownProvider})` : ""}.
            </p>
          ) : (
            <div className="space-y-4">
              <fieldset>
                <legend className={LABEL}>Policy</legend>
                <div className="mt-1 grid gap-2 sm:grid-cols-2">
                  {ROUTE_POLICIES.map((policy) => (
                    <label
                      key={policy}
                      className="flex cursor-pointer gap-2 rounded-md border border-zinc-200 px-3 py-2 has-[:checked]:border-indigo-500 has-[:checked]:bg-indigo-50 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500"
                    >
                      <input
                        type="radio"
                        name="route-policy"
                        value={policy}
                        className="mt-0.5 accent-indigo-600"
                        checked={form.policy === policy}
                        aria-describedby={`route-policy-${policy}-text`}
                        onChange={() => onChange({ ...form, policy })}
                      />
                      <span className="text-sm">
                        <span className="font-medium text-zinc-900">{POLICY_TEXT[policy].label}</span>
                        <span id={`route-policy-${policy}-text`} className="block text-xs text-zinc-600">
                          {POLICY_TEXT[policy].text}
                        </span>
                      </span>
                    </label>
                  ))}
                </div>
                <FieldError id="route-policy-error" message={errorAt({ at: "policy" })} />
              </fieldset>

              {weighted ? (
                <div className="sm:w-1/2">
                  <label className={LABEL}>
                    Weight of {ownProvider || "its own provider"} ({ROUTE_WEIGHT.min} to {ROUTE_WEIGHT.max})
                    <input
                      className={INPUT}
                      inputMode="numeric"
                      placeholder="1"
                      value={form.ownWeight}
                      aria-invalid={!!errorAt({ at: "ownWeight" })}
                      aria-describedby={errorAt({ at: "ownWeight" }) ? "route-own-weight-error" : undefined}
                      onChange={(e) => onChange({ ...form, ownWeight: e.target.value })}
                    />
                  </label>
                  <FieldError id="route-own-weight-error" message={errorAt({ at: "ownWeight" })} />
                </div>
              ) : null}

              <ol className="space-y-3">
                {form.targets.map((t, index) => (
                  <li key={t.key}>
                    <Target
                      target={t}
                      index={index}
                      count={form.targets.length}
                      policy={form.policy}
                      ordered={ordered}
                      weighted={weighted}
                      providers={providers}
                      ownProvider={ownProvider}
                      taken={used}
                      priceUnit={props.priceUnit}
                      errorAt={(field) => errorAt({ at: "target", index, field })}
                      onPatch={(change) => patch(t.key, change)}
                      onMove={(by) => move(index, by)}
                      onRemove={() => remove(index)}
                    />
                  </li>
                ))}
              </ol>
            </div>
          )}
          <div className="mt-3 flex flex-wrap items-center gap-3">
            <button
              id="route-add"
              type="button"
              className={SECONDARY}
              disabled={form.targets.length >= MAX_ROUTE_TARGETS || free.length === 0}
              onClick={add}
            >
              Add a target
            </button>
            <span className="text-xs text-zinc-500">
              {form.targets.length >= MAX_ROUTE_TARGETS
                ? `At most ${MAX_ROUTE_TARGETS} targets.`
                : free.length === 0
                  ? "No other stored provider is left to add (Ops → Providers adds one)."
                  : "Each a stored provider, each once; removing the last takes the routes away."}
            </span>
          </div>
        </>
      )}
      <FieldError id="routes-error" message={general} />
      <p className="sr-only" aria-live="polite" data-testid="routes-said">
        {said}
      </p>
    </section>
  );
}

function Target(props: {
  target: TargetForm;
  index: number;
  count: number;
  policy: string;
  ordered: boolean;
  weighted: boolean;
  providers: readonly RouteProvider[];
  ownProvider: string;
  taken: ReadonlySet<string>;
  priceUnit: string;
  errorAt: (field: "provider" | "upstream" | "weight" | "cost" | "extra") => string | undefined;
  onPatch: (change: Partial<TargetForm>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { target: t, index, errorAt } = props;
  const id = (field: string) => `route-${t.key}-${field}`;
  const n = index + 1;
  const known = props.providers.find((p) => p.id === t.provider);
  // A declared cost orders "cheapest"; under another policy it is shown once one is declared.
  const showCost = props.policy === "cheapest" || t.costPer !== "";
  const extraFields = known?.entryFields ?? [];
  const [extraOpen, setExtraOpen] = useState(t.extra.trim() !== "");
  const err = {
    provider: errorAt("provider"),
    upstream: errorAt("upstream"),
    weight: errorAt("weight"),
    cost: errorAt("cost"),
    extra: errorAt("extra"),
  };
  // A refusal of one of its fields opens the JSON, so the message is seen beside it.
  useEffect(() => {
    if (err.extra) setExtraOpen(true);
  }, [err.extra]);
  const described = (field: keyof typeof err) => (err[field] ? `${id(field)}-error` : undefined);

  return (
    <fieldset className="rounded-md border border-zinc-200 p-3" data-testid="route-target">
      <legend className="px-1 text-sm font-medium text-zinc-900">
        Target {n}
        {t.provider ? <span className="font-normal text-zinc-600">: {t.provider}</span> : null}
      </legend>
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          {/* Beside, not around, the select: its name is the label's words, not its options' too. */}
          <label className={LABEL} htmlFor={id("provider")}>
            Provider
          </label>
          <select
            id={id("provider")}
            className={INPUT}
            value={t.provider}
            aria-invalid={!!err.provider}
            aria-describedby={described("provider")}
            onChange={(e) => props.onPatch({ provider: e.target.value })}
          >
            {t.provider === "" ? <option value="">Choose a provider</option> : null}
            {t.provider !== "" && !known ? <option value={t.provider}>{t.provider} (not stored)</option> : null}
            {props.providers
              .filter((p) => p.id === t.provider || (p.id !== props.ownProvider && !props.taken.has(p.id)))
              .map((p) => (
                <option key={p.id} value={p.id}>
                  {p.id} ({p.kind})
                </option>
              ))}
          </select>
          <FieldError id={`${id("provider")}-error`} message={err.provider} />
        </div>
        <div>
          <label className={LABEL}>
            Upstream model
            <input
              className={INPUT}
              value={t.upstream}
              placeholder={known?.kind === "comfyui" ? "none: its workflow says" : "the model's id at this provider"}
              aria-invalid={!!err.upstream}
              aria-describedby={described("upstream")}
              onChange={(e) => props.onPatch({ upstream: e.target.value })}
            />
          </label>
          <FieldError id={`${id("upstream")}-error`} message={err.upstream} />
        </div>
        {props.weighted ? (
          <div>
            <label className={LABEL}>
              Weight ({ROUTE_WEIGHT.min} to {ROUTE_WEIGHT.max})
              <input
                className={INPUT}
                inputMode="numeric"
                placeholder="1"
                value={t.weight}
                aria-invalid={!!err.weight}
                aria-describedby={described("weight")}
                onChange={(e) => props.onPatch({ weight: e.target.value })}
              />
            </label>
            <FieldError id={`${id("weight")}-error`} message={err.weight} />
          </div>
        ) : null}
        {showCost ? (
          <div className="sm:col-span-2">
            <div className="grid gap-3 sm:grid-cols-3">
              <div>
                <label className={LABEL} htmlFor={id("cost-per")}>
                  Declared cost
                </label>
                <select
                  id={id("cost-per")}
                  className={INPUT}
                  value={t.costPer}
                  aria-invalid={!!err.cost}
                  aria-describedby={described("cost")}
                  onChange={(e) => {
                    const costPer = e.target.value as CostPer;
                    props.onPatch({
                      costPer,
                      ...(costPer === "unit" && !t.costUnit ? { costUnit: props.priceUnit } : {}),
                    });
                  }}
                >
                  <option value="">None declared</option>
                  <option value="unit">Per unit</option>
                  <option value="second">Per second of provider time</option>
                </select>
              </div>
              {t.costPer ? (
                <label className={LABEL}>
                  {t.costPer === "second" ? "USD per second" : "Cost in USD"}
                  <input
                    className={INPUT}
                    inputMode="decimal"
                    placeholder="0.03"
                    value={t.costUsd}
                    aria-invalid={!!err.cost}
                    aria-describedby={described("cost")}
                    onChange={(e) => props.onPatch({ costUsd: e.target.value })}
                  />
                </label>
              ) : null}
              {t.costPer === "unit" ? (
                <label className={LABEL}>
                  Cost unit
                  <input
                    className={INPUT}
                    value={t.costUnit}
                    aria-invalid={!!err.cost}
                    aria-describedby={described("cost")}
                    onChange={(e) => props.onPatch({ costUnit: e.target.value })}
                  />
                </label>
              ) : null}
            </div>
            <FieldError id={`${id("cost")}-error`} message={err.cost} />
          </div>
        ) : null}
      </div>
      <details className="mt-3" open={extraOpen} onToggle={(e) => setExtraOpen(e.currentTarget.open)}>
        <summary className="cursor-pointer text-sm text-zinc-700 hover:text-zinc-900">
          More fields as JSON ({[...extraFields, "a cost with drivers"].join(", ")})
        </summary>
        <label className="mt-2 block text-xs text-zinc-600">
          Target {n}&apos;s other fields, as a JSON object
          <textarea
            className={MONO}
            rows={3}
            spellCheck={false}
            placeholder="{}"
            value={t.extra}
            aria-invalid={!!err.extra}
            aria-describedby={described("extra")}
            onChange={(e) => props.onPatch({ extra: e.target.value })}
          />
        </label>
        <FieldError id={`${id("extra")}-error`} message={err.extra} />
      </details>
      <div className="mt-3 flex flex-wrap gap-2">
        {props.ordered ? (
          <>
            <button
              id={id("up")}
              type="button"
              className={`${SMALL} text-zinc-700`}
              disabled={index === 0}
              aria-label={`Move up target ${n}`}
              onClick={() => props.onMove(-1)}
            >
              <span aria-hidden="true">↑</span> Move up
            </button>
            <button
              id={id("down")}
              type="button"
              className={`${SMALL} text-zinc-700`}
              disabled={index === props.count - 1}
              aria-label={`Move down target ${n}`}
              onClick={() => props.onMove(1)}
            >
              <span aria-hidden="true">↓</span> Move down
            </button>
          </>
        ) : null}
        <button
          type="button"
          className={`${SMALL} text-red-700`}
          aria-label={`Remove target ${n}`}
          onClick={props.onRemove}
        >
          Remove
        </button>
      </div>
    </fieldset>
  );
}
