// API keys in the studio: made with a form, shown once, working against the API, then revoked.
import { expect, test } from "@playwright/test";
import { newUser, screenshot, signIn } from "./helpers";

test("create a key, see it once, use it, revoke it", async ({ page, request }) => {
  await signIn(page, newUser("creator"));
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(page.getByText("No keys yet.")).toBeVisible();

  await page.getByRole("button", { name: "New key" }).click();
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Give the key a name.")).toBeVisible();
  await page.getByLabel("Name").fill("deploy bot");
  await page.getByLabel("Expires").selectOption("90d");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByTestId("new-key");
  await expect(shown).toHaveText(/^atl_[0-9A-Za-z]{40}$/);
  const key = (await shown.textContent())!;
  const row = page.getByTestId("key-row").filter({ hasText: "deploy bot" });
  await expect(row).toContainText(`atl_…${key.slice(-4)}`);
  await screenshot(page, "keys");

  expect((await request.get("/v1/credits", { headers: { "x-api-key": key } })).status()).toBe(200);
  page.once("dialog", (dialog) => void dialog.accept());
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("Revoked");
  expect((await request.get("/v1/credits", { headers: { "x-api-key": key } })).status()).toBe(401);
  // Reloading never shows the key again.
  await page.reload();
  await expect(page.getByTestId("new-key")).toHaveCount(0);
});
