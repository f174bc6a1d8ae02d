// The Budgets page: an admin sets a daily cap (a bad amount is named under its field), sees what
// runs spent and what is left, a studio run past the cap is refused with the budget's own message
// (not a crash), the cap is cleared and runs start again; a creator cannot open the page.
import { expect, test } from "@playwright/test";
import { admin, newKey, newUser, screenshot, signIn, signInCookie, startRun } from "./helpers";

test("an admin caps the day, a run past it is refused with the budget's message, the cap is cleared", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const boss = newUser("admin");
  const key = newKey(boss.workspaceId);
  await signIn(page, boss);
  await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Budgets" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Budgets" })).toBeVisible();
  await expect(page.getByText("No budgets yet")).toBeVisible();

  // Bad amounts: the core's message under the field, nothing saved.
  const form = page.getByRole("form", { name: "Set a budget" });
  await form.getByLabel("Daily cap").fill("-1");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByTestId("budget-error-daily")).toHaveText(
    /^daily must be an amount in US dollars .* got "-1"\.$/,
  );
  await expect(form.getByLabel("Daily cap")).toHaveAttribute("aria-invalid", "true");
  await form.getByLabel("Daily cap").fill("");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByTestId("budget-error-daily")).toHaveText(
    "Give a daily cap, a monthly cap or both, in US dollars.",
  );
  await form.getByLabel("Monthly cap").fill("1.0000001");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(form.getByTestId("budget-error-monthly")).toContainText("at most 6 decimals");
  await expect(page.getByTestId("budget-row")).toHaveCount(0);

  // $0.003 a day for the whole workspace; one $0.002 run over the API leaves $0.001.
  await form.getByLabel("Applies to").selectOption("workspace");
  await form.getByLabel("Daily cap").fill("0.003");
  await form.getByLabel("Monthly cap").fill("");
  await form.getByRole("button", { name: "Save budget" }).click();
  const row = page.getByTestId("budget-row");
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("budget-daily")).toContainText("$0.003");
  await expect(row.getByTestId("budget-daily")).toContainText("$0.00 spent today · $0.003 left");
  await expect(row.getByTestId("budget-monthly")).toContainText("no cap");
  await startRun(request, key, "atelier/gradient", { prompt: "spent over the API" });
  await page.reload();
  await expect(row.getByTestId("budget-daily")).toContainText("$0.002 spent today · $0.001 left");
  const alerts = page.getByRole("status", { name: "Spending alerts" });
  await expect(alerts, "two thirds of a cap is no alert yet").toHaveCount(0);
  await screenshot(page, "budgets");

  // The model page: the quote is $0.002, more than is left; Run answers with the budget's words.
  await page.goto("/catalog/atelier/gradient");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  await page.getByRole("button", { name: /^Run/ }).click();
  await expect(page.getByTestId("quote")).toHaveText(
    "This needs $0.002 but the workspace's daily budget of $0.003 has $0.001 left today. Nothing was started; it resets at midnight UTC.",
  );
  await expect(page.getByRole("heading", { name: /went wrong/i })).toHaveCount(0);
  await screenshot(page, "budgets-refused-run", { fullPage: false });

  // A cap lowered to what is spent: every page warns the admin, never a creator of the workspace.
  await page.goto("/budgets");
  await form.getByLabel("Applies to").selectOption("workspace");
  await form.getByLabel("Daily cap").fill("0.002");
  await form.getByRole("button", { name: "Save budget" }).click();
  await expect(row.getByTestId("budget-daily")).toContainText("$0.002 spent today · $0.00 left");
  await expect(alerts).toHaveText(
    "The workspace's daily budget of $0.002 is spent: new runs under it are refused until it resets at midnight UTC.Review budgets",
  );
  await page.goto("/runs");
  await expect(page.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
  await expect(alerts).toBeVisible();
  await screenshot(page, "budgets-alert", { fullPage: false });
  const colleague = `creator-${Date.now().toString(36)}@example.com`;
  admin(["user", "create", "--email", colleague, "--password", "studio-pass-1", "--workspace", boss.workspaceId]);
  const theirContext = await browser.newContext();
  const colleaguePage = await theirContext.newPage();
  await signInCookie(colleaguePage, { email: colleague, password: "studio-pass-1" });
  await colleaguePage.goto("/runs");
  await expect(colleaguePage.getByRole("heading", { level: 1, name: "Runs" })).toBeVisible();
  await expect(colleaguePage.getByRole("status", { name: "Spending alerts" })).toHaveCount(0);
  await theirContext.close();

  // Cleared: the list is empty, the alert gone, and the same run starts.
  await page.goto("/budgets");
  await page.getByRole("button", { name: "Remove the budget of The workspace" }).click();
  await expect(page.getByText("No budgets yet")).toBeVisible();
  await expect(alerts).toHaveCount(0);
  await page.goto("/catalog/atelier/gradient");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  await page.getByRole("button", { name: /^Run/ }).click();
  await expect
    .poll(async () => {
      const res = await request.get("/v1/generations", { headers: { "x-api-key": key } });
      return ((await res.json()) as { data: { source: string }[] }).data.map((g) => g.source).sort();
    })
    .toEqual(["api", "studio"]);

  // A creator: no link, and the page says who may use it.
  const creator = newUser("creator");
  const context = await browser.newContext();
  const theirs = await context.newPage();
  await signIn(theirs, creator);
  await expect(theirs.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Budgets" })).toHaveCount(
    0,
  );
  await theirs.goto("/budgets");
  await expect(theirs.getByText("You are a creator in this workspace.")).toBeVisible();
  await expect(theirs.getByRole("form", { name: "Set a budget" })).toHaveCount(0);
  await context.close();
});

test.describe("on a phone, in the dark", () => {
  test.use({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });

  test("member and key budgets read at phone width; a cap of two is cleared one at a time", async ({ page }) => {
    const owner = newUser("owner");
    const key = admin<{ id: string }>(["key", "create", "--workspace", owner.workspaceId, "--name", "studio test"]);
    await signInCookie(page, owner);
    await page.goto("/budgets");
    const form = page.getByRole("form", { name: "Set a budget" });
    await form.getByLabel("Applies to").selectOption({ label: `${owner.email} (owner)` });
    await form.getByLabel("Daily cap").fill("2");
    await form.getByLabel("Monthly cap").fill("40");
    await form.getByRole("button", { name: "Save budget" }).click();
    const rows = page.getByTestId("budget-row");
    await expect(rows).toHaveCount(1);
    await form.getByLabel("Applies to").selectOption(`key:${key.id}`);
    await form.getByLabel("Monthly cap").fill("0");
    await form.getByRole("button", { name: "Save budget" }).click();
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText(owner.email);
    await expect(rows.first().getByTestId("budget-monthly")).toContainText("$0.00 spent this month · $40.00 left");
    await expect(rows.nth(1)).toContainText("Key “studio test”");
    await expect(rows.nth(1).getByTestId("budget-monthly")).toContainText("$0.00 left");
    // Nothing wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "budgets-phone-dark");

    await page.getByRole("button", { name: `Clear the daily cap of ${owner.email}` }).click();
    await expect(rows.first().getByTestId("budget-daily")).toContainText("no cap");
    await expect(rows.first().getByTestId("budget-monthly")).toContainText("$40.00");
    // Edit fills the form with the budget's caps.
    await page.getByRole("button", { name: `Edit the budget of ${owner.email}` }).click();
    await expect(form.getByLabel("Monthly cap")).toHaveValue("40.00");
    await expect(form.getByLabel("Applies to")).toHaveValue(`member:${owner.email}`);
  });
});
