// Single sign-on with a real OpenID Connect provider (the npm `oidc-provider` package, in a process
// of its own, testing/oidc-idp.mjs) and an Atelier server of this file's own on port 3403, started
// with OIDC_* (the config's 3401 server has none): discovery, PKCE, state and nonce are next-auth's
// against a certified provider. Invitation-only by default; OIDC_ALLOWED_DOMAINS opens accounts
// for verified emails of its domains in OIDC_JOIN_WORKSPACE; an unverified email and a stranger are
// refused with the reason.
// Run: flock /tmp/atelier-e2e.lock npx playwright test --config e2e/studio/playwright.config.ts sso
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { stopWorker } from "../api/runs-helpers";
import { spawnRepoProcess, untilAnswers, type RepoProcess } from "../server-processes";
import { admin, newUser, screenshot, type TestUser } from "./helpers";
import { REPO_ROOT } from "./playwright.config";

const PORT = 3403;
const BASE_URL = `http://localhost:${PORT}`;
const DATA_DIR = path.join(REPO_ROOT, ".data-e2e", "studio-sso");
const STORE = { DATA_DIR, DATABASE_URL: "" };
const IDP_PORT = 3397;
const IDP_URL = `http://127.0.0.1:${IDP_PORT}`;
const CLIENT = { id: "atelier-studio", secret: "sso-test-secret-0123456789" };

let idp: RepoProcess | null = null;
let server: RepoProcess | null = null;
let owner: TestUser;
const tag = Date.now().toString(36);

test.describe.configure({ mode: "serial" });
test.use({ baseURL: BASE_URL });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const idpProcess = spawnRepoProcess(
    [
      "e2e/studio/testing/oidc-idp.mjs",
      String(IDP_PORT),
      CLIENT.id,
      CLIENT.secret,
      `${BASE_URL}/api/auth/callback/oidc`,
    ],
    {},
  );
  idp = idpProcess;
  await untilAnswers(idpProcess, "the identity provider", `${IDP_URL}/.well-known/openid-configuration`, 30_000);

  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  // The workspace new accounts of the allowed domain join exists before the server names it.
  owner = newUser("owner", "5", STORE);
  server = spawnRepoProcess(["server.ts"], {
    ...STORE,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(PORT),
    PUBLIC_BASE_URL: "",
    LOG_LEVEL: "warn",
    WORKER_CONCURRENCY: "0",
    OIDC_ISSUER: IDP_URL,
    OIDC_CLIENT_ID: CLIENT.id,
    OIDC_CLIENT_SECRET: CLIENT.secret,
    OIDC_NAME: "Acme ID",
    OIDC_ALLOWED_DOMAINS: "jit.example",
    OIDC_JOIN_WORKSPACE: owner.workspaceId,
    OIDC_JOIN_ROLE: "creator",
  });
  await untilAnswers(server, "the single sign-on server", `${BASE_URL}/v1/public/models`, 150_000);
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await stopWorker(server);
  await stopWorker(idp);
});

/** At the provider's login form (any login is accepted there; the login is the email). */
async function signInAtProvider(page: Page, email: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${IDP_URL}/interaction/`));
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

async function memberships(email: string): Promise<{ workspace_id: string; role: string }[]> {
  const users = admin<{ data: { email: string; memberships: { workspace_id: string; role: string }[] }[] }>(
    ["user", "list"],
    STORE,
  );
  return users.data.find((u) => u.email === email)?.memberships ?? [];
}

test("an invited person joins through the identity provider: no password, the invited role", async ({ page }) => {
  const email = `invited-${tag}@corp.example`;
  const { link } = admin<{ link: string }>(
    ["invite", "create", "--workspace", owner.workspaceId, "--email", email, "--role", "viewer"],
    STORE,
  );
  await page.goto(new URL(link).pathname);
  await page.getByRole("button", { name: "Join with Acme ID instead" }).click();
  await signInAtProvider(page, email);
  await expect(page).toHaveURL(`${BASE_URL}/catalog`);
  await screenshot(page, "sso-invited-catalog");
  expect(await memberships(email)).toEqual([
    expect.objectContaining({ workspace_id: owner.workspaceId, role: "viewer" }),
  ]);
  // The link is used up.
  await page.goto(new URL(link).pathname);
  await expect(page.getByRole("alert").filter({ hasText: "can no longer be used" })).toBeVisible();
});

test("a verified email of an allowed domain gets an account in the configured workspace and role", async ({
  page,
  request,
}) => {
  const email = `new-${tag}@jit.example`;
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Continue with Acme ID" }).click();
  await signInAtProvider(page, email);
  await expect(page).toHaveURL(`${BASE_URL}/catalog`);
  expect(await memberships(email)).toEqual([
    expect.objectContaining({ workspace_id: owner.workspaceId, role: "creator" }),
  ]);
  // The audit log tells who joined, and how.
  const key = admin<{ key: string }>(["key", "create", "--workspace", owner.workspaceId, "--name", "sso"], STORE).key;
  const res = await request.get("/v1/audit-events?action=member.joined", { headers: { "x-api-key": key } });
  expect(res.status(), await res.text()).toBe(200);
  const events = (await res.json()) as { data: { actor: { type: string; email?: string }; changes: object }[] };
  expect(events.data).toContainEqual(
    expect.objectContaining({
      actor: expect.objectContaining({ type: "user", email }),
      changes: expect.objectContaining({ single_sign_on: true, allowed_domain: "jit.example" }),
    }),
  );
});

test("a stranger and an unverified email are refused with the reason; nothing is made", async ({ page }) => {
  for (const [email, reason] of [
    [`stranger-${tag}@elsewhere.example`, "no Atelier account or pending invitation"],
    [`unverified-${tag}@jit.example`, "has not verified your email address"],
  ] as const) {
    await page.context().clearCookies();
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "Continue with Acme ID" }).click();
    await signInAtProvider(page, email);
    await expect(page).toHaveURL(/\/sign-in\?error=sso_/);
    await expect(page.getByRole("alert").filter({ hasText: reason })).toBeVisible();
    expect(await memberships(email)).toEqual([]);
  }
  await screenshot(page, "sso-refused-unverified");
});

test("an existing password user signs in through the provider with the same email", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Continue with Acme ID" }).click();
  await signInAtProvider(page, owner.email);
  await expect(page).toHaveURL(`${BASE_URL}/catalog`);
  await page.goto("/members");
  await expect(page.getByRole("heading", { level: 1, name: "Members", exact: true })).toBeVisible();
});
