// The admin CLI: ops' door onto the core. Prints JSON with --json (the default when stdout is
// not a terminal) and human tables otherwise.
import { Command, CommanderError, Option } from "commander";
import {
  createApiKey,
  KEY_EXPIRY_CHOICES,
  listApiKeys,
  parseScopes,
  revokeApiKey,
  type KeyExpiry,
} from "../lib/core/keys/api-keys";
import { grantCredit, presentCredits } from "../lib/core/credits/credits";
import { ApiError, storeUnavailableError } from "../lib/primitives/errors";
import { parseUsd } from "../lib/primitives/money";
import { createWorkspace, findWorkspace, listWorkspaces } from "../lib/core/workspaces/workspaces";
import { listCatalog } from "../lib/core/catalog/catalog";
import { purgeEvents } from "../lib/core/webhooks/events";
import { pauseModel, resumeModel } from "../lib/core/catalog/model-pauses";
import { withTransaction } from "../lib/store/writes";
import { ConfigError } from "../lib/boot/config";
import type { Store } from "../lib/store/store";
import { announce, print, printJson, printsJson, withStore } from "./admin-io";
import { addPeopleCommands } from "./admin-people";
import { addBudgetCommands } from "./admin-budgets";
import { addCatalogCommands } from "./admin-catalog";
import { addBackupCommands } from "./admin-backup";
import { memberRow } from "../lib/core/workspaces/members";
import { CLI_AUDIT } from "../lib/core/audit/audit-writer";
import { storeUnreachable } from "../lib/primitives/unreachable";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  addEntryToProvidersFile,
  importEntry,
  SchemaImportError,
  type EntryFacts,
  type ImportedEntry,
} from "../lib/providers/import-entry";
import { importComfyEntry } from "../lib/providers/comfyui/import-comfyui";
import { readQueueSettings, setQueueSettings } from "../lib/core/workspaces/workspace-queue";
import { ProvidersFileError } from "../lib/providers";
import { MODALITIES, type Modality } from "../lib/core/catalog/model-definition";

/** A dollar amount from the command line; zero is allowed only where it means something (an opening balance). */
function usdArgument(text: string, param: string, { allowZero = false } = {}): number {
  const micros = parseUsd(text.trim());
  if (micros === null) {
    const smallest = allowZero ? "0, " : "";
    throw new ApiError(
      "invalid_parameter",
      `--${param} must be an amount in US dollars such as ${smallest}10 or 12.50 (at most 6 decimals, no sign); got "${text}".`,
      { param },
    );
  }
  if (micros === 0 && !allowZero) {
    throw new ApiError("invalid_parameter", `--${param} must be more than 0 US dollars; got "${text}".`, { param });
  }
  return micros;
}

/** The user ID of a member of the workspace, by email; anyone else is not found. */
async function memberId(store: Store, workspaceId: string, email: string): Promise<string> {
  const found = await memberRow(store.db, workspaceId, { email });
  if (!found) throw new ApiError("resource_not_found", `No member ${email} in ${workspaceId}.`, { param: "member" });
  return found.user_id;
}

async function requireWorkspace(store: Store, id: string): Promise<void> {
  if (!(await findWorkspace({ db: store.db }, id))) {
    throw new ApiError("resource_not_found", `No workspace ${id}. "workspace list" shows them.`, {
      param: "workspace",
    });
  }
}

const program = new Command()
  .name("admin")
  .description("Atelier administration: workspaces, API keys, credit, users, models, events and backups.")
  .option("--json", "print JSON (the default when output is not a terminal)")
  .hook("preAction", (command) => {
    printJson(command.opts().json === true);
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
  .option("--credit <usd>", "opening credit in US dollars (default 0)")
  .option("--key", "also make its first API key (every scope, 365 days), printed once as api_key")
  .action((options: { name: string; credit?: string; key?: boolean }) =>
    withStore(async (store, config) => {
      const creditMicros =
        options.credit === undefined ? undefined : usdArgument(options.credit, "credit", { allowZero: true });
      // Both or neither: a workspace is not left keyless by a key that failed.
      const { created, apiKey } = await withTransaction(store.db, async (trx) => {
        const created = await createWorkspace({ db: trx }, { name: options.name, creditMicros, audit: CLI_AUDIT });
        const apiKey = options.key
          ? await createApiKey({ db: trx }, { workspaceId: created.id, prefix: config.apiKeyPrefix, audit: CLI_AUDIT })
          : null;
        return { created, apiKey };
      });
      if (!apiKey) return print(created, [created as unknown as Record<string, unknown>]);
      print({ ...created, api_key: apiKey }, [{ ...created, key: apiKey.key }]);
      if (!printsJson()) console.log("The key is shown once: keep it somewhere safe.");
    }),
  );
workspace
  .command("queue")
  .description(
    "its share of the queue: --weight (1-100; 2 starts about twice the runs of 1 while both wait) and --max-running (a cap on its runs at once, or none)",
  )
  .requiredOption("--workspace <id>", "workspace ID (ws_…)")
  .option("--weight <n>", "its weight in the fair order, a whole number from 1 to 100 (default 1)")
  .option("--max-running <n>", 'at most this many of its runs running at once, or "none"')
  .action((options: { workspace: string; weight?: string; maxRunning?: string }) =>
    withStore(async (store) => {
      await requireWorkspace(store, options.workspace);
      const whole = (text: string) => (/^\d{1,6}$/.test(text.trim()) ? Number(text) : text);
      const settings =
        options.weight === undefined && options.maxRunning === undefined
          ? await readQueueSettings({ db: store.db }, options.workspace)
          : await setQueueSettings(
              { db: store.db },
              {
                workspaceId: options.workspace,
                weight: options.weight === undefined ? undefined : whole(options.weight),
                maxRunning:
                  options.maxRunning === undefined
                    ? undefined
                    : options.maxRunning.trim() === "none"
                      ? null
                      : whole(options.maxRunning),
                audit: CLI_AUDIT,
              },
            );
      print({ object: "workspace_queue", ...settings }, [
        { workspace: settings.workspace_id, weight: settings.weight, max_running: settings.max_running ?? "none" },
      ]);
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
  .option("--member <email>", "a member it acts for: with at most their role, revoked when they leave")
  .action((options: { workspace: string; name?: string; expires: KeyExpiry; scopes?: string; member?: string }) =>
    withStore(async (store, config) => {
      await requireWorkspace(store, options.workspace);
      const createdBy =
        options.member === undefined ? undefined : await memberId(store, options.workspace, options.member);
      const created = await createApiKey(
        { db: store.db },
        {
          workspaceId: options.workspace,
          name: options.name,
          expires: options.expires,
          scopes: options.scopes === undefined ? undefined : parseScopes(options.scopes),
          prefix: config.apiKeyPrefix,
          createdBy,
          audit: CLI_AUDIT,
        },
      );
      print(created, [
        { id: created.id, key: created.key, scopes: created.scopes.join(","), expires_at: created.expires_at },
      ]);
      if (!printsJson()) console.log("The key is shown once: keep it somewhere safe.");
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
        keys.map((k) => ({
          id: k.id,
          name: k.name,
          hint: k.hint,
          expires_at: k.expires_at,
          revoked_at: k.revoked_at,
          last_used_at: k.last_used_at,
        })),
      );
    }),
  );
key
  .command("revoke")
  .argument("<key-id>", "the key's ID (key_…)")
  .action((keyId: string) =>
    withStore(async (store, config) => {
      const revoked = await revokeApiKey({ db: store.db }, { keyId, audit: CLI_AUDIT });
      await announce(store, config, { kind: "key_revoked", id: revoked.id });
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
        {
          workspaceId: options.workspace,
          amountMicros: usdArgument(options.usd, "usd"),
          note: "admin CLI",
          audit: CLI_AUDIT,
        },
      );
      const credits = presentCredits(balance);
      print(credits, [credits as unknown as Record<string, unknown>]);
    }),
  );

addPeopleCommands(program);
addBudgetCommands(program);

const model = program.command("model").description("take catalog entries out of service and back");
model
  .command("list")
  .description("every catalog entry and whether it takes runs now")
  .action(() =>
    withStore(async (store) => {
      const list = await listCatalog(store.db);
      print(
        list,
        list.data.map((m) => ({
          id: m.id,
          modality: m.modality,
          price: `${m.pricing.usd}/${m.pricing.unit}`,
          availability: m.availability.status,
          until: m.availability.until,
          // Why it is out of service, or what this server lacks and the fix.
          why: m.availability.message,
        })),
      );
    }),
  );
model
  .command("pause")
  .argument("<id>", "catalog ID, e.g. atelier/artwork")
  .option("--until <iso>", "when it comes back by itself (ISO 8601); without it, until `model resume`")
  .option("--reason <text>", "what people are told", "it is paused for maintenance")
  .action((id: string, options: { until?: string; reason: string }) =>
    withStore(async (store, config) => {
      const paused = await pauseModel(
        { db: store.db },
        { modelId: id, until: options.until ?? null, reason: options.reason, by: "admin CLI", audit: CLI_AUDIT },
      );
      // Running servers and workers keep the pauses in memory: tell them before answering.
      await announce(store, config, { kind: "availability_changed" });
      print({ object: "model_pause", ...paused }, [paused]);
    }),
  );
model
  .command("resume")
  .argument("<id>", "catalog ID")
  .action((id: string) =>
    withStore(async (store, config) => {
      const resumed = await resumeModel({ db: store.db }, { modelId: id, audit: CLI_AUDIT });
      await announce(store, config, { kind: "availability_changed" });
      print({ object: "model_resume", ...resumed }, [resumed]);
    }),
  );

interface ImportFlags {
  file: string;
  provider: string;
  replicate?: string;
  fal?: string;
  comfyui?: string;
  bind: string[];
  id: string;
  usd: string;
  unit: string;
  drivers?: string;
  costUsd?: string;
  costPerSecond?: string;
  modality?: Modality;
  tasks?: string;
  name?: string;
  creator?: string;
  description?: string;
  baseUrl?: string;
  replace?: boolean;
}

const list = (text: string | undefined) =>
  text
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);
const collect = (value: string, previous: string[]) => [...previous, value];

const provider = program
  .command("provider")
  .description("remote providers: the stored catalog (list, add, edit, remove, apply) and PROVIDERS_FILE (import)");
addCatalogCommands(program, provider);
provider
  .command("import")
  .description(
    "write a ready entry into a providers file from a Replicate model or a fal endpoint's own input schema, or a ComfyUI workflow and its bindings",
  )
  .requiredOption("--file <path>", "the providers file (created when missing)")
  .requiredOption("--provider <id>", "the provider's id in the file (created when missing)")
  .option("--replicate <model>", "owner/name or owner/name:version")
  .option("--fal <endpoint>", "an endpoint id, such as fal-ai/flux/dev")
  .option("--comfyui <workflow>", "a workflow file in ComfyUI's API format (Export (API)), such as workflows/sdxl.json")
  .option(
    "--bind <field=node.input>",
    "with --comfyui: an input field and the node input it sets, such as prompt=6.text (repeatable)",
    collect,
    [] as string[],
  )
  .requiredOption("--id <id>", "the catalog id, creator/name")
  .requiredOption("--usd <amount>", "the price per unit in US dollars")
  .requiredOption("--unit <unit>", "what is priced: image, second, run…")
  .option(
    "--drivers <fields>",
    "comma-separated input fields that multiply the price (default: the count of outputs for a per-image price)",
  )
  .option(
    "--cost-usd <amount>",
    "what a run costs at the provider per unit, in the price's unit and drivers (ops only)",
  )
  .option("--cost-per-second <amount>", "or what a second of provider time costs (Replicate's predict_time; ops only)")
  .addOption(
    new Option("--modality <modality>", "what it makes (default: read or guessed from the provider)").choices([
      ...MODALITIES,
    ]),
  )
  .option("--tasks <list>", "comma-separated tasks, such as text-to-image")
  .option("--name <name>")
  .option("--creator <creator>")
  .option("--description <text>")
  .option(
    "--base-url <url>",
    "Replicate's API base or fal's schema host (a proxy, a test server); with --comfyui, the ComfyUI server (needed for a new provider; its GET /object_info refines the schema)",
  )
  .option("--replace", "overwrite an entry with the same id")
  .action(async (flags: ImportFlags) => {
    if ([flags.replicate, flags.fal, flags.comfyui].filter(Boolean).length !== 1) {
      throw new ApiError(
        "invalid_parameter",
        "Pass exactly one of --replicate owner/name[:version], --fal owner/alias or --comfyui workflow.json.",
        { param: "replicate" },
      );
    }
    if (flags.bind.length > 0 && !flags.comfyui)
      throw new ApiError("invalid_parameter", "--bind goes with --comfyui (a workflow's node inputs).", {
        param: "bind",
      });
    if (flags.comfyui && flags.bind.length === 0) {
      throw new ApiError(
        "invalid_parameter",
        "--comfyui needs at least one --bind field=node.input, such as --bind prompt=6.text (repeat it for each input field).",
        { param: "bind" },
      );
    }
    usdArgument(flags.usd, "usd");
    if (flags.costUsd !== undefined && flags.costPerSecond !== undefined)
      throw new ApiError("invalid_parameter", "Pass --cost-usd (per unit) or --cost-per-second, not both.", {
        param: "cost-usd",
      });
    if (flags.costUsd !== undefined) usdArgument(flags.costUsd, "cost-usd", { allowZero: true });
    if (flags.costPerSecond !== undefined) usdArgument(flags.costPerSecond, "cost-per-second");
    const file = path.resolve(flags.file);
    const text = existsSync(file) ? readFileSync(file, "utf8") : null;
    const kind = flags.replicate ? "replicate" : flags.fal ? "fal" : "comfyui";
    // The key's variable: the provider's own when the file has it, else the provider's usual one.
    let existing: { api_key_env?: unknown } | undefined;
    try {
      existing = text
        ? (JSON.parse(text) as { providers?: { id?: unknown; api_key_env?: unknown }[] }).providers?.find(
            (p) => p.id === flags.provider,
          )
        : undefined;
    } catch {
      existing = undefined; // addEntryToProvidersFile says what is wrong with the file
    }
    if (kind === "comfyui" && !existing && !flags.baseUrl) {
      throw new ApiError(
        "invalid_parameter",
        `${flags.provider} is a new provider: pass --base-url with the ComfyUI server's address, such as --base-url http://127.0.0.1:8188.`,
        { param: "base-url" },
      );
    }
    const ownKeyEnv = typeof existing?.api_key_env === "string" ? existing.api_key_env : undefined;
    const apiKeyEnv =
      ownKeyEnv ?? (kind === "replicate" ? "REPLICATE_API_TOKEN" : kind === "fal" ? "FAL_KEY" : undefined);
    try {
      const facts: EntryFacts = {
        id: flags.id,
        usd: flags.usd,
        unit: flags.unit,
        drivers: list(flags.drivers),
        cost:
          flags.costUsd !== undefined
            ? { usd: flags.costUsd.trim() }
            : flags.costPerSecond !== undefined
              ? { perSecondUsd: flags.costPerSecond.trim() }
              : undefined,
        modality: flags.modality,
        tasks: list(flags.tasks),
        name: flags.name,
        creator: flags.creator,
        description: flags.description,
      };
      const imported: ImportedEntry = flags.comfyui
        ? await importComfyEntry({
            ...facts,
            workflow: flags.comfyui,
            baseDir: path.dirname(file),
            bindings: flags.bind,
            baseUrl: flags.baseUrl,
            apiKey: apiKeyEnv ? (process.env[apiKeyEnv] ?? null) : null,
          })
        : await importEntry({
            ...facts,
            source: flags.replicate
              ? { kind: "replicate", model: flags.replicate }
              : { kind: "fal", endpoint: flags.fal! },
            apiKey: kind === "replicate" && apiKeyEnv ? (process.env[apiKeyEnv] ?? null) : null,
            baseUrl: flags.baseUrl,
          });
      // A new ComfyUI provider's base_url is the box itself; Replicate's and fal's stay out (their hosts are fixed).
      const baseUrl = kind === "comfyui" ? flags.baseUrl : undefined;
      writeFileSync(
        file,
        addEntryToProvidersFile(text, { id: flags.provider, kind, apiKeyEnv, baseUrl }, imported.entry, {
          replace: flags.replace === true,
          baseDir: path.dirname(file),
        }),
      );
      const report = {
        object: "provider_import",
        file,
        provider: flags.provider,
        entry: imported.entry.id,
        dropped: imported.dropped,
        notes: imported.notes,
      };
      const source =
        kind === "comfyui" ? { workflow: imported.entry.workflow } : { upstream_model: imported.entry.upstream_model };
      print(report, [{ entry: imported.entry.id, ...source, notes: imported.notes.join(" ") }]);
    } catch (err) {
      if (err instanceof SchemaImportError || err instanceof ProvidersFileError)
        throw new ApiError("invalid_parameter", err.message, { param: "file" });
      throw err;
    }
  });

program
  .command("events")
  .description("events and their webhook deliveries")
  .command("purge")
  .description("delete events (and their deliveries) older than N days; the engine does it hourly for 30")
  .option("--older-than-days <n>", "age in days (0 deletes every event)", "30")
  .action((options: { olderThanDays: string }) =>
    withStore(async (store) => {
      if (!/^\d{1,4}$/.test(options.olderThanDays)) {
        throw new ApiError(
          "invalid_parameter",
          `--older-than-days must be a whole number of days; got "${options.olderThanDays}".`,
          { param: "older-than-days" },
        );
      }
      const deleted = await purgeEvents({ db: store.db }, { olderThanDays: Number(options.olderThanDays) });
      print({ object: "events_purge", deleted }, [{ deleted }]);
    }),
  );

addBackupCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    process.exit(err.exitCode);
  }
  // The store down or locked is a fact to retry on, not a bug: a one-line answer, no stack.
  if (storeUnreachable(err)) err = storeUnavailableError();
  const message =
    err instanceof ApiError || err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err);
  if (printsJson() && err instanceof ApiError) {
    console.error(JSON.stringify({ error: { code: err.code, message: err.message, param: err.param } }));
  } else {
    console.error(`admin: ${message}`);
  }
  process.exit(1);
});
