// The admin CLI: ops' door onto the core. Prints JSON with --json (the default when stdout is
// not a terminal) and human tables otherwise.
import { Command, CommanderError, Option } from "commander";
import { createApiKey, KEY_EXPIRY_CHOICES, listApiKeys, parseScopes, revokeApiKey, type KeyExpiry } from "../lib/core/api-keys";
import { grantCredit, presentCredits } from "../lib/core/credits";
import { ApiError } from "../lib/core/errors";
import { parseUsd } from "../lib/core/money";
import { createWorkspace, findWorkspace, listWorkspaces } from "../lib/core/workspaces";
import { listCatalog } from "../lib/core/catalog";
import { purgeEvents } from "../lib/core/events";
import { createUser } from "../lib/core/users";
import { pauseModel, resumeModel } from "../lib/core/model-pauses";
import { openConfiguredStore } from "../lib/boot";
import { ConfigError, loadConfig, type Config } from "../lib/config";
import type { Store } from "../lib/store/store";

let asJson = !process.stdout.isTTY;

function print(value: unknown, table?: Record<string, unknown>[]): void {
  if (asJson || !table) {
    console.log(JSON.stringify(value, null, asJson ? undefined : 2));
  } else if (table.length === 0) {
    console.log("(none)");
  } else {
    console.table(table);
  }
}

function usdArgument(text: string, param: string): number {
  const micros = parseUsd(text);
  if (micros === null || micros === 0) {
    throw new ApiError("invalid_parameter", `--${param} must be an amount in US dollars such as 10 or 12.50 (at most 6 decimals); got "${text}".`, {
      param,
    });
  }
  return micros;
}

async function withStore<T>(fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openConfiguredStore(config);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

async function requireWorkspace(store: Store, id: string): Promise<void> {
  if (!(await findWorkspace({ db: store.db }, id))) {
    throw new ApiError("resource_not_found", `No workspace ${id}. "workspace list" shows them.`, { param: "workspace" });
  }
}

const program = new Command()
  .name("admin")
  .description("Atelier administration: workspaces, API keys, credit, users, models and events.")
  .option("--json", "print JSON (the default when output is not a terminal)")
  .hook("preAction", (command) => {
    if (command.opts().json) asJson = true;
  })
  .exitOverride();

program
  .command("migrate")
  .description("bring the store's schema up to date")
  .action(() =>
    withStore(async (store) => {
      print({ object: "migration", store: store.dialect, status: "up to date" });
    }),
  );

const workspace = program.command("workspace").description("create and list workspaces");
workspace
  .command("create")
  .requiredOption("--name <name>", "workspace name")
  .option("--credit <usd>", "opening credit in US dollars")
  .action((options: { name: string; credit?: string }) =>
    withStore(async (store) => {
      const creditMicros = options.credit === undefined ? undefined : usdArgument(options.credit, "credit");
      const created = await createWorkspace({ db: store.db }, { name: options.name, creditMicros });
      print(created, [created as unknown as Record<string, unknown>]);
    }),
  );
workspace.command("list").action(() =>
  withStore(async (store) => {
    const workspaces = await listWorkspaces({ db: store.db });
    print({ object: "list", data: workspaces }, workspaces as unknown as Record<string, unknown>[]);
  }),
);

const key = program.command("key").description("create, list and revoke API keys");
key
  .command("create")
  .requiredOption("--workspace <id>", "workspace ID (ws_…)")
  .option("--name <name>", "a name to recognise the key by")
  .addOption(new Option("--expires <when>", "lifetime").choices(Object.keys(KEY_EXPIRY_CHOICES)).default("365d"))
  .option("--scopes <list>", "comma-separated scopes (default: all)")
  .action((options: { workspace: string; name?: string; expires: KeyExpiry; scopes?: string }) =>
    withStore(async (store, config) => {
      await requireWorkspace(store, options.workspace);
      const created = await createApiKey(
        { db: store.db },
        {
          workspaceId: options.workspace,
          name: options.name,
          expires: options.expires,
          scopes: options.scopes === undefined ? undefined : parseScopes(options.scopes),
          prefix: config.apiKeyPrefix,
        },
      );
      print(created, [{ id: created.id, key: created.key, scopes: created.scopes.join(","), expires_at: created.expires_at }]);
      if (!asJson) console.log("The key is shown once: keep it somewhere safe.");
    }),
  );
key
  .command("list")
  .requiredOption("--workspace <id>", "workspace ID (ws_…)")
  .action((options: { workspace: string }) =>
    withStore(async (store) => {
      await requireWorkspace(store, options.workspace);
      const keys = await listApiKeys({ db: store.db }, { workspaceId: options.workspace });
      print(
        { object: "list", data: keys },
        keys.map((k) => ({ id: k.id, name: k.name, hint: k.hint, expires_at: k.expires_at, revoked_at: k.revoked_at, last_used_at: k.last_used_at })),
      );
    }),
  );
key
  .command("revoke")
  .argument("<key-id>", "the key's ID (key_…)")
  .action((keyId: string) =>
    withStore(async (store) => {
      const revoked = await revokeApiKey({ db: store.db }, { keyId });
      print(revoked, [{ id: revoked.id, name: revoked.name, revoked_at: revoked.revoked_at }]);
    }),
  );

program
  .command("credit")
  .description("add credit to a workspace")
  .command("add")
  .requiredOption("--workspace <id>", "workspace ID (ws_…)")
  .requiredOption("--usd <amount>", "amount in US dollars")
  .action((options: { workspace: string; usd: string }) =>
    withStore(async (store) => {
      const balance = await grantCredit(
        { db: store.db },
        { workspaceId: options.workspace, amountMicros: usdArgument(options.usd, "usd"), note: "admin CLI" },
      );
      const credits = presentCredits(balance);
      print(credits, [credits as unknown as Record<string, unknown>]);
    }),
  );

program
  .command("user")
  .description("studio users")
  .command("create")
  .requiredOption("--email <email>", "what they sign in with")
  .requiredOption("--password <password>", "at least 8 characters")
  .requiredOption("--workspace <id>", "workspace ID (ws_…)")
  .option("--role <role>", "creator or ops", "creator")
  .action((options: { email: string; password: string; workspace: string; role: string }) =>
    withStore(async (store) => {
      const user = await createUser({ db: store.db }, { email: options.email, password: options.password, workspaceId: options.workspace, role: options.role });
      print(user, [{ id: user.id, email: user.email, workspace_id: user.workspace_id, role: user.role }]);
    }),
  );

const model = program.command("model").description("take catalog entries out of service and back");
model
  .command("list")
  .description("every catalog entry and whether it takes runs now")
  .action(() =>
    withStore(async (store) => {
      const list = await listCatalog(store.db);
      print(
        list,
        list.data.map((m) => ({ id: m.id, modality: m.modality, price: `${m.pricing.usd}/${m.pricing.unit}`, availability: m.availability.status, until: m.availability.until })),
      );
    }),
  );
model
  .command("pause")
  .argument("<id>", "catalog ID, e.g. atelier/artwork")
  .option("--until <iso>", "when it comes back by itself (ISO 8601); without it, until `model resume`")
  .option("--reason <text>", "what people are told", "it is paused for maintenance")
  .action((id: string, options: { until?: string; reason: string }) =>
    withStore(async (store) => {
      const paused = await pauseModel({ db: store.db }, { modelId: id, until: options.until ?? null, reason: options.reason });
      print({ object: "model_pause", ...paused }, [paused]);
    }),
  );
model
  .command("resume")
  .argument("<id>", "catalog ID")
  .action((id: string) =>
    withStore(async (store) => {
      const resumed = await resumeModel({ db: store.db }, { modelId: id });
      print({ object: "model_resume", ...resumed }, [resumed]);
    }),
  );

program
  .command("events")
  .description("events and their webhook deliveries")
  .command("purge")
  .description("delete events (and their deliveries) older than N days; the engine does it hourly for 30")
  .option("--older-than-days <n>", "age in days (0 deletes every event)", "30")
  .action((options: { olderThanDays: string }) =>
    withStore(async (store) => {
      if (!/^\d{1,4}$/.test(options.olderThanDays)) {
        throw new ApiError("invalid_parameter", `--older-than-days must be a whole number of days; got "${options.olderThanDays}".`, { param: "older-than-days" });
      }
      const deleted = await purgeEvents({ db: store.db }, { olderThanDays: Number(options.olderThanDays) });
      print({ object: "events_purge", deleted }, [{ deleted }]);
    }),
  );

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    process.exit(err.exitCode);
  }
  const message = err instanceof ApiError || err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err);
  if (asJson && err instanceof ApiError) {
    console.error(JSON.stringify({ error: { code: err.code, message: err.message, param: err.param } }));
  } else {
    console.error(`admin: ${message}`);
  }
  process.exit(1);
});
