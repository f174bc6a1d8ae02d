// The ops page: operators only; every workspace's runs and queue; adding credit to a workspace.
import { expect, test } from "@playwright/test";
import { apiRun, newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

test("a creator gets a 404 on /ops and sees no Ops link", async ({ page }) => {
  await signIn(page, newUser("owner"));
  await expect(page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Ops" })).toHaveCount(0);
  const response = await page.goto("/ops");
  expect(response?.status()).toBe(404);
  expect((await page.goto("/ops/runs/gen_anything"))?.status()).toBe(404);
});

test("an operator sees runs of other workspaces and adds credit to one", async ({ page, request }) => {
  const creator = newUser("owner", "2");
  const key = newKey(creator.workspaceId);
  const started = await request.post("/v1/generations", {
    headers: { "x-api-key": key },
    data: { model: "atelier/gradient", input: { prompt: "ops page check" } },
  });
  expect(started.status()).toBeLessThan(300);
  const run = (await started.json()) as { id: string };
  // Two runs that fail the same way: the studio server refuses "quokkaroo" (MODERATION_BLOCKLIST).
  const failing = await Promise.all(
    ["a quokkaroo", "two quokkaroo friends"].map(async (prompt) => {
      const res = await request.post("/v1/generations", {
        headers: { "x-api-key": key },
        data: { model: "atelier/gradient", input: { prompt } },
      });
      expect(res.status()).toBe(201);
      return ((await res.json()) as { id: string }).id;
    }),
  );
  for (const id of failing)
    await expect.poll(async () => (await apiRun(request, key, id)).status, { timeout: 30_000 }).toBe("failed");

  await signIn(page, newUser("ops"));
  await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Ops" }).click();
  await expect(page).toHaveURL(/\/ops$/);
  await expect(page.getByRole("heading", { name: "Ops", exact: true })).toBeVisible();
  // The unfiltered list is every workspace's latest 50: tests running beside this one (60 runs of
  // history at once) can push this run off it. Its workspace's view holds it whatever they do.
  await expect(page.getByTestId("ops-run").first()).toBeVisible();
  await page.goto(`/ops?workspace=${creator.workspaceId}`);
  const row = page.getByTestId("ops-run").filter({ hasText: run.id });
  await expect(row).toContainText(creator.workspaceName);
  await expect(row).toContainText("atelier/gradient");

  // Its ID opens a read-only page of that workspace's run: outputs, input, no action on it.
  await expect.poll(async () => (await apiRun(request, key, run.id)).status, { timeout: 30_000 }).toBe("succeeded");
  await row.getByRole("link", { name: run.id }).click();
  await expect(page).toHaveURL(new RegExp(`/ops/runs/${run.id}$`));
  await expect(page.getByRole("heading", { name: "Run of atelier/gradient" })).toBeVisible();
  await expect(page.getByTestId("ops-run-workspace")).toContainText(creator.workspaceName);
  await expect(page.getByTestId("ops-run-workspace")).toContainText("Read-only");
  await expect(page.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByTestId("run-prompt")).toContainText("ops page check");
  const image = page.getByTestId("output-image");
  await expect(image).toBeVisible();
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeGreaterThan(0);
  await expect(page.getByTestId("run-cost")).toHaveText(/^\$0\.\d+$/);
  for (const action of ["Run again", "Edit and run", "Cancel run", "Keep as file", "Share", "Create link"]) {
    await expect(page.getByRole("button", { name: action })).toHaveCount(0);
  }
  await screenshot(page, "ops-run");
  expect((await page.goto("/ops/runs/gen_doesnotexist"))?.status()).toBe(404);
  expect((await page.goto("/ops/runs/gen_%00x"))?.status()).toBe(404);
  await page.goto("/ops");
  await expect(page.getByTestId("ops-last-minute")).not.toHaveText("0");
  const reasons = page.getByRole("region", { name: "Failure reasons" });
  await expect(reasons.getByTestId("failure-reason").filter({ hasText: 'it contains "quokkaroo"' })).toBeVisible();

  const creditForm = page.getByRole("form", { name: "Add credit" });
  await creditForm.getByLabel("Workspace").selectOption(creator.workspaceId);
  await page.getByLabel("Amount (USD)").fill("nonsense");
  await page.getByRole("button", { name: "Add credit" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Enter an amount" })).toBeVisible();
  await page.getByLabel("Amount (USD)").fill("7.50");
  await page.getByRole("button", { name: "Add credit" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Added $7.50" })).toContainText(
    `to ${creator.workspaceName}`,
  );
  await screenshot(page, "ops");

  // Filters narrow the runs list and live in the URL.
  await page.getByLabel("Workspace filter").selectOption(creator.workspaceId);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`workspace=${creator.workspaceId}`));
  await expect(page.getByTestId("ops-run")).toHaveCount(3);
  await expect(page.getByTestId("ops-run").filter({ hasText: run.id })).toBeVisible();
  // Within this workspace: exactly its two refused runs, as one reason.
  const reason = reasons.getByTestId("failure-reason");
  await expect(reason).toHaveCount(1);
  await expect(reason).toContainText('it contains "quokkaroo"');
  await expect(reason.getByTestId("failure-count")).toHaveText("2");
  await screenshot(page, "ops-failures");
  await reasons.getByRole("link", { name: "show failed runs" }).click();
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.getByTestId("ops-run")).toHaveCount(2);
  await page.getByLabel("Status filter").selectOption("canceled");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByText("No runs match these filters.")).toBeVisible();
  await expect(reasons).toContainText("No run failed in the last 24 hours within these filters.");
  // A run of another workspace, the newest when the page is made again, so the cleared list shows one
  // whatever else the store holds (on its own, this test's store has no other).
  const other = newUser("owner", "1");
  const otherRun = await request.post("/v1/generations", {
    headers: { "x-api-key": newKey(other.workspaceId) },
    data: { model: "atelier/gradient", input: { prompt: "another workspace" } },
  });
  expect(otherRun.status(), await otherRun.text()).toBe(201);
  await page.getByRole("link", { name: "Clear" }).click();
  await expect(page).toHaveURL(/\/ops$/);
  // Every workspace again: rows of other workspaces, and the select says so.
  await expect(page.getByTestId("ops-run").filter({ hasNotText: creator.workspaceName }).first()).toBeVisible();
  await expect(page.getByLabel("Workspace filter")).toHaveValue("");

  const credits = (await (await request.get("/v1/credits", { headers: { "x-api-key": key } })).json()) as {
    available_usd: string;
  };
  expect(Number(credits.available_usd)).toBeGreaterThanOrEqual(9.49);
});

test("the root sends signed-out visitors to sign-in and signed-in ones to the catalog", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in$/);
  await signInCookie(page, newUser("owner"));
  await page.goto("/");
  await expect(page).toHaveURL(/\/catalog$/);
});
