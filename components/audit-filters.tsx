// The Audit page's filters: a plain GET form, so a view lives in the URL and works before any
// script has loaded. Keyed by the page with the filters it shows (see the ops page's form).
import { FilterActions } from "@/components/filter-actions";
import { AUDIT_ACTIONS, AUDIT_FAMILIES } from "@/lib/core/audit/audit-actions";

const LABEL = "block text-xs font-medium text-zinc-600";
const FIELD =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm focus-visible:border-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-500";

export interface AuditFilterValues {
  action?: string;
  actor?: string;
  from?: string;
  to?: string;
  workspace?: string;
}

export function AuditFilters({
  current,
  limit,
  actors,
  workspaces,
}: {
  current: AuditFilterValues;
  /** A page size other than the default, kept when the filters change. */
  limit: string | null;
  /** Who may have acted here, for the actor field's suggestions. */
  actors: { id: string; label: string }[];
  /** Ops only: the workspaces to choose from. */
  workspaces: { id: string; name: string }[] | null;
}) {
  const filtered = Object.values(current).some(Boolean);
  return (
    <form
      method="get"
      aria-label="Audit filters"
      className="mb-4 grid gap-3 rounded-lg border border-zinc-200 bg-white px-5 py-4 shadow-sm sm:grid-cols-2 lg:grid-cols-[repeat(auto-fit,minmax(9rem,1fr))] lg:items-end"
    >
      {/* Labels stand beside their fields (htmlFor), so a field's name is its label alone, not its options. */}
      {workspaces ? (
        <div>
          <label htmlFor="audit-workspace" className={LABEL}>
            Workspace
          </label>
          <select id="audit-workspace" name="workspace" defaultValue={current.workspace ?? ""} className={FIELD}>
            <option value="">Every workspace</option>
            <option value="install">The install itself</option>
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div>
        <label htmlFor="audit-action" className={LABEL}>
          Action
        </label>
        <select id="audit-action" name="action" defaultValue={current.action ?? ""} className={FIELD}>
          <option value="">Every action</option>
          {AUDIT_FAMILIES.map((family) => (
            <optgroup key={family} label={family}>
              <option value={family}>Every {family}.* action</option>
              {AUDIT_ACTIONS.filter((a) => a.startsWith(`${family}.`)).map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="audit-actor" className={LABEL}>
          By
        </label>
        <input
          id="audit-actor"
          name="actor"
          list="audit-actors"
          defaultValue={current.actor ?? ""}
          placeholder="usr_…, key_… or cli"
          maxLength={100}
          className={FIELD}
        />
        <datalist id="audit-actors">
          {actors.map((a) => (
            <option key={a.id} value={a.id}>
              {a.label}
            </option>
          ))}
        </datalist>
      </div>
      <div>
        <label htmlFor="audit-from" className={LABEL}>
          From (UTC day)
        </label>
        <input id="audit-from" type="date" name="from" defaultValue={current.from ?? ""} className={FIELD} />
      </div>
      <div>
        <label htmlFor="audit-to" className={LABEL}>
          To (UTC day)
        </label>
        <input id="audit-to" type="date" name="to" defaultValue={current.to ?? ""} className={FIELD} />
      </div>
      {limit ? <input type="hidden" name="limit" value={limit} /> : null}
      <FilterActions filtered={filtered} clearHref="/audit" />
    </form>
  );
}
