// Start-up steps every process shares: open the configured store and bring it up to date,
// and on the very first start of an empty embedded store, create the demo workspace.
import path from "node:path";
import type { Logger } from "pino";
import sharp from "sharp";
import { localBlobStore, type BlobStore } from "../blobs/blob-store";
import { examplePictureDirectory } from "../blobs/picture-directory";
import type { S3Settings } from "../blobs/s3-blob-store";
import { ConfigError, loadConfig, type Config } from "./config";
import type { Services } from "../core/context";
import { compileBlocklist } from "../core/catalog/moderation";
import { installBuiltInModels } from "../core/catalog/catalog";
import { BUILT_IN_MODELS } from "../models";
import { applyProvidersFile, storedButNotInFile } from "../providers/stored-catalog/apply-file";
import { watchStoredCatalog, type CatalogWatch } from "../providers/stored-catalog/catalog-watch";
import { loadStoredCatalog, type LoadCtx } from "../providers/stored-catalog/load";
import { setProgramSearchPath } from "../media/host";
import { connectCrossProcessSignals, type CrossProcessSignals } from "../engine/cross-process";
import { cachePausesOf } from "../core/catalog/pause-cache";
import { createRunSignals } from "../engine/run-signals";
import { createApiKeyCache } from "../core/keys/api-key-cache";
import { createStudioSessionCache } from "../core/workspaces/studio-sessions";
import { createApiKey, type CreatedApiKey } from "../core/keys/api-keys";
import { parseUsd } from "../primitives/money";
import { ApiError } from "../primitives/errors";
import { countWorkspaces, createWorkspace, type Workspace } from "../core/workspaces/workspaces";
import { createUser, generatePassword } from "../core/workspaces/users";
import { migrateStore, openStore, sqliteFileIn, type Store } from "../store/store";

let catalogInstalled = false;

/**
 * Puts the built-in models in the catalog and tells models the PATH, once per process. The remote
 * entries come from the store once it is open (openConfiguredStore).
 */
export function installCatalog(config: Config): void {
  if (catalogInstalled) return;
  setProgramSearchPath(config.searchPath);
  installBuiltInModels(BUILT_IN_MODELS);
  catalogInstalled = true;
}

/** What reading the stored remote catalog needs in this process. */
export function catalogLoadCtx(config: Config, store: Store, logger?: Logger): LoadCtx {
  return {
    db: store.db,
    secretKey: config.secretKey,
    env: config.providerEnv,
    warn: (message) => (logger ? logger.warn(message) : undefined),
  };
}

/**
 * The configured store, migrated, with the catalog's remote entries read from it. With
 * `applyProvidersFile` (the server and `npm run worker`), PROVIDERS_FILE is applied to the store
 * first (lib/providers/stored-catalog/apply-file.ts); the studio's thread and the admin CLI only
 * read. `logger` hears pooled connections dropped while idle (a database restart); without one
 * (the admin CLI, whose stdout is its answer) they are dropped quietly.
 */
export async function openConfiguredStore(
  config: Config,
  logger?: Logger,
  options: { backgroundCheckpoints?: boolean; applyProvidersFile?: boolean } = {},
): Promise<Store> {
  installCatalog(config);
  const store = openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
    backgroundCheckpoints: options.backgroundCheckpoints,
  });
  await migrateStore(store);
  if (options.applyProvidersFile && config.providerDocuments.length > 0) {
    const applied = await applyProvidersFile(
      {
        db: store.db,
        secretKey: config.secretKey,
        env: config.providerEnv,
        actingAs: "cli",
        baseDir: config.providersFile ? path.dirname(config.providersFile) : undefined,
      },
      config.providerDocuments,
    ).catch(async (err: unknown) => {
      // What the store refuses of the file (a provider's kind changed under its stored entries)
      // stops the start as a mistake in the file does, naming the field.
      if (!(err instanceof ApiError)) throw err;
      await store.close();
      throw new ConfigError(`PROVIDERS_FILE (${config.providersFile}): ${err.message}`);
    });
    const unnamed = await storedButNotInFile(store.db, config.providerDocuments);
    if (unnamed.providers.length > 0 || unnamed.entries.length > 0)
      logger?.warn(
        unnamed,
        "PROVIDERS_FILE no longer names these; they stay in the store and are served (admin provider remove, admin entry retire)",
      );
    const kept = applied.flatMap((a) => a.kept);
    if (kept.length > 0)
      logger?.info(
        { kept },
        "PROVIDERS_FILE: entries edited in the store since the file last changed keep the store's version",
      );
  }
  await loadStoredCatalog(catalogLoadCtx(config, store, logger));
  return store;
}

export const DEMO_CREDIT_USD = "10.00";

/** Creates the demo workspace and key when the embedded store has no workspace yet. */
export async function seedDemoWorkspace(
  store: Store,
  config: Config,
): Promise<{ workspace: Workspace; key: CreatedApiKey; login: { email: string; password: string } } | null> {
  if (store.dialect !== "sqlite") return null;
  if ((await countWorkspaces({ db: store.db })) > 0) return null;
  const workspace = await createWorkspace({ db: store.db }, { name: "demo", creditMicros: parseUsd(DEMO_CREDIT_USD)! });
  const key = await createApiKey(
    { db: store.db },
    { workspaceId: workspace.id, name: "demo key", prefix: config.apiKeyPrefix },
  );
  const login = { email: "demo@atelier.local", password: generatePassword() };
  await createUser({ db: store.db }, { ...login, workspaceId: workspace.id, role: "owner", ops: true });
  return { workspace, key, login };
}

/**
 * The bucket's store. The AWS SDK loads only when S3_BUCKET is set: loading it slows every
 * process's start (the admin CLI on each call, the server, a worker).
 */
function s3Store(settings: S3Settings): BlobStore {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { s3BlobStore } = require("../blobs/s3-blob-store") as typeof import("../blobs/s3-blob-store");
  return s3BlobStore(settings);
}

/** The process-wide helpers every door hands to the core. */
export function createServices(config: Config): Services {
  const signals = createRunSignals();
  const apiKeys = createApiKeyCache();
  signals.onKeyRevoked((keyId) => apiKeys.forget(keyId));
  const studioSessions = createStudioSessionCache();
  // A user's access changed (role, membership, ops flag, password): their sessions and keys are read anew.
  signals.onSessionsEnded((userId) => {
    studioSessions.forgetUser(userId);
    apiKeys.forgetMaker(userId);
  });
  return {
    secretKey: config.secretKey,
    publicBaseUrl: config.publicBaseUrl,
    providerWebhookBaseUrl: config.publicBaseUrlSet ? config.publicBaseUrl : null,
    blobs: config.s3 ? s3Store(config.s3) : localBlobStore(config.dataDir),
    examplePictures: examplePictureDirectory(config.dataDir),
    signals,
    apiKeys,
    studioSessions,
    ffmpegPath: config.ffmpegPath,
    webhooks: { allowInsecure: config.webhookAllowInsecure, retryScheduleSeconds: config.webhookRetrySchedule },
    moderationBlocklist: compileBlocklist(config.moderationBlocklist),
  };
}

/** The configuration, or a clear message and exit 1 when a variable is wrong. */
export function loadConfigOrExit(processName: string): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${processName} cannot start: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

export interface Runtime {
  store: Store;
  services: Services;
  crossProcess: CrossProcessSignals;
  /** The remote catalog kept as the store has it (catalog_changed signals, the version poll). */
  catalog: CatalogWatch;
}

/** What the server and worker processes share: the migrated store, the services, the signal bridge. */
export async function startRuntime(
  config: Config,
  logger: Logger,
  options: { backgroundCheckpoints?: boolean; applyProvidersFile?: boolean } = {},
): Promise<Runtime> {
  // libvips keeps up to 50 MB of recent operations for reuse, in the whole process and after the
  // catalog pictures' thread ends; our images are made once each (idle RSS 375 -> 341 MB).
  sharp.cache(false);
  // Long-running: an embedded store's checkpoints move off the event loop (lib/store/sqlite-checkpoints.ts).
  // A second runtime in the same process (the studio's thread) leaves them to the first, and
  // leaves applying PROVIDERS_FILE to it too.
  const store = await openConfiguredStore(config, logger, {
    backgroundCheckpoints: options.backgroundCheckpoints ?? true,
    applyProvidersFile: options.applyProvidersFile ?? true,
  });
  const services: Services = { ...createServices(config), historyReads: store.reads };
  const crossProcess = await connectCrossProcessSignals(store, config.databaseUrl, services.signals, logger, {
    sqliteFile: config.databaseUrl ? undefined : sqliteFileIn(config.dataDir),
  });
  // Only with the bridge up: a pause made by another process must be heard to be forgotten.
  cachePausesOf(store.db, services.signals);
  const catalog = await watchStoredCatalog(catalogLoadCtx(config, store, logger), services.signals);
  return { store, services, crossProcess, catalog };
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/i;

/**
 * The start warning when PUBLIC_BASE_URL is unset but the server listens beyond this machine
 * (all interfaces, or a LAN address): the studio works there (its links are same-origin), but
 * links in API and MCP answers, webhooks and doc URLs point at http://localhost:PORT, which
 * other machines cannot open. null when there is nothing to say.
 */
export function publicBaseUrlWarning(options: {
  env: Record<string, string | undefined>;
  boundAddress: string | null;
  publicBaseUrl: string;
}): string | null {
  if (options.env.PUBLIC_BASE_URL) return null;
  const address = options.boundAddress ?? "";
  if (LOOPBACK.test(address)) return null;
  const where = address === "" || address === "::" || address === "0.0.0.0" ? "every network interface" : address;
  return (
    `PUBLIC_BASE_URL is unset, and the server listens on ${where}: the studio works from another address, ` +
    `but links in API and MCP answers and webhooks point at ${options.publicBaseUrl}, which only this machine can open. ` +
    `Set PUBLIC_BASE_URL to the address clients use (e.g. http://192.168.1.20:${new URL(options.publicBaseUrl).port || "80"}).`
  );
}
