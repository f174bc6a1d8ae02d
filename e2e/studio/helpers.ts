// Workspaces and users for the studio tests, made with the admin CLI on the studio server's store.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext, type APIResponse, type Page } from "@playwright/test";
import { ADMIN_CLI } from "../admin-cli";
import { REPO_ROOT, STUDIO_DATA_DIR } from "./playwright.config";

/** The studio server's store; a suite with a server of its own (bucket.spec.ts) names its own. */
const STUDIO_STORE: Record<string, string> = { DATA_DIR: STUDIO_DATA_DIR, DATABASE_URL: "" };

export function admin<T>(args: string[], store: Record<string, string> = STUDIO_STORE): T {
  const out = execFileSync(process.execPath, [ADMIN_CLI, "--json", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...store },
    encoding: "utf8",
  });
  return JSON.parse(out) as T;
}

export interface TestUser {
  email: string;
  password: string;
  workspaceId: string;
  workspaceName: string;
}

/** A new workspace with credit and a user in it, with `role` there ("ops": its owner, who also operates the install). */
export function newUser(
  role: "owner" | "admin" | "creator" | "viewer" | "ops" = "owner",
  credit = "5",
  store: Record<string, string> = STUDIO_STORE,
): TestUser {
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const workspace = admin<{ id: string; name: string }>(
    ["workspace", "create", "--name", `Studio ${tag}`, "--credit", credit],
    store,
  );
  const email = `${role}-${tag}@example.com`;
  admin(
    [
      "user",
      "create",
      ...["--email", email, "--password", "studio-pass-1", "--workspace", workspace.id],
      ...(role === "ops" ? ["--role", "owner", "--ops"] : ["--role", role]),
    ],
    store,
  );
  return { email, password: "studio-pass-1", workspaceId: workspace.id, workspaceName: workspace.name };
}

/** An API key of the workspace, for driving the API alongside the browser. */
export function newKey(workspaceId: string): string {
  return admin<{ key: string }>(["key", "create", "--workspace", workspaceId, "--name", "studio test"]).key;
}

/** Signs in with the form, as a person does, and lands on the catalog. */
export async function signInWithForm(page: Page, user: Pick<TestUser, "email" | "password">): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/catalog$/);
}

/**
 * Signs in with the request the sign-in form sends (components/sign-in-form.tsx), without drawing
 * the form: the session cookie lands in the page's browser context, and the page stays where it
 * is. For a test whose subject is not signing in (auth-catalog.spec.ts tests the form itself).
 */
export async function signInCookie(page: Page, user: Pick<TestUser, "email" | "password">): Promise<void> {
  const csrf = await page.request.get("/api/auth/csrf");
  expect(csrf.status(), await csrf.text()).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await page.request.post("/api/auth/callback/credentials", {
    form: { email: user.email, password: user.password, csrfToken, callbackUrl: "/catalog", json: "true" },
    maxRedirects: 0,
  });
  // next-auth answers a failure with a URL carrying ?error= (as the form reads it).
  const answer = await res.text();
  expect(answer, `sign-in of ${user.email}`).not.toContain("error=");
  expect((await page.context().cookies()).some((c) => c.name.endsWith("next-auth.session-token"))).toBe(true);
}

/** Signs in (signInCookie) and opens the catalog, where the form would have led. */
export async function signIn(page: Page, user: Pick<TestUser, "email" | "password">): Promise<void> {
  await signInCookie(page, user);
  await page.goto("/catalog");
  await expect(page).toHaveURL(/\/catalog$/);
}

/** The whole page by default; `{ fullPage: false }` for what the viewport shows (a phone after a scroll). */
/**
 * Holds the page's scripts so that what is server-rendered is there but nothing listens to it yet
 * (before hydration); call the returned function to let them load.
 */
export async function holdScripts(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/_next\/static\/chunks\/.+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await page.screenshot({
    path: path.join(REPO_ROOT, "test-results", "studio", `${name}.png`),
    fullPage: options.fullPage ?? true,
  });
}

/** A run as the API reports it, read with a key of its workspace. */
export async function apiRun(
  request: APIRequestContext,
  key: string,
  id: string,
): Promise<{ id: string; status: string; source: string; error: { message: string } | null; batch_id: string | null }> {
  const res = await request.get(`/v1/generations/${id}`, { headers: { "x-api-key": key } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as {
    id: string;
    status: string;
    source: string;
    error: { message: string } | null;
    batch_id: string | null;
  };
}

/** Starts a run over the API with a key of the workspace; answers its ID. */
export async function startRun(
  request: APIRequestContext,
  key: string,
  model: string,
  input: Record<string, unknown>,
): Promise<string> {
  const res = await request.post("/v1/generations", { headers: { "x-api-key": key }, data: { model, input } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Waits (at most a minute) until the run is final; answers its status. */
export async function waitFinal(request: APIRequestContext, key: string, id: string): Promise<string> {
  let status = "";
  await expect
    .poll(
      async () => {
        status = (
          (await (await request.get(`/v1/generations/${id}`, { headers: { "x-api-key": key } })).json()) as {
            status: string;
          }
        ).status;
        return ["succeeded", "failed", "canceled"].includes(status);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return status;
}

/** The server actions' IDs by file and name, from the build the server runs. */
export function serverActions(): Map<string, string> {
  const manifest = JSON.parse(
    readFileSync(path.join(REPO_ROOT, ".next", "server", "server-reference-manifest.json"), "utf8"),
  ) as {
    node: Record<string, { filename?: string; exportedName?: string }>;
  };
  const ids = new Map<string, string>();
  for (const [id, entry] of Object.entries(manifest.node)) {
    if (entry.filename && entry.exportedName)
      ids.set(`${entry.filename.replace(/^.*?app\//, "app/")}#${entry.exportedName}`, id);
  }
  return ids;
}

/** Calls a server action as the browser does (arguments as JSON), on the page that uses it. */
export async function callAction(page: Page, pagePath: string, id: string, args: unknown[]): Promise<APIResponse> {
  return page.request.post(pagePath, {
    headers: { "Next-Action": id, Accept: "text/x-component", "Content-Type": "text/plain;charset=UTF-8" },
    data: JSON.stringify(args),
    maxRedirects: 0,
  });
}
