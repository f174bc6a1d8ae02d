// What signed-out visitors see, OAuth sign-in's wiring, pages that do not exist, and a run the
// workspace cannot pay for.
import { expect, test } from "@playwright/test";
import { admin, newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

test("signed-out visitors can browse the public catalog, and reach it from sign-in", async ({ page }) => {
  await page.goto("/sign-in");
  await page.getByRole("link", { name: "Browse the models and prices" }).click();
  await expect(page).toHaveURL(/\/explore$/);
  await expect(page.getByRole("heading", { name: "Models", exact: true })).toBeVisible();
  await expect(page.getByTestId("model-card").filter({ hasText: "atelier/artwork" })).toContainText("$0.003 / image");
  await page.getByPlaceholder("Search models").fill("speech");
  await expect(page.getByTestId("model-card")).toHaveCount(1);
  await screenshot(page, "explore");
  await page.getByRole("link", { name: "Sign in to run" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("GitHub sign-in goes to GitHub with our client and callback; an unknown account is told why", async ({ page }) => {
  let authorize: URL | null = null;
  await page.route("https://github.com/**", async (route) => {
    authorize = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/html", body: "<h1>GitHub</h1>" });
  });
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Continue with GitHub" }).click();
  await expect(page.getByRole("heading", { name: "GitHub" })).toBeVisible();
  expect(authorize).not.toBeNull();
  const url = authorize! as URL;
  expect(url.pathname).toBe("/login/oauth/authorize");
  expect(url.searchParams.get("client_id")).toBe("studio-test-client");
  expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/localhost:\d+\/api\/auth\/callback\/github$/);

  await page.goto("/sign-in?error=AccessDenied");
  await expect(page.getByRole("alert").filter({ hasText: "not an Atelier user" })).toBeVisible();
});

test("an unknown page and another workspace's run answer a 404 page", async ({ page, request }) => {
  const response = await request.get("/no-such-page");
  expect(response.status()).toBe(404);
  await signIn(page, newUser("owner"));
  const run = await page.goto("/runs/gen_000000000000000000000000");
  expect(run?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
  for (const path of ["/catalog/atelier/no-such-model", "/catalog/nobody/gradient@3"]) {
    const model = await page.goto(path);
    expect(model?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
  }
  const other = newUser("owner");
  const otherRun = await request.post("/v1/generations", {
    headers: { "x-api-key": newKey(other.workspaceId) },
    data: { model: "atelier/gradient", input: { prompt: "theirs" } },
  });
  expect(otherRun.status()).toBe(201);
  expect((await page.goto(`/runs/${((await otherRun.json()) as { id: string }).id}`))?.status()).toBe(404);
  await page.getByRole("link", { name: "Back to the catalog" }).click();
  await expect(page).toHaveURL(/\/catalog$/);
});

test("a run the workspace cannot pay for says how to add credit", async ({ page }) => {
  await signInCookie(page, newUser("owner", "0.001"));
  await page.goto("/catalog/atelier/artwork");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.003");
  await page.getByRole("button", { name: /^Run/ }).click();
  await expect(page.getByTestId("quote")).toContainText("needs $0.003");
  await expect(page.getByTestId("credit-help")).toContainText("An operator adds credit on the Ops page");
});

test("a person who missed the first start's demo sign-in gets in with a password the admin CLI sets", async ({
  page,
}) => {
  // The studio server started on an empty store, so it made the demo login and printed it once.
  const reset = admin<{ email: string; ops: boolean; password: string }>([
    "user",
    "password",
    "--email",
    "demo@atelier.local",
  ]);
  expect(reset).toMatchObject({ email: "demo@atelier.local", ops: true });
  expect(reset.password).toMatch(/^[A-Za-z0-9_-]{12}$/);
  await signIn(page, { email: "demo@atelier.local", password: reset.password });
  await expect(page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Ops" })).toBeVisible();
});
