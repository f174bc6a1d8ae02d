// Studio sessions end on the server (sign-out, a password or role change, a removed user), and
// the studio's doors are throttled: sign-in per email with growing lockouts, actions per user.
import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { admin, callAction, newUser, screenshot, serverActions, signIn, type TestUser } from "./helpers";

/** A second browser holding a copy of the page's cookies, as someone who lifted them would. */
async function copyOfSession(browser: Browser, page: Page): Promise<BrowserContext> {
  const copy = await browser.newContext();
  await copy.addCookies(await page.context().cookies());
  return copy;
}

/** Where a signed-in page lands for this browser: the page itself, or the sign-in page once the session has ended. */
async function lands(context: BrowserContext, path: string): Promise<string> {
  const page = await context.newPage();
  await page.goto(path);
  const at = new URL(page.url()).pathname;
  await page.close();
  return at;
}

test("sign-out ends the session on the server: a copy of its cookie no longer signs anyone in", async ({
  page,
  browser,
}) => {
  const user = newUser("owner");
  await signIn(page, user);
  const copy = await copyOfSession(browser, page);
  expect(await lands(copy, "/runs")).toBe("/runs");
  await page.getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/sign-in/);
  expect(await lands(copy, "/runs")).toBe("/sign-in");
  // The session endpoint says so too.
  const session = await copy.request.get("/api/auth/session");
  expect(((await session.json()) as { user?: unknown }).user).toBeUndefined();
  await copy.close();
});

test("a password change, losing the ops flag, a role change and a removed user end every session of that user at once", async ({
  page,
  browser,
}) => {
  const user = newUser("ops");
  await signIn(page, user);
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await signIn(otherPage, user);
  expect(await lands(other, "/ops")).toBe("/ops");

  admin(["user", "password", "--email", user.email, "--password", "changed-pass-2"]);
  expect(await lands(page.context(), "/catalog")).toBe("/sign-in");
  expect(await lands(other, "/catalog")).toBe("/sign-in");

  // The role comes from the store, not from what the session was started with.
  const fresh = { ...user, password: "changed-pass-2" };
  await signIn(page, fresh);
  expect(await lands(page.context(), "/ops")).toBe("/ops");
  admin(["user", "ops", "--email", user.email, "--off"]);
  expect(await lands(page.context(), "/ops")).toBe("/sign-in");
  await signIn(page, fresh);
  const ops = await page.goto("/ops");
  expect(ops?.status()).toBe(404);
  await page.goto("/catalog");
  await expect(page.getByRole("navigation").getByRole("link", { name: "Ops" })).toHaveCount(0);
  await expect(page.getByRole("navigation").getByRole("link", { name: "Webhooks" })).toBeVisible();

  // A role in the workspace counts at once too: made a viewer (beside another owner), no Webhooks.
  const partner = newUser("owner");
  admin(["member", "add", "--workspace", user.workspaceId, "--email", partner.email, "--role", "owner"]);
  admin(["member", "role", "--workspace", user.workspaceId, "--email", user.email, "--role", "viewer"]);
  expect(await lands(page.context(), "/catalog")).toBe("/sign-in");
  await signIn(page, fresh);
  await expect(page.getByRole("navigation").getByRole("link", { name: "Runs" })).toBeVisible();
  await expect(page.getByRole("navigation").getByRole("link", { name: "Webhooks" })).toHaveCount(0);

  admin(["user", "remove", "--email", user.email]);
  expect(await lands(page.context(), "/catalog")).toBe("/sign-in");
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill("changed-pass-2");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText("That email and password do not match a user.");
  await other.close();
});

/** One password sign-in through next-auth's endpoint, as the sign-in form sends it. */
async function tryPassword(request: APIRequestContext, email: string, password: string) {
  const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  return request.post("/api/auth/callback/credentials", {
    form: { email, password, csrfToken, callbackUrl: "/catalog", json: "true" },
    maxRedirects: 0,
  });
}

test("sign-in tries are throttled per email, with a lockout that says when, the same for an unknown email", async ({
  page,
  request,
}) => {
  const user: TestUser = newUser("owner");
  const unknown = `nobody-${Date.now()}@example.com`;
  const refusals: Record<string, string> = {};
  for (const email of [user.email, unknown]) {
    for (let i = 0; i < 10; i++) {
      const answer = await tryPassword(request, email, "wrong-password");
      expect(answer.status(), `try ${i + 1}`).not.toBe(429);
      expect(((await answer.json()) as { url: string }).url).toContain("error=CredentialsSignin");
    }
    const locked = await tryPassword(request, email, user.password);
    expect(locked.status()).toBe(429);
    expect(locked.headers()["retry-after"]).toBe("60");
    const body = (await locked.json()) as {
      error: { type: string; code: string; message: string; request_id: string };
    };
    expect(body.error).toMatchObject({
      type: "rate_limit_error",
      code: "rate_limit_exceeded",
      message: "Too many sign-in attempts for this email. Try again in 60 s.",
    });
    expect(body.error.request_id).toMatch(/^req_/);
    refusals[email] = body.error.message;
  }
  // Nothing tells a user's email from an unknown one.
  expect(refusals[user.email]).toBe(refusals[unknown]);

  // Even the right password waits out the lockout, and the form says how long.
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toHaveText(
    /^Too many sign-in attempts for this email\. Try again in \d+ s\.$/,
  );
  await screenshot(page, "sign-in-locked");
  await expect(page).toHaveURL(/\/sign-in/);

  // Another email from the same address signs in.
  await signIn(page, newUser("owner"));
});

test("studio actions are budgeted per user: past it, a 429 with Retry-After; others are not held", async ({
  page,
  browser,
}) => {
  const user = newUser("owner");
  await signIn(page, user);
  // The top bar's balance read, the cheapest action there is.
  const balance = serverActions().get("app/_studio/actions/balance.ts#readBalanceAction");
  expect(balance).toBeDefined();
  const act = () => callAction(page, "/catalog", balance!, []);
  let over = null;
  for (let i = 0; i < 400 && !over; i++) {
    const answer = await act();
    if (answer.status() === 429) over = answer;
  }
  expect(over, "a refusal within 400 actions").not.toBeNull();
  expect(Number(over!.headers()["retry-after"])).toBeGreaterThan(0);
  expect(((await over!.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: "rate_limit_exceeded",
    message: expect.stringMatching(/^Too many studio actions: the limit is 300 a minute for each user\./),
  });
  const someoneElse = await browser.newContext();
  const theirPage = await someoneElse.newPage();
  await signIn(theirPage, newUser("owner"));
  const theirs = await callAction(theirPage, "/catalog", balance!, []);
  expect(theirs.status()).toBe(200);
  await someoneElse.close();
});

test("an odd callbackUrl never fails the sign-in page and never puts its words on it", async ({ page }) => {
  for (const callback of ["/catalog/%E0%A4%A/x", "/catalog/%25E0%25A4%25A/x"]) {
    const answer = await page.goto(`/sign-in?callbackUrl=${encodeURIComponent(callback)}`);
    expect(answer?.status(), callback).toBe(200);
    await expect(page.getByTestId("sign-in-next")).toHaveCount(0);
  }
  const raw = await page.goto("/sign-in?callbackUrl=/catalog/%25E0%25A4%25A/x");
  expect(raw?.status()).toBe(200);
  const words = "Your-account-is-suspended-call-555";
  await page.goto(`/sign-in?callbackUrl=${encodeURIComponent(`/catalog/${words}/x`)}`);
  await expect(page.getByTestId("sign-in-next")).toHaveCount(0);
  expect(await page.locator("body").innerText()).not.toContain("suspended-call");
  // A real entry is still named.
  await page.goto(`/sign-in?callbackUrl=${encodeURIComponent("/catalog/atelier/gradient")}`);
  await expect(page.getByTestId("sign-in-next")).toHaveText("atelier/gradient");
});
