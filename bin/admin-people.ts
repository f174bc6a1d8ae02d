// The admin CLI's people: studio users (create, password, ops flag, remove, list) and each
// workspace's members (add, role, remove, list). Member changes go through the same core verbs as
// the studio's Members page, acting as the CLI (no role: every rule but "a workspace keeps an owner").
// Every change is audited with the actor `cli`.
import type { Command } from "commander";
import { ApiError } from "../lib/primitives/errors";
import { findWorkspace } from "../lib/core/workspaces/workspaces";
import {
  createUser,
  generatePassword,
  listUsers,
  removeUser,
  setUserOps,
  setUserPassword,
  type User,
} from "../lib/core/workspaces/users";
import { addMember, listMembers, removeMember, setMemberRole, type MembersCtx } from "../lib/core/workspaces/members";
import { MEMBER_ROLES } from "../lib/core/workspaces/roles";
import { inviteAndMail } from "../lib/boot/invite";
import { CLI_AUDIT } from "../lib/core/audit/audit-writer";
import type { Store } from "../lib/store/store";
import { announce, print, withStore } from "./admin-io";

const ROLE_LIST = MEMBER_ROLES.join(", ");

function userRow(user: User): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    ops: user.ops,
    memberships: user.memberships.map((m) => `${m.workspace_id}:${m.role}`).join(" "),
  };
}

async function cliMembers(store: Store, workspaceId: string): Promise<MembersCtx> {
  if (!(await findWorkspace({ db: store.db }, workspaceId))) {
    throw new ApiError("resource_not_found", `No workspace ${workspaceId}. "workspace list" shows them.`, {
      param: "workspace",
    });
  }
  return { db: store.db, workspaceId, ...CLI_AUDIT };
}

export function addPeopleCommands(program: Command): void {
  const user = program
    .command("user")
    .description("studio users: create, list, set a password, operate the install, remove");
  user
    .command("create")
    .requiredOption("--email <email>", "what they sign in with")
    .requiredOption("--password <password>", "at least 8 characters")
    .requiredOption("--workspace <id>", "the workspace they join (ws_…)")
    .option("--role <role>", ROLE_LIST, "creator")
    .option("--ops", "also operate the install: every workspace, models, credit grants")
    .action((options: { email: string; password: string; workspace: string; role: string; ops?: boolean }) =>
      withStore(async (store) => {
        const created = await createUser(
          { db: store.db },
          {
            email: options.email,
            password: options.password,
            workspaceId: options.workspace,
            role: options.role,
            ops: options.ops === true,
            audit: CLI_AUDIT,
          },
        );
        print(created, [userRow(created)]);
      }),
    );

  user
    .command("password")
    .description(
      "set a user's password, e.g. the demo login's (demo@atelier.local) when its first-start password is lost",
    )
    .requiredOption("--email <email>", "the user's email")
    .option("--password <password>", "the new password, at least 8 characters (default: a new random one, printed)")
    .action((options: { email: string; password?: string }) =>
      withStore(async (store, config) => {
        const password = options.password ?? generatePassword();
        const changed = await setUserPassword({ db: store.db }, { email: options.email, password, audit: CLI_AUDIT });
        await announce(store, config, { kind: "sessions_ended", id: changed.id });
        // A password the operator typed is not echoed back; a generated one must be, once.
        const shown = options.password === undefined ? { password } : {};
        print({ ...changed, ...shown }, [{ email: changed.email, ...shown }]);
      }),
    );

  user
    .command("ops")
    .description("let a user operate the install (--on) or no longer (--off); their sessions end")
    .requiredOption("--email <email>", "the user's email")
    .option("--on", "operate the install")
    .option("--off", "no longer operate it")
    .action((options: { email: string; on?: boolean; off?: boolean }) =>
      withStore(async (store, config) => {
        if (options.on === options.off) throw new ApiError("invalid_parameter", "Say --on or --off.", { param: "ops" });
        const changed = await setUserOps(
          { db: store.db },
          { email: options.email, ops: options.on === true, audit: CLI_AUDIT },
        );
        await announce(store, config, { kind: "sessions_ended", id: changed.id });
        print(changed, [userRow(changed)]);
      }),
    );

  user
    .command("remove")
    .description("remove a user: sessions end, memberships go, keys they made are revoked; their runs stay")
    .requiredOption("--email <email>", "the user's email")
    .action((options: { email: string }) =>
      withStore(async (store, config) => {
        const removed = await removeUser({ db: store.db }, { email: options.email, audit: CLI_AUDIT });
        await announce(store, config, { kind: "sessions_ended", id: removed.id });
        print({ ...removed, removed: true }, [{ id: removed.id, email: removed.email, removed: true }]);
      }),
    );

  user
    .command("list")
    .description("every studio user, with their memberships")
    .action(() =>
      withStore(async (store) => {
        const users = await listUsers({ db: store.db });
        print({ object: "list", data: users }, users.map(userRow));
      }),
    );

  const member = program.command("member").description("a workspace's members: add, change role, remove, list");
  member
    .command("add")
    .description("add an existing user to a workspace (a new person: invite create)")
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .requiredOption("--email <email>", "the user's email")
    .requiredOption("--role <role>", ROLE_LIST)
    .action((options: { workspace: string; email: string; role: string }) =>
      withStore(async (store) => {
        const added = await addMember(await cliMembers(store, options.workspace), options);
        print(added, [{ ...added }]);
      }),
    );
  member
    .command("role")
    .description("give a member another role; their studio sessions end")
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .requiredOption("--email <email>", "the member's email")
    .requiredOption("--role <role>", ROLE_LIST)
    .action((options: { workspace: string; email: string; role: string }) =>
      withStore(async (store, config) => {
        const changed = await setMemberRole(await cliMembers(store, options.workspace), options);
        await announce(store, config, { kind: "sessions_ended", id: changed.user_id });
        print(changed, [{ ...changed }]);
      }),
    );
  member
    .command("remove")
    .description("remove a member: their sessions end and the keys they made here are revoked")
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .requiredOption("--email <email>", "the member's email")
    .action((options: { workspace: string; email: string }) =>
      withStore(async (store, config) => {
        const { member: removed, revokedKeys } = await removeMember(await cliMembers(store, options.workspace), {
          email: options.email,
        });
        await announce(store, config, { kind: "sessions_ended", id: removed.user_id });
        for (const id of revokedKeys) await announce(store, config, { kind: "key_revoked", id });
        print({ ...removed, removed: true, revoked_keys: revokedKeys }, [
          { email: removed.email, removed: true, revoked_keys: revokedKeys.length },
        ]);
      }),
    );
  member
    .command("list")
    .description("a workspace's members, owners first")
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .action((options: { workspace: string }) =>
      withStore(async (store) => {
        const members = await listMembers(await cliMembers(store, options.workspace));
        print(
          { object: "list", data: members },
          members.map((m) => ({ ...m })),
        );
      }),
    );

  program
    .command("invite")
    .description("invite people to a workspace")
    .command("create")
    .description("invite an email with a role: prints the link (shown once), and mails it when SMTP_URL is set")
    .requiredOption("--workspace <id>", "workspace ID (ws_…)")
    .requiredOption("--email <email>", "who is invited")
    .requiredOption("--role <role>", ROLE_LIST)
    .action((options: { workspace: string; email: string; role: string }) =>
      withStore(async (store, config) => {
        const { invitation, link, mail } = await inviteAndMail(
          await cliMembers(store, options.workspace),
          options,
          config,
          null,
        );
        const { token: _token, path: _path, ...shown } = invitation;
        print({ ...shown, link, mail: mail.state, ...(mail.state === "failed" && { mail_error: mail.reason }) }, [
          { email: invitation.email, role: invitation.role, expires_at: invitation.expires_at, link, mail: mail.state },
        ]);
      }),
    );
}
