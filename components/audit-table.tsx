// The audit log as a table (the Audit page): when, what, who and from where, on what, what changed.
// A server component: plain rows, no script.
import type { AuditEvent } from "@/lib/core/audit/audit-shape";
import { relativeTime } from "@/components/run-status";

export type AuditRow = AuditEvent & { workspace_name?: string | null; workspace_id?: string | null };

/** One value of `changes` in words: `{from, to}` as "from → to", lists joined, nothing as "—". */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(shown).join(", ");
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if ("from" in v && "to" in v && Object.keys(v).length === 2) return `${shown(v.from)} → ${shown(v.to)}`;
    return JSON.stringify(value);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

function Actor({ actor, keyNames }: { actor: AuditEvent["actor"]; keyNames: Record<string, string> }) {
  if (actor.type === "cli") return <span className="text-zinc-700">Admin CLI</span>;
  if (actor.type === "key")
    return (
      <span className="text-zinc-700">
        Key {keyNames[actor.id] ? `“${keyNames[actor.id]}” ` : ""}
        <code className="text-xs text-zinc-500">{actor.id}</code>
      </span>
    );
  return <span className="text-zinc-800">{actor.email ?? actor.id}</span>;
}

const CELL = "px-4 py-2.5 align-top";

export function AuditTable({
  events,
  showWorkspace,
  keyNames,
  now,
}: {
  events: AuditRow[];
  /** Ops' view across workspaces: a column saying whose each event is. */
  showWorkspace: boolean;
  /** Names of this workspace's keys, to tell them apart. */
  keyNames: Record<string, string>;
  now: number;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-sm">
      <table className="w-full text-left text-sm">
        <thead className="border-b border-zinc-200 bg-zinc-50 text-xs font-medium text-zinc-500">
          <tr>
            <th scope="col" className="px-4 py-2.5">
              When (UTC)
            </th>
            {showWorkspace ? (
              <th scope="col" className="px-4 py-2.5">
                Workspace
              </th>
            ) : null}
            <th scope="col" className="px-4 py-2.5">
              Action
            </th>
            <th scope="col" className="px-4 py-2.5">
              By
            </th>
            <th scope="col" className="px-4 py-2.5">
              On
            </th>
            <th scope="col" className="px-4 py-2.5">
              What changed
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {events.map((event) => (
            <tr key={event.id} data-testid="audit-row">
              <td className={`${CELL} whitespace-nowrap text-zinc-600`}>
                <time dateTime={event.created_at} title={event.created_at}>
                  {event.created_at.slice(0, 16).replace("T", " ")}
                </time>
                <div data-relative-time className="text-xs text-zinc-400">
                  {relativeTime(event.created_at, now)}
                </div>
              </td>
              {showWorkspace ? (
                <td className={`${CELL} text-zinc-700`}>
                  {event.workspace_id === null ? (
                    <span className="text-zinc-500 italic">The install</span>
                  ) : (
                    (event.workspace_name ?? event.workspace_id)
                  )}
                </td>
              ) : null}
              <td className={CELL}>
                <code className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-800">{event.action}</code>
              </td>
              <td className={`${CELL} max-w-56`}>
                <Actor actor={event.actor} keyNames={keyNames} />
                <div className="text-xs text-zinc-400" data-testid="audit-ip">
                  {event.ip === null ? "no address" : `from ${event.ip}`}
                </div>
              </td>
              <td className={`${CELL} max-w-56 text-zinc-600`}>
                <div className="text-xs text-zinc-500">{event.target.type.replace("_", " ")}</div>
                <code className="text-xs break-all">{event.target.id}</code>
              </td>
              <td className={`${CELL} min-w-72`}>
                <dl className="space-y-0.5 text-xs">
                  {Object.entries(event.changes).map(([name, value]) => (
                    <div key={name} className="flex gap-1.5">
                      <dt className="whitespace-nowrap text-zinc-500">{name.replaceAll("_", " ")}:</dt>
                      <dd className="text-zinc-800 [overflow-wrap:anywhere]">{shown(value)}</dd>
                    </div>
                  ))}
                </dl>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
