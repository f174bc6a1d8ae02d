// The admin CLI's remote catalog in the store: providers listed, added, edited, removed, and the
// providers file applied; entries listed, added (as drafts), edited, published, deprecated and
// retired. The same verbs the studio's pages call (lib/providers/stored-catalog/), acting as the
// CLI, each change audited with the actor `cli` and announced to every running process. A pasted
// key is read from stdin (--api-key-stdin), never from an argument: arguments show in `ps`.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { ApiError } from "../lib/primitives/errors";
import type { Config } from "../lib/boot/config";
import type { Store } from "../lib/store/store";
import { providersFileDocuments, ProvidersFileError } from "../lib/providers";
import { applyProvidersFile, storedButNotInFile } from "../lib/providers/stored-catalog/apply-file";
import { rekeyStoredSecrets } from "../lib/providers/stored-catalog/rekey";
import { storedProviders } from "../lib/providers/stored-catalog/load";
import { checkProviderConnection } from "../lib/providers/connection-check";
import {
  addProvider,
  editProvider,
  listStoredEntries,
  listStoredProviders,
  removeProvider,
  type CatalogCtx,
  type StoredEntry,
} from "../lib/providers/stored-catalog/catalog-verbs";
import {
  addEntry,
  deprecateEntry,
  editEntry,
  publishEntry,
  retireEntry,
} from "../lib/providers/stored-catalog/entry-verbs";
import { announce, print, withStore } from "./admin-io";

function catalogCtx(store: Store, config: Config, baseDir?: string): CatalogCtx {
  return { db: store.db, secretKey: config.secretKey, env: config.providerEnv, actingAs: "cli", baseDir };
}

function readDocument(file: string): { document: unknown; baseDir: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ApiError("invalid_parameter", `--file names no readable file: "${file}".`, { param: "file" });
  }
  try {
    return { document: JSON.parse(text), baseDir: path.dirname(path.resolve(file)) };
  } catch (err) {
    throw new ApiError("invalid_parameter", `--file is not valid JSON: ${(err as Error).message}`, { param: "file" });
  }
}

async function readStdinKey(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const key = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  if (key.trim() === "")
    throw new ApiError("invalid_parameter", "--api-key-stdin read no key from stdin.", { param: "api-key-stdin" });
  return key;
}

/** A provider document from --file, or from the flags. */
function providerDocument(options: ProviderFlags): { document: unknown; baseDir?: string } {
  if (options.file) return readDocument(options.file);
  if (!options.id || !options.kind)
    throw new ApiError("invalid_parameter", "Give the provider as --file <json>, or at least --id and --kind.", {
      param: "file",
    });
  const document: Record<string, unknown> = { id: options.id, kind: options.kind };
  if (options.baseUrl) document.base_url = options.baseUrl;
  if (options.apiKeyEnv) document.api_key_env = options.apiKeyEnv;
  if (options.timeoutMs) document.timeout_ms = Number(options.timeoutMs);
  return { document };
}

interface ProviderFlags {
  file?: string;
  id?: string;
  kind?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  timeoutMs?: string;
  apiKeyStdin?: boolean;
  clearApiKey?: boolean;
}

const entryRow = (e: StoredEntry) => ({
  id: e.id,
  provider: e.provider,
  state: e.state,
  revision: e.revision,
  source: e.source,
  sunset_at: (e.document.lifecycle as { sunset_at?: string } | null | undefined)?.sunset_at ?? null,
  updated_at: e.updated_at,
});

/** Commands under `provider` (beside `provider import`) and a new `entry` group. */
export function addCatalogCommands(program: Command, provider: Command): void {
  const changed = (store: Store, config: Config) => announce(store, config, { kind: "catalog_changed" });

  provider
    .command("list")
    .description("the providers stored in the catalog, and how each one's key is given (never the key)")
    .action(() =>
      withStore(async (store) => {
        const providers = await listStoredProviders({ db: store.db, actingAs: "cli" });
        print(
          { object: "list", data: providers },
          providers.map((p) => ({
            id: p.id,
            kind: p.kind,
            credential: p.credential,
            source: p.source,
            entries: p.entries,
          })),
        );
      }),
    );

  const withProviderFlags = (command: Command) =>
    command
      .option("--file <json>", "the provider's settings as the providers file holds them, without entries")
      .option("--id <id>", "the provider's id (without --file)")
      .option("--kind <kind>", "its protocol: openai-images, ai-sdk, comfyui, replicate, fal (without --file)")
      .option("--base-url <url>", "its API's address (without --file)")
      .option("--api-key-env <name>", "the variable holding its key (without --file)")
      .option("--timeout-ms <ms>", "limit for one call (without --file)")
      .option("--api-key-stdin", "read a key from stdin and store it encrypted, instead of api_key_env");

  withProviderFlags(
    provider.command("add").description("store a new provider (its entries are added with `entry add`)"),
  ).action((options: ProviderFlags) =>
    withStore(async (store, config) => {
      const { document, baseDir } = providerDocument(options);
      const apiKey = options.apiKeyStdin ? await readStdinKey() : null;
      const added = await addProvider(catalogCtx(store, config, baseDir), { document, apiKey });
      await changed(store, config);
      print(added, [{ id: added.id, kind: added.kind, credential: added.credential }]);
    }),
  );

  withProviderFlags(
    provider
      .command("edit")
      .argument("<id>", "the provider's id")
      .description("replace a provider's settings; its stored key stays unless replaced or cleared"),
  )
    .option("--clear-api-key", "remove the stored key")
    .action((id: string, options: ProviderFlags) =>
      withStore(async (store, config) => {
        const { document, baseDir } = providerDocument({ ...options, id: options.id ?? id });
        const apiKey = options.apiKeyStdin ? await readStdinKey() : options.clearApiKey ? null : undefined;
        const edited = await editProvider(catalogCtx(store, config, baseDir), { id, document, apiKey });
        await changed(store, config);
        print(edited, [{ id: edited.id, kind: edited.kind, credential: edited.credential }]);
      }),
    );

  provider
    .command("test")
    .argument("<id>", "the provider's id")
    .description(
      "test a stored provider's connection with one cheap read (an account, a model list, system stats; never a generation); exits 1 when it fails",
    )
    .action((id: string) =>
      withStore(async (store, config) => {
        const warnings: string[] = [];
        const ctx = {
          db: store.db,
          secretKey: config.secretKey,
          env: config.providerEnv,
          warn: (w: string) => warnings.push(w),
        };
        const found = (await storedProviders(ctx)).find((p) => p.id === id);
        if (!found) {
          // Stored but not usable here (its key's variable unset, a key sealed under another SECRET_KEY): say why.
          const why = warnings.find((w) => w.includes(`provider ${id} `));
          throw new ApiError(
            "resource_not_found",
            why ?? `No provider "${id}" in the stored catalog. "provider list" shows them.`,
            { param: "provider" },
          );
        }
        const check = await checkProviderConnection(found);
        print({ object: "provider_check", provider: id, ...check }, [
          { provider: id, ok: check.ok, latency_ms: check.latency_ms, said: check.ok ? check.detail : check.error },
        ]);
        if (!check.ok) process.exitCode = 1;
      }),
    );

  provider
    .command("remove")
    .argument("<id>", "the provider's id")
    .description("remove a provider and its entries from the store (a providers file naming it adds it again)")
    .action((id: string) =>
      withStore(async (store, config) => {
        const removed = await removeProvider(catalogCtx(store, config), { id });
        await changed(store, config);
        print({ object: "provider_removal", ...removed }, [removed]);
      }),
    );

  provider
    .command("apply")
    .description(
      "apply a providers file to the store: what the file changed since its last apply wins, store edits of what it did not change stay",
    )
    .requiredOption("--file <path>", "the providers file")
    .action((options: { file: string }) =>
      withStore(async (store, config) => {
        const file = path.resolve(options.file);
        let text: string;
        try {
          text = readFileSync(file, "utf8");
        } catch {
          throw new ApiError("invalid_parameter", `--file names no readable file: "${options.file}".`, {
            param: "file",
          });
        }
        let documents;
        try {
          documents = providersFileDocuments(text, config.providerEnv, path.dirname(file)).documents;
        } catch (err) {
          if (err instanceof ProvidersFileError)
            throw new ApiError("invalid_parameter", err.message, { param: err.message.split(" ", 1)[0]! });
          throw err;
        }
        const applied = await applyProvidersFile(catalogCtx(store, config, path.dirname(file)), documents);
        await changed(store, config);
        // What the file no longer names stays in the store: said, so it is not taken for removed.
        const notInFile = await storedButNotInFile(store.db, documents);
        print(
          { object: "providers_apply", providers: applied, not_in_file: notInFile },
          applied.map((a) => ({
            ...a,
            added: a.added.join(" "),
            updated: a.updated.join(" "),
            kept: a.kept.join(" "),
          })),
        );
      }),
    );

  provider
    .command("rekey")
    .description(
      "after changing SECRET_KEY: re-encrypt every stored provider key under the new one, in one transaction",
    )
    .requiredOption("--old-secret-key-env <name>", "the variable holding the SECRET_KEY the keys were stored under")
    .action((options: { oldSecretKeyEnv: string }) =>
      withStore(async (store, config) => {
        const oldSecretKey = config.providerEnv[options.oldSecretKeyEnv];
        if (!oldSecretKey)
          throw new ApiError(
            "invalid_parameter",
            `--old-secret-key-env names ${options.oldSecretKeyEnv}, which is not set.`,
            {
              param: "old-secret-key-env",
            },
          );
        const result = await rekeyStoredSecrets(catalogCtx(store, config), { oldSecretKey });
        await changed(store, config);
        print({ object: "provider_rekey", ...result }, [
          { rekeyed: result.rekeyed.join(" "), already: result.already.join(" ") },
        ]);
      }),
    );

  const entry = program.command("entry").description("catalog entries of the stored providers");
  entry
    .command("list")
    .description("the stored entries, drafts included")
    .option("--provider <id>", "only this provider's")
    .option("--state <state>", "draft or published")
    .action((options: { provider?: string; state?: string }) =>
      withStore(async (store) => {
        if (options.state !== undefined && options.state !== "draft" && options.state !== "published")
          throw new ApiError("invalid_parameter", `--state must be draft or published; got "${options.state}".`, {
            param: "state",
          });
        const entries = await listStoredEntries(
          { db: store.db, actingAs: "cli" },
          { providerId: options.provider, state: options.state as "draft" | "published" | undefined },
        );
        print({ object: "list", data: entries }, entries.map(entryRow));
      }),
    );
  entry
    .command("add")
    .description("add an entry to a stored provider, as a draft unless --publish")
    .requiredOption("--provider <id>", "the provider serving it")
    .requiredOption("--file <json>", "the entry as the providers file holds it")
    .option("--publish", "publish it at once")
    .action((options: { provider: string; file: string; publish?: boolean }) =>
      withStore(async (store, config) => {
        const { document, baseDir } = readDocument(options.file);
        const added = await addEntry(catalogCtx(store, config, baseDir), {
          providerId: options.provider,
          document,
          publish: options.publish === true,
        });
        await changed(store, config);
        print(added, [entryRow(added)]);
      }),
    );
  entry
    .command("edit")
    .argument("<id>", "the entry's id")
    .description("replace an entry's document; a change to what runs do or cost makes a new revision")
    .requiredOption("--file <json>", "the entry as the providers file holds it")
    .action((id: string, options: { file: string }) =>
      withStore(async (store, config) => {
        const { document, baseDir } = readDocument(options.file);
        const edited = await editEntry(catalogCtx(store, config, baseDir), { id, document });
        await changed(store, config);
        print(edited, [entryRow(edited)]);
      }),
    );
  entry
    .command("publish")
    .argument("[id]", "a stored draft's id")
    .description("put a draft in the catalog; with --provider and --file, add the entry and publish it")
    .option("--provider <id>", "with --file: the provider serving it")
    .option("--file <json>", "with --provider: the entry as the providers file holds it")
    .action((id: string | undefined, options: { provider?: string; file?: string }) =>
      withStore(async (store, config) => {
        let published: StoredEntry;
        if (options.file) {
          if (!options.provider)
            throw new ApiError("invalid_parameter", "--file needs --provider.", { param: "provider" });
          const { document, baseDir } = readDocument(options.file);
          published = await addEntry(catalogCtx(store, config, baseDir), {
            providerId: options.provider,
            document,
            publish: true,
          });
        } else {
          if (!id)
            throw new ApiError("invalid_parameter", "Name the draft to publish, or give --file.", { param: "id" });
          published = await publishEntry(catalogCtx(store, config), { id });
        }
        await changed(store, config);
        print(published, [entryRow(published)]);
      }),
    );
  entry
    .command("deprecate")
    .argument("<id>", "the entry's id")
    .description("deprecated now (Deprecation and Sunset headers), retired at --sunset-at")
    .requiredOption("--sunset-at <iso>", "when it retires, such as 2027-01-31T00:00:00Z")
    .option("--replaced-by <id>", "the entry to use instead")
    .action((id: string, options: { sunsetAt: string; replacedBy?: string }) =>
      withStore(async (store, config) => {
        const entry = await deprecateEntry(catalogCtx(store, config), {
          id,
          sunsetAt: options.sunsetAt,
          replacedBy: options.replacedBy ?? null,
        });
        await changed(store, config);
        print(entry, [entryRow(entry)]);
      }),
    );
  entry
    .command("retire")
    .argument("<id>", "the entry's id")
    .description("retired now: new runs answer 410 (naming --replaced-by), the listing leaves it out")
    .option("--replaced-by <id>", "the entry to use instead")
    .action((id: string, options: { replacedBy?: string }) =>
      withStore(async (store, config) => {
        const entry = await retireEntry(catalogCtx(store, config), { id, replacedBy: options.replacedBy ?? null });
        await changed(store, config);
        print(entry, [entryRow(entry)]);
      }),
    );
}
