"use client";
// The Members page's interactive part: invite (the link shown once, and whether it was mailed),
// pending invitations (revoke), members (role, remove) and whether creators make API keys. Every
// change goes through a server action that asks the core with the signed-in member's role.
import { useState, useTransition, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import {
  inviteAction,
  removeMemberAction,
  revokeInvitationAction,
  setCreatorKeysAction,
  setRoleAction,
} from "@/app/_studio/actions/members";
import type { MailOutcome } from "@/lib/boot/invite";
import { ConfirmDialog, danger, primary } from "./webhooks-ui";

export interface MemberRow {
  userId: string;
  email: string;
  role: string;
  joinedAt: string;
  lastSeenAt: string | null;
}

export interface InvitationRow {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
}

const input =
  "rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm text-zinc-900 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500/30";

function day(iso: string | null): string {
  return iso ? iso.slice(0, 10) : "Never";
}

export function MembersManager(props: {
  members: MemberRow[];
  invitations: InvitationRow[];
  /** The roles this member may give (an admin: below owner). */
  assignable: string[];
  me: string;
  creatorKeys: boolean;
}) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [invited, setInvited] = useState<{ link: string; email: string; mail: MailOutcome } | null>(null);
  const [removing, setRemoving] = useState<MemberRow | null>(null);

  const run = (work: () => Promise<{ ok: boolean; error?: { message: string } }>, after?: () => void) =>
    startTransition(async () => {
      setError(null);
      const result = await work();
      if (!result.ok) return setError(result.error?.message ?? "That did not work.");
      after?.();
      router.refresh();
    });

  function invite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const target = event.currentTarget;
    startTransition(async () => {
      setError(null);
      const result = await inviteAction({
        email: String(form.get("email") ?? ""),
        role: String(form.get("role") ?? ""),
      });
      if (!result.ok) return setError(result.error.message);
      setInvited(result.value);
      target.reset();
      router.refresh();
    });
  }

  return (
    <div className="space-y-8">
      {error ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-2 text-sm text-red-800">
          {error}
        </p>
      ) : null}

      <section aria-labelledby="invite-heading" className="rounded-lg border border-zinc-200 bg-white p-5">
        <h2 id="invite-heading" className="text-base font-semibold text-zinc-900">
          Invite someone
        </h2>
        <form onSubmit={invite} className="mt-3 flex flex-wrap items-end gap-3" noValidate>
          <label className="flex flex-col text-sm font-medium text-zinc-700">
            Email
            <input name="email" type="email" required className={`${input} mt-1 w-72`} />
          </label>
          <label className="flex flex-col text-sm font-medium text-zinc-700">
            Role
            <select name="role" aria-label="Role" defaultValue="creator" className={`${input} mt-1`}>
              {props.assignable.map((role) => (
                <option key={role} value={role}>
                  {role}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={pending} className={primary}>
            Invite
          </button>
        </form>
        {invited ? (
          <div
            className="mt-4 rounded-md border border-indigo-200 bg-indigo-50 p-3 text-sm text-zinc-700"
            data-testid="invite-link"
          >
            <p>
              {invited.mail.state === "sent"
                ? `Mailed to ${invited.email}. The link, shown this once:`
                : invited.mail.state === "failed"
                  ? `The mail to ${invited.email} could not be sent (${invited.mail.reason}). Pass this link on yourself; it is shown this once:`
                  : `Pass this link to ${invited.email}; it is shown this once:`}
            </p>
            <code className="mt-2 block font-mono text-xs break-all text-zinc-900">{invited.link}</code>
          </div>
        ) : null}
      </section>

      <section aria-labelledby="invitations-heading">
        <h2 id="invitations-heading" className="mb-2 text-base font-semibold text-zinc-900">
          Pending invitations
        </h2>
        {props.invitations.length === 0 ? (
          <p className="text-sm text-zinc-500">None. An invitation lasts 7 days and works once.</p>
        ) : (
          <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 bg-white text-sm">
            {props.invitations.map((inv) => (
              <li
                key={inv.id}
                className="flex items-center justify-between gap-4 px-4 py-2.5"
                data-testid="invitation-row"
              >
                <span className="min-w-0 truncate">
                  <span className="font-medium text-zinc-900">{inv.email}</span>{" "}
                  <span className="text-zinc-500">
                    as {inv.role} · expires {day(inv.expiresAt)}
                  </span>
                </span>
                <button
                  type="button"
                  className={danger}
                  disabled={pending}
                  aria-label={`Revoke the invitation of ${inv.email}`}
                  onClick={() => run(() => revokeInvitationAction(inv.id))}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="members-heading">
        <h2 id="members-heading" className="mb-2 text-base font-semibold text-zinc-900">
          Members
        </h2>
        <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs font-medium text-zinc-500">
              <tr>
                <th scope="col" className="px-4 py-2.5">
                  Email
                </th>
                <th scope="col" className="px-4 py-2.5">
                  Role
                </th>
                <th scope="col" className="px-4 py-2.5">
                  Joined
                </th>
                <th scope="col" className="px-4 py-2.5">
                  Last seen
                </th>
                <th scope="col" className="px-4 py-2.5">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {props.members.map((m) => {
                const changeable = props.assignable.includes(m.role);
                return (
                  <tr key={m.userId} data-testid="member-row">
                    <td className="px-4 py-2.5 font-medium text-zinc-900">
                      {m.email}
                      {m.userId === props.me ? <span className="ml-2 text-xs text-zinc-500">(you)</span> : null}
                    </td>
                    <td className="px-4 py-2.5">
                      {changeable ? (
                        <select
                          aria-label={`Role of ${m.email}`}
                          value={m.role}
                          disabled={pending}
                          onChange={(e) => run(() => setRoleAction(m.userId, e.target.value))}
                          className={input}
                        >
                          {props.assignable.map((role) => (
                            <option key={role} value={role}>
                              {role}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <span className="capitalize">{m.role}</span>
                      )}
                    </td>
                    <td className="px-4 py-2.5 whitespace-nowrap">{day(m.joinedAt)}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap">{day(m.lastSeenAt)}</td>
                    <td className="px-4 py-2.5 text-right">
                      {changeable ? (
                        <button
                          type="button"
                          className={danger}
                          aria-label={`Remove ${m.email}`}
                          onClick={() => setRemoving(m)}
                        >
                          Remove
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>

      <section className="rounded-lg border border-zinc-200 bg-white p-5 text-sm text-zinc-700">
        <label className="flex items-center gap-3">
          <input
            type="checkbox"
            checked={props.creatorKeys}
            disabled={pending}
            onChange={(e) => run(() => setCreatorKeysAction(e.target.checked))}
          />
          Creators may make API keys of their own (admins and owners always may)
        </label>
      </section>

      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.email ?? ""}?`}
        confirmLabel="Remove member"
        tone="danger"
        busy={pending}
        onConfirm={() => {
          const who = removing;
          if (who)
            run(
              () => removeMemberAction(who.userId),
              () => setRemoving(null),
            );
        }}
        onCancel={() => setRemoving(null)}
      >
        <p>
          Their sessions in the studio end at once and the API keys they made here are revoked. Their runs, files and
          share links stay with the workspace.
        </p>
      </ConfirmDialog>
    </div>
  );
}
