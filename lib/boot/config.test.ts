import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config";

const dirs: string[] = [];
function tempDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-test-"));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function configError(env: Record<string, string>): ConfigError {
  let caught: unknown = null;
  try {
    loadConfig({ DATA_DIR: tempDataDir(), ...env });
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return caught as ConfigError;
}

describe("loadConfig", () => {
  it("has sensible defaults", () => {
    const dataDir = tempDataDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 3000,
      dataDir,
      databaseUrl: null,
      publicBaseUrl: "http://localhost:3000",
      publicBaseUrlSet: false,
      rateLimitIpPerMin: 300,
      rateLimitKeyPerMin: 600,
      apiKeyPrefix: "atl",
      logLevel: "info",
    });
  });

  it("reads what is set", () => {
    const config = loadConfig({
      DATA_DIR: tempDataDir(),
      PORT: "8080",
      DATABASE_URL: "postgresql://u@db:5432/atelier",
      PUBLIC_BASE_URL: "https://atelier.example.com/",
      SECRET_KEY: "k".repeat(32),
      RATE_LIMIT_IP_PER_MIN: "10",
      RATE_LIMIT_KEY_PER_MIN: "20",
      API_KEY_PREFIX: "acme2",
      LOG_LEVEL: "debug",
    });
    expect(config).toMatchObject({
      port: 8080,
      databaseUrl: "postgresql://u@db:5432/atelier",
      publicBaseUrl: "https://atelier.example.com",
      publicBaseUrlSet: true,
      secretKey: "k".repeat(32),
      rateLimitIpPerMin: 10,
      rateLimitKeyPerMin: 20,
      apiKeyPrefix: "acme2",
      logLevel: "debug",
    });
    expect(loadConfig({ DATA_DIR: tempDataDir(), PORT: "8080" }).publicBaseUrl).toBe("http://localhost:8080");
  });

  it("treats an empty variable as unset", () => {
    const config = loadConfig({ DATA_DIR: tempDataDir(), PORT: "", DATABASE_URL: "", API_KEY_PREFIX: "" });
    expect(config).toMatchObject({ port: 3000, databaseUrl: null, apiKeyPrefix: "atl" });
  });

  it("listens on every interface unless HOST names one", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).host).toBeNull();
    expect(loadConfig({ DATA_DIR: tempDataDir(), HOST: "" }).host).toBeNull();
    for (const HOST of ["127.0.0.1", "::1", "0.0.0.0", "::", "localhost", "10.1.2.3", "fe80::1"]) {
      expect(loadConfig({ DATA_DIR: tempDataDir(), HOST }).host).toBe(HOST);
    }
    for (const HOST of ["http://127.0.0.1", "127.0.0.1:3000", "[::1]", " 127.0.0.1", "a b", "host\u0000", "-bad"]) {
      expect(configError({ HOST }).message).toMatch(/^HOST must be the address to listen on/);
    }
  });

  it("refuses a bad PORT, naming it", () => {
    for (const PORT of ["abc", "0", "65536", "-1", "80.5", " 80"]) {
      const err = configError({ PORT });
      expect(err.message).toMatch(/^PORT must be a whole number from 1 to 65535/);
      expect(err.message).toContain(`"${PORT}"`);
    }
  });

  it("takes a Redis URL with an optional database number, and refuses anything else, naming it", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).redisUrl).toBeNull();
    expect(loadConfig({ DATA_DIR: tempDataDir(), REDIS_URL: "redis://127.0.0.1:6379/3" }).redisUrl).toBe(
      "redis://127.0.0.1:6379/3",
    );
    expect(loadConfig({ DATA_DIR: tempDataDir(), REDIS_URL: "rediss://user:pw@cache:6380" }).redisUrl).toBe(
      "rediss://user:pw@cache:6380",
    );
    for (const REDIS_URL of ["127.0.0.1:6379", "http://cache:6379", "redis://cache:6379/x", "redis://cache:6379/1/2"]) {
      expect(configError({ REDIS_URL }).message).toMatch(/^REDIS_URL must be a Redis URL/);
    }
  });

  it("keeps files on disk without S3_BUCKET, reads the bucket's settings with it, and refuses stray or bad ones", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).s3).toBeNull();
    expect(loadConfig({ DATA_DIR: tempDataDir(), S3_BUCKET: "atelier-media" }).s3).toEqual({
      bucket: "atelier-media",
      prefix: "",
      endpoint: null,
      region: "us-east-1",
      forcePathStyle: false,
      publicEndpoint: null,
    });
    const minio = loadConfig({
      DATA_DIR: tempDataDir(),
      S3_BUCKET: "media",
      S3_PREFIX: "atelier/prod/",
      S3_ENDPOINT: "http://minio:9000/",
      S3_REGION: "eu-west-3",
      S3_FORCE_PATH_STYLE: "1",
      S3_PUBLIC_ENDPOINT: "https://files.example.com",
    }).s3;
    expect(minio).toEqual({
      bucket: "media",
      prefix: "atelier/prod/",
      endpoint: "http://minio:9000",
      region: "eu-west-3",
      forcePathStyle: true,
      publicEndpoint: "https://files.example.com",
    });
    expect(loadConfig({ DATA_DIR: tempDataDir(), S3_BUCKET: "media", AWS_REGION: "ap-south-1" }).s3?.region).toBe(
      "ap-south-1",
    );
    expect(configError({ S3_ENDPOINT: "http://minio:9000" }).message).toBe(
      "S3_ENDPOINT is set but S3_BUCKET is not: set S3_BUCKET to keep files and outputs in a bucket, or unset S3_ENDPOINT.",
    );
    for (const S3_BUCKET of ["A", "Upper", "has space", "-dash", "x".repeat(64)])
      expect(configError({ S3_BUCKET }).message).toMatch(/^S3_BUCKET must be a bucket name/);
    for (const S3_ENDPOINT of ["minio:9000", "ftp://minio", "http://minio:9000/?x=1"])
      expect(configError({ S3_BUCKET: "media", S3_ENDPOINT }).message).toMatch(/^S3_ENDPOINT must be an http\(s\) URL/);
    for (const S3_PREFIX of ["/abs/", "a\u0000b", "x".repeat(201)])
      expect(configError({ S3_BUCKET: "media", S3_PREFIX }).message).toMatch(/^S3_PREFIX must be/);
    expect(configError({ S3_BUCKET: "media", S3_FORCE_PATH_STYLE: "yes" }).message).toMatch(
      /^S3_FORCE_PATH_STYLE must be 1 or 0/,
    );
    expect(configError({ S3_BUCKET: "media", S3_REGION: "EU West" }).message).toMatch(
      /^S3_REGION must be a region name/,
    );
  });

  it("makes every catalog picture after start unless EXAMPLE_PICTURES says on-demand", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).examplePictures).toBe("all");
    expect(loadConfig({ DATA_DIR: tempDataDir(), EXAMPLE_PICTURES: "on-demand" }).examplePictures).toBe("on-demand");
    expect(configError({ EXAMPLE_PICTURES: "none" }).message).toBe(
      'EXAMPLE_PICTURES must be one of all, on-demand; got "none".',
    );
  });

  it("refuses a DATABASE_URL that is not PostgreSQL, naming it", () => {
    for (const DATABASE_URL of ["mysql://u@h/db", "sqlite:./x.db", "127.0.0.1:5432"]) {
      expect(configError({ DATABASE_URL }).message).toMatch(/^DATABASE_URL must be a PostgreSQL URL/);
    }
  });

  it("switches on OAuth sign-in per provider when both its ID and secret are set", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).oauth).toEqual([]);
    const both = loadConfig({
      DATA_DIR: tempDataDir(),
      AUTH_GITHUB_ID: "gh-id",
      AUTH_GITHUB_SECRET: "gh-secret",
      AUTH_GOOGLE_ID: "g-id",
      AUTH_GOOGLE_SECRET: "g-secret",
    });
    expect(both.oauth).toEqual([
      { provider: "github", clientId: "gh-id", clientSecret: "gh-secret" },
      { provider: "google", clientId: "g-id", clientSecret: "g-secret" },
    ]);
    expect(configError({ AUTH_GOOGLE_ID: "g-id" }).message).toBe(
      "AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET go together: set both to sign in with google, or neither.",
    );
    expect(configError({ AUTH_GITHUB_SECRET: "s" }).message).toMatch(
      /^AUTH_GITHUB_ID and AUTH_GITHUB_SECRET go together/,
    );
  });

  it("switches on single sign-on with all three OIDC settings; allowed domains need a workspace to join", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).oidc).toBeNull();
    const oidc = {
      OIDC_ISSUER: "https://id.example.com/realms/acme/",
      OIDC_CLIENT_ID: "atelier",
      OIDC_CLIENT_SECRET: "s3cret",
    };
    expect(loadConfig({ DATA_DIR: tempDataDir(), ...oidc }).oidc).toEqual({
      issuer: "https://id.example.com/realms/acme",
      clientId: "atelier",
      clientSecret: "s3cret",
      name: "single sign-on",
      allowedDomains: [],
      join: null,
    });
    expect(
      loadConfig({
        DATA_DIR: tempDataDir(),
        ...oidc,
        OIDC_NAME: "Acme ID",
        OIDC_ALLOWED_DOMAINS: " Example.com, example.org ",
        OIDC_JOIN_WORKSPACE: "ws_abc",
      }).oidc,
    ).toMatchObject({
      name: "Acme ID",
      allowedDomains: ["example.com", "example.org"],
      join: { workspaceId: "ws_abc", role: "viewer" },
    });
    expect(configError({ OIDC_ISSUER: oidc.OIDC_ISSUER }).message).toMatch(
      /^OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together/,
    );
    expect(configError({ OIDC_ALLOWED_DOMAINS: "example.com" }).message).toMatch(/mean nothing without OIDC_ISSUER/);
    for (const OIDC_ISSUER of [
      "id.example.com",
      "ftp://id.example.com",
      "https://id.example.com/?realm=a",
      "https://\u0000",
    ])
      expect(configError({ ...oidc, OIDC_ISSUER }).message).toMatch(/^OIDC_ISSUER must be the provider's issuer URL/);
    expect(configError({ ...oidc, OIDC_ALLOWED_DOMAINS: "example.com" }).message).toMatch(/needs OIDC_JOIN_WORKSPACE/);
    for (const domain of ["*.example.com", "example", "exa mple.com", "@example.com"])
      expect(configError({ ...oidc, OIDC_ALLOWED_DOMAINS: domain, OIDC_JOIN_WORKSPACE: "ws_a" }).message).toMatch(
        /^OIDC_ALLOWED_DOMAINS is a comma-separated list/,
      );
    for (const OIDC_JOIN_ROLE of ["owner", "ops", "constructor"])
      expect(
        configError({ ...oidc, OIDC_ALLOWED_DOMAINS: "example.com", OIDC_JOIN_WORKSPACE: "ws_a", OIDC_JOIN_ROLE })
          .message,
      ).toMatch(/^OIDC_JOIN_ROLE is one of admin, creator, viewer/);
    expect(configError({ ...oidc, OIDC_JOIN_WORKSPACE: "ws_a" }).message).toMatch(/only with OIDC_ALLOWED_DOMAINS/);
  });

  it("refuses a bad API_KEY_PREFIX, naming it", () => {
    for (const API_KEY_PREFIX of ["ATL", "a", "1abc", "at_l", "abcdefghijklm"]) {
      expect(configError({ API_KEY_PREFIX }).message).toMatch(
        /^API_KEY_PREFIX must be 2 to 12 lower-case letters or digits/,
      );
    }
  });

  it("refuses other bad values, naming the variable", () => {
    expect(configError({ LOG_LEVEL: "loud" }).message).toMatch(/^LOG_LEVEL/);
    expect(configError({ PUBLIC_BASE_URL: "example.com" }).message).toMatch(/^PUBLIC_BASE_URL/);
    expect(configError({ PUBLIC_BASE_URL: "ftp://example.com" }).message).toMatch(/^PUBLIC_BASE_URL/);
    expect(configError({ SECRET_KEY: "short" }).message).toMatch(/^SECRET_KEY must be at least 32 characters/);
    expect(configError({ RATE_LIMIT_IP_PER_MIN: "0" }).message).toMatch(/^RATE_LIMIT_IP_PER_MIN/);
    expect(configError({ RATE_LIMIT_KEY_PER_MIN: "many" }).message).toMatch(/^RATE_LIMIT_KEY_PER_MIN/);
  });

  it("reads EVENTS_PURGE_INTERVAL_SECONDS (hourly by default), refusing bad ones", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).eventsPurgeIntervalSeconds).toBe(3600);
    expect(loadConfig({ DATA_DIR: tempDataDir(), EVENTS_PURGE_INTERVAL_SECONDS: "1" }).eventsPurgeIntervalSeconds).toBe(
      1,
    );
    for (const EVENTS_PURGE_INTERVAL_SECONDS of ["0", "86401", "0.5", "soon"]) {
      expect(configError({ EVENTS_PURGE_INTERVAL_SECONDS }).message).toMatch(
        /^EVENTS_PURGE_INTERVAL_SECONDS must be a whole number from 1 to 86400/,
      );
    }
  });

  it("reads FFMPEG_PATH, MODERATION_BLOCKLIST and PROVIDERS_FILE, refusing bad ones", () => {
    const dir = tempDataDir();
    const providers = path.join(dir, "providers.json");
    const entry = {
      id: "acme/image-1",
      upstream_model: "image-1",
      name: "Acme Image 1",
      description: "Remote images.",
      modality: "image",
      tasks: ["text-to-image"],
      input_schema: {
        type: "object",
        additionalProperties: false,
        required: ["prompt"],
        properties: { prompt: { type: "string", title: "Prompt", description: "What to draw." } },
      },
      pricing: { unit: "image", usd: "0.04", drivers: [], overrides: [] },
    };
    const file = {
      providers: [
        {
          id: "acme",
          kind: "openai-images",
          base_url: "http://127.0.0.1:9",
          api_key_env: "ACME_KEY",
          entries: [entry],
        },
      ],
    };
    writeFileSync(providers, JSON.stringify(file));
    const config = loadConfig({
      DATA_DIR: dir,
      PROVIDERS_FILE: providers,
      ACME_KEY: "sk-test",
      MODERATION_BLOCKLIST: " Gore, bad word ,,",
    });
    expect(config.providers.map((p) => [p.id, p.entries.map((e) => e.id)])).toEqual([["acme", ["acme/image-1"]]]);
    expect(config.moderationBlocklist).toEqual(["gore", "bad word"]);
    expect(existsSync(config.ffmpegPath)).toBe(true);
    expect(loadConfig({ DATA_DIR: dir }).providers).toEqual([]);

    expect(configError({ PROVIDERS_FILE: path.join(dir, "missing.json") }).message).toMatch(
      /^PROVIDERS_FILE names no readable file/,
    );
    expect(configError({ PROVIDERS_FILE: providers }).message).toMatch(/^PROVIDERS_FILE \(.*\): .*ACME_KEY/);
    writeFileSync(providers, "{ not json");
    expect(configError({ PROVIDERS_FILE: providers }).message).toMatch(/^PROVIDERS_FILE/);
    expect(configError({ FFMPEG_PATH: path.join(dir, "no-ffmpeg") }).message).toMatch(/^FFMPEG_PATH names no file/);
  });

  it("reads METRICS_TOKEN (unset: null), refusing a short or header-unsafe one without echoing it", () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).metricsToken).toBeNull();
    expect(loadConfig({ DATA_DIR: tempDataDir(), METRICS_TOKEN: "" }).metricsToken).toBeNull();
    const token = "mt_0123456789abcdefXYZ-._~+/=";
    expect(loadConfig({ DATA_DIR: tempDataDir(), METRICS_TOKEN: token }).metricsToken).toBe(token);
    for (const METRICS_TOKEN of [
      "short-secret",
      "has a space in it okay",
      'quote"inside-the-token',
      "x".repeat(257),
      "tab\tinside-the-token!",
    ]) {
      const { message } = configError({ METRICS_TOKEN });
      expect(message).toMatch(/^METRICS_TOKEN must be 16 to 256 characters/);
      expect(message).not.toContain(METRICS_TOKEN);
    }
  });

  it("generates SECRET_KEY once into DATA_DIR and keeps it", () => {
    const dataDir = path.join(tempDataDir(), "nested", "data");
    const first = loadConfig({ DATA_DIR: dataDir });
    expect(first.secretKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = path.join(dataDir, "secret-key");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8").trim()).toBe(first.secretKey);
    const second = loadConfig({ DATA_DIR: dataDir });
    expect(second.secretKey).toBe(first.secretKey);
    // Another data directory gets its own key.
    expect(loadConfig({ DATA_DIR: tempDataDir() }).secretKey).not.toBe(first.secretKey);
    // A SECRET_KEY that is set wins, and leaves the file alone.
    expect(loadConfig({ DATA_DIR: dataDir, SECRET_KEY: "s".repeat(40) }).secretKey).toBe("s".repeat(40));
    expect(readFileSync(file, "utf8").trim()).toBe(first.secretKey);
  });
});
