// The only reader of process.env. Read and validated once; a bad value stops the start
// with a message naming the variable and what it accepts.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { LIMITS } from "../primitives/limits";
import { defaultFfmpegPath } from "../media/ffmpeg";
import type { S3Settings } from "../blobs/s3-blob-store";
import { readOidc, type OidcSettings } from "./oidc-config";
import { providersFileDocuments, ProvidersFileError, type ProviderConfig, type ProviderDocuments } from "../providers";

export interface Config {
  port: number;
  /** HOST: the address the server listens on; null listens on every interface (Node's default). */
  host: string | null;
  dataDir: string;
  databaseUrl: string | null;
  publicBaseUrl: string;
  /**
   * PUBLIC_BASE_URL was set (publicBaseUrl is not the localhost stand-in): remote providers that
   * push (Replicate, fal) are then given a webhook URL under it for each job (docs/providers.md).
   */
  publicBaseUrlSet: boolean;
  secretKey: string;
  rateLimitIpPerMin: number;
  rateLimitKeyPerMin: number;
  /** Studio sign-in tries a minute per IP address (SIGN_IN_LIMIT_IP_PER_MIN; per email is fixed). */
  signInIpPerMin: number;
  apiKeyPrefix: string;
  logLevel: string;
  /** Worker slots inside the server process; 0 leaves running to `npm run worker` processes. */
  workerConcurrency: number;
  /** FFMPEG_PATH, else the system ffmpeg on PATH, else the one an npm package ships. */
  ffmpegPath: string;
  /** Lower-cased whole words or phrases a prompt may not contain (MODERATION_BLOCKLIST). */
  moderationBlocklist: string[];
  /** WEBHOOK_ALLOW_INSECURE=1 (development, tests): http:// and loopback/private webhook URLs. */
  webhookAllowInsecure: boolean;
  /** Seconds before each delivery attempt (WEBHOOK_RETRY_SCHEDULE; tests shorten it). */
  webhookRetrySchedule: number[];
  /** Seconds between the engine's purges of events past 30 days (EVENTS_PURGE_INTERVAL_SECONDS; tests shorten it). */
  eventsPurgeIntervalSeconds: number;
  /** OUTPUT_RETENTION_DAYS: outputs of runs finished longer ago are deleted (the rows stay); null keeps them forever. */
  outputRetentionDays: number | null;
  /** AUDIT_RETENTION_DAYS: audit events older than this are deleted (the log's only delete); 365 by default. */
  auditRetentionDays: number;
  /** PATH: where models find the programs they run (espeak-ng). */
  searchPath: string;
  /** PROVIDERS_FILE's path, or null. */
  providersFile: string | null;
  /** Remote providers and the catalog entries they serve, parsed from PROVIDERS_FILE (checked at start). */
  providers: ProviderConfig[];
  /** PROVIDERS_FILE as the documents applied to the store at start (lib/providers/stored-catalog/apply-file.ts). */
  providerDocuments: ProviderDocuments[];
  /** The environment the stored providers' `api_key_env` names are read from. */
  providerEnv: Readonly<Record<string, string | undefined>>;
  /** Studio sign-in with GitHub or Google, on when both the ID and the secret are set. */
  oauth: OAuthClient[];
  /** Studio sign-in with an OpenID Connect provider (OIDC_*, oidc-config.ts); null: off. */
  oidc: OidcSettings | null;
  /** METRICS_TOKEN: /metrics wants it as a Bearer token; null: /metrics answers only loopback requests. */
  metricsToken: string | null;
  /** REDIS_URL: rate limits shared through Redis (in the database the URL names) instead of PostgreSQL or memory. */
  redisUrl: string | null;
  /** S3_BUCKET and its settings: files and outputs live in the bucket; null keeps them in DATA_DIR/blobs. */
  s3: S3Settings | null;
  /** EXAMPLE_PICTURES: "all" makes every catalog card's picture in the background after start; "on-demand" only those a page asks for. */
  examplePictures: "all" | "on-demand";
  /**
   * STUDIO_START (production): "on-demand" (the default) starts the studio's render thread with
   * its first page, which then waits ~2 s; a process that serves only the API never spends the
   * thread's ~6 s of CPU and ~150 MB. "at-start" starts it with the server.
   */
  studioStart: "at-start" | "on-demand";
  /** SMTP_URL (smtp://user:pass@host:587, smtps://…): invitations are mailed; null: shown only. */
  smtpUrl: string | null;
  /** SMTP_FROM: the sender of that mail. */
  smtpFrom: string;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): spans are exported there
   * over OTLP/HTTP (lib/boot/tracing.ts; the SDK reads its other OTEL_* variables itself); null: off.
   */
  traces: { url: string } | null;
}

export const OAUTH_PROVIDERS = ["github", "google"] as const;
export interface OAuthClient {
  provider: (typeof OAUTH_PROVIDERS)[number];
  clientId: string;
  clientSecret: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}".`);
  }
  return Number(raw);
}

function readDatabaseUrl(env: Env): string | null {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === "") return null;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(
      `DATABASE_URL must be a PostgreSQL URL such as postgres://user@127.0.0.1:5432/atelier; unset it to use the embedded SQLite store. Got "${raw}".`,
    );
  }
  return raw;
}

function readRedisUrl(env: Env): string | null {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === "") return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Refused below.
  }
  if (!url || (url.protocol !== "redis:" && url.protocol !== "rediss:") || !/^(\/\d{0,2})?$/.test(url.pathname)) {
    throw new ConfigError(
      `REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0 (the path, if any, a database number); unset it to keep rate limits in the store. Got "${raw}".`,
    );
  }
  return raw;
}

function readHttpUrl(env: Env, name: string, example: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Refused below.
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw new ConfigError(`${name} must be an http(s) URL such as ${example}; got "${raw}".`);
  }
  return raw.replace(/\/+$/, "");
}

/** S3_BUCKET turns the bucket on; the other S3_* settings mean nothing without it. Credentials: the AWS SDK's own chain. */
function readS3(env: Env): S3Settings | null {
  const bucket = env.S3_BUCKET ?? "";
  if (bucket === "") {
    const stray = ["S3_PREFIX", "S3_ENDPOINT", "S3_REGION", "S3_FORCE_PATH_STYLE", "S3_PUBLIC_ENDPOINT"].find(
      (name) => env[name],
    );
    if (stray)
      throw new ConfigError(
        `${stray} is set but S3_BUCKET is not: set S3_BUCKET to keep files and outputs in a bucket, or unset ${stray}.`,
      );
    return null;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(
      `S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens; got "${bucket}".`,
    );
  }
  const prefix = env.S3_PREFIX ?? "";
  // Printable ASCII, no backslash: an object key part every S3-compatible service takes as it is.
  if (prefix.length > 200 || !/^[\x20-\x5b\x5d-\x7e]*$/.test(prefix) || prefix.startsWith("/")) {
    throw new ConfigError(
      `S3_PREFIX must be at most 200 printable characters, not starting with "/" (such as "atelier/"); got "${prefix}".`,
    );
  }
  const region = env.S3_REGION || env.AWS_REGION || "us-east-1";
  if (!/^[a-z0-9-]{1,40}$/.test(region))
    throw new ConfigError(`S3_REGION must be a region name such as us-east-1; got "${region}".`);
  return {
    bucket,
    prefix,
    endpoint: readHttpUrl(env, "S3_ENDPOINT", "http://127.0.0.1:9000"),
    region,
    forcePathStyle: readFlag(env, "S3_FORCE_PATH_STYLE"),
    publicEndpoint: readHttpUrl(env, "S3_PUBLIC_ENDPOINT", "https://files.example.com"),
  };
}

/** HOST: an address of this machine to listen on (127.0.0.1, ::1, 0.0.0.0) or a host name resolving to one. */
function readHost(env: Env): string | null {
  const raw = env.HOST;
  if (raw === undefined || raw === "") return null;
  // An IPv4 or IPv6 address (no brackets, as listen() takes it) or a host name such as localhost.
  if (isIP(raw) === 0 && !/^[0-9A-Za-z](?:[0-9A-Za-z.-]{0,251}[0-9A-Za-z])?$/.test(raw)) {
    throw new ConfigError(
      `HOST must be the address to listen on, such as 127.0.0.1, ::1 or 0.0.0.0 (unset: every interface); got "${raw}".`,
    );
  }
  return raw;
}

function readBaseUrl(env: Env, port: number): string {
  const raw = env.PUBLIC_BASE_URL;
  if (raw === undefined || raw === "") return `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `PUBLIC_BASE_URL must be an absolute http(s) URL such as https://atelier.example.com; got "${raw}".`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`PUBLIC_BASE_URL must start with http:// or https://; got "${raw}".`);
  }
  return raw.replace(/\/+$/, "");
}

/** Where the generated SECRET_KEY is kept when the variable is unset. */
export function secretKeyFile(dataDir: string): string {
  return path.join(dataDir, "secret-key");
}

/** SECRET_KEY when set; otherwise one generated on the first start and kept in DATA_DIR. */
function readSecretKey(env: Env, dataDir: string): string {
  const raw = env.SECRET_KEY;
  if (raw !== undefined && raw !== "") {
    if (raw.length < 32) throw new ConfigError("SECRET_KEY must be at least 32 characters long.");
    return raw;
  }
  const file = secretKeyFile(dataDir);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(32).toString("base64url");
  // "wx" so that two processes starting at once keep the same key.
  try {
    writeFileSync(file, generated + "\n", { flag: "wx", mode: 0o600 });
    return generated;
  } catch {
    return readFileSync(file, "utf8").trim();
  }
}

function readFfmpegPath(env: Env): string {
  const raw = env.FFMPEG_PATH;
  if (raw !== undefined && raw !== "") {
    if (!existsSync(raw))
      throw new ConfigError(`FFMPEG_PATH names no file: "${raw}". Unset it to use the system or bundled ffmpeg.`);
    return raw;
  }
  try {
    return defaultFfmpegPath(env.PATH ?? "");
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

function readProviders(env: Env): {
  providersFile: string | null;
  providers: ProviderConfig[];
  providerDocuments: ProviderDocuments[];
} {
  const raw = env.PROVIDERS_FILE;
  if (raw === undefined || raw === "") return { providersFile: null, providers: [], providerDocuments: [] };
  const file = path.resolve(raw);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ConfigError(`PROVIDERS_FILE names no readable file: "${raw}".`);
  }
  try {
    const { providers, documents } = providersFileDocuments(text, env, path.dirname(file));
    return { providersFile: file, providers, providerDocuments: documents };
  } catch (err) {
    if (err instanceof ProvidersFileError) throw new ConfigError(`PROVIDERS_FILE (${file}): ${err.message}`);
    throw err;
  }
}

/** Standard Webhooks' (Svix's) schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

function readSchedule(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE;
  if (raw === undefined || raw === "") return DEFAULT_WEBHOOK_SCHEDULE;
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.length < 1 || parts.length > 20 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p) || Number(p) > 604_800)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated seconds (each at most 604800), such as 0,5,300; got "${raw}".`,
    );
  }
  return parts.map(Number);
}

function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(choices as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${choices.join(", ")}; got "${raw}".`);
  return raw as T;
}

function readFlag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  throw new ConfigError(`${name} must be 1 or 0 (true or false); got "${raw}".`);
}

function readBlocklist(env: Env): string[] {
  const terms = (env.MODERATION_BLOCKLIST ?? "")
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  for (const term of terms) {
    if (term.length > 100)
      throw new ConfigError(
        `MODERATION_BLOCKLIST terms may be at most 100 characters; "${term.slice(0, 20)}…" is longer.`,
      );
  }
  return terms;
}

/** METRICS_TOKEN: sent as `Authorization: Bearer <token>`, so header-safe characters only; never echoed. */
function readMetricsToken(env: Env): string | null {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === "") return null;
  if (raw.length < 16 || raw.length > 256 || !/^[A-Za-z0-9._~+/=-]+$/.test(raw)) {
    // The value is a secret: say what is wrong with it, never what it is.
    throw new ConfigError(
      `METRICS_TOKEN must be 16 to 256 characters, each a letter, a digit or one of . _ ~ + / = - (it is sent as Authorization: Bearer <token>); the one set (${raw.length} characters) is not.`,
    );
  }
  return raw;
}

/** AUTH_GITHUB_ID + AUTH_GITHUB_SECRET, AUTH_GOOGLE_ID + AUTH_GOOGLE_SECRET: both or neither. */
function readOAuth(env: Env): OAuthClient[] {
  const clients: OAuthClient[] = [];
  for (const provider of OAUTH_PROVIDERS) {
    const idName = `AUTH_${provider.toUpperCase()}_ID`;
    const secretName = `AUTH_${provider.toUpperCase()}_SECRET`;
    const clientId = env[idName] ?? "";
    const clientSecret = env[secretName] ?? "";
    if (!clientId && !clientSecret) continue;
    if (!clientId || !clientSecret)
      throw new ConfigError(
        `${idName} and ${secretName} go together: set both to sign in with ${provider}, or neither.`,
      );
    clients.push({ provider, clientId, clientSecret });
  }
  return clients;
}

function readDataDir(env: Env): string {
  // Chosen at run time: the bundler must not trace it (turbopackIgnore).
  return path.resolve(/*turbopackIgnore: true*/ env.DATA_DIR || "./.data");
}

/** Where the install keeps its data, read without touching the disk (loadConfig makes DATA_DIR/secret-key when missing). */
export interface StorageSettings {
  dataDir: string;
  databaseUrl: string | null;
  /** SECRET_KEY is set (else the key is DATA_DIR/secret-key). */
  secretKeyInEnv: boolean;
  s3: S3Settings | null;
}

/** The settings `admin backup` and `admin restore` need, and nothing written: a restore wants DATA_DIR empty. */
export function loadStorageSettings(env: Env = process.env): StorageSettings {
  return {
    dataDir: readDataDir(env),
    databaseUrl: readDatabaseUrl(env),
    secretKeyInEnv: env.SECRET_KEY !== undefined && env.SECRET_KEY !== "",
    s3: readS3(env),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const port = readInteger(env, "PORT", 3000, 1, 65535);
  const dataDir = readDataDir(env);
  const apiKeyPrefix = env.API_KEY_PREFIX || "atl";
  if (!/^[a-z][a-z0-9]{1,11}$/.test(apiKeyPrefix)) {
    throw new ConfigError(
      `API_KEY_PREFIX must be 2 to 12 lower-case letters or digits starting with a letter; got "${apiKeyPrefix}".`,
    );
  }
  const logLevel = env.LOG_LEVEL || "info";
  if (!["fatal", "error", "warn", "info", "debug", "trace", "silent"].includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}".`,
    );
  }
  return {
    port,
    host: readHost(env),
    dataDir,
    databaseUrl: readDatabaseUrl(env),
    publicBaseUrl: readBaseUrl(env, port),
    publicBaseUrlSet: Boolean(env.PUBLIC_BASE_URL),
    secretKey: readSecretKey(env, dataDir),
    rateLimitIpPerMin: readInteger(env, "RATE_LIMIT_IP_PER_MIN", 300, 1, 1_000_000),
    rateLimitKeyPerMin: readInteger(env, "RATE_LIMIT_KEY_PER_MIN", 600, 1, 1_000_000),
    signInIpPerMin: readInteger(env, "SIGN_IN_LIMIT_IP_PER_MIN", LIMITS.signIn.perIp, 1, 1_000_000),
    apiKeyPrefix,
    logLevel,
    workerConcurrency: readInteger(env, "WORKER_CONCURRENCY", 2, 0, 64),
    ffmpegPath: readFfmpegPath(env),
    moderationBlocklist: readBlocklist(env),
    searchPath: env.PATH ?? "",
    webhookAllowInsecure: readFlag(env, "WEBHOOK_ALLOW_INSECURE"),
    webhookRetrySchedule: readSchedule(env),
    eventsPurgeIntervalSeconds: readInteger(env, "EVENTS_PURGE_INTERVAL_SECONDS", 3600, 1, 86_400),
    outputRetentionDays: env.OUTPUT_RETENTION_DAYS ? readInteger(env, "OUTPUT_RETENTION_DAYS", 0, 1, 36_500) : null,
    auditRetentionDays: readInteger(env, "AUDIT_RETENTION_DAYS", LIMITS.auditRetentionDays, 1, 36_500),
    ...readProviders(env),
    providerEnv: env,
    oauth: readOAuth(env),
    oidc: readOidc(env, (message) => new ConfigError(message)),
    metricsToken: readMetricsToken(env),
    redisUrl: readRedisUrl(env),
    s3: readS3(env),
    examplePictures: readChoice(env, "EXAMPLE_PICTURES", ["all", "on-demand"] as const, "all"),
    studioStart: readChoice(env, "STUDIO_START", ["at-start", "on-demand"] as const, "on-demand"),
    smtpUrl: readSmtpUrl(env),
    smtpFrom: env.SMTP_FROM?.trim() || "Atelier <atelier@localhost>",
    traces: readTraces(env),
  };
}

/**
 * Traces are on when an OTLP endpoint is set, the general one or the traces' own, unless the
 * standard OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turns them off. `url` is where
 * spans are posted: the traces' endpoint as given, else the general one + /v1/traces (as the spec says).
 */
function readTraces(env: Env): { url: string } | null {
  const traceSpecific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const name = traceSpecific ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT";
  const endpoint = traceSpecific || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return null;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return null;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigError(`${name} must be a URL such as http://localhost:4318; got "${endpoint}".`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(`${name} must start with http:// or https:// (OTLP over HTTP); got "${url.protocol}".`);
  return { url: traceSpecific ? endpoint : `${endpoint.replace(/\/+$/, "")}/v1/traces` };
}

function readSmtpUrl(env: Env): string | null {
  const raw = env.SMTP_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587; got "${raw}".`);
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:")
    throw new ConfigError(`SMTP_URL must start with smtp:// or smtps://; got "${url.protocol}".`);
  return raw;
}

let cached: Config | null = null;

/** The process's configuration, read on first use. */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
