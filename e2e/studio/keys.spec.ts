// API keys in the studio: made in a dialog, shown once, working against the API, then revoked
// behind a confirmation.
import { expect, test } from "@playwright/test";
import { newUser, screenshot, signIn } from "./helpers";

test("create a key, see it once, use it, revoke it", async ({ page, request }) => {
  await signIn(page, newUser("owner"));
  await page.getByRole("link", { name: "API keys" }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();
  await expect(page.getByText("No keys yet.")).toBeVisible();

  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog", { name: "Create key" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Name")).toBeFocused();
  await dialog.getByRole("button", { name: "Create key" }).click();
  await expect(dialog.getByText("Give the key a name.")).toBeVisible();
  // Escape closes the dialog without making anything.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Create key" }).click();

  await dialog.getByLabel("Name").fill("deploy bot");
  await dialog.getByText("90 days").click();
  await expect(dialog.getByRole("radio", { name: "90 days" })).toBeChecked();
  await dialog.getByRole("checkbox", { name: /generations:read/ }).uncheck();
  await dialog.getByRole("checkbox", { name: /generations:write/ }).uncheck();
  await dialog.getByRole("checkbox", { name: /workspace:read/ }).uncheck();
  await dialog.getByRole("button", { name: "Create key" }).click();
  await expect(dialog.getByText("Pick at least one scope.")).toBeVisible();
  await dialog.getByRole("checkbox", { name: /generations:read/ }).check();
  await dialog.getByRole("checkbox", { name: /workspace:read/ }).check();
  await screenshot(page, "keys-create");
  await dialog.getByRole("button", { name: "Create key" }).click();

  const shown = page.getByRole("dialog", { name: "Your new API key" });
  await expect(shown.getByTestId("new-key")).toHaveText(/^atl_[0-9A-Za-z]{40}$/);
  await expect(shown.getByRole("alert")).toContainText("shown only this once");
  const key = (await shown.getByTestId("new-key").textContent())!;
  await screenshot(page, "keys-new");
  await shown.getByRole("button", { name: "Done" }).click();
  await expect(shown).toBeHidden();
  await expect(page.getByTestId("new-key")).toHaveCount(0);

  const row = page.getByTestId("key-row").filter({ hasText: "deploy bot" });
  await expect(row).toContainText(`atl_…${key.slice(-4)}`);
  await expect(row).toContainText("generations:read");
  await expect(row).not.toContainText("generations:write");
  // Expires 90 days after it was made (the cells carry the exact times).
  const created = Date.parse((await row.getByTestId("key-created").getAttribute("title"))!);
  const expires = Date.parse((await row.getByTestId("key-expires").getAttribute("title"))!);
  expect(expires - created).toBe(90 * 86_400_000);
  await screenshot(page, "keys");

  // The key works, within its scopes: it can read, not start runs.
  expect((await request.get("/v1/credits", { headers: { "x-api-key": key } })).status()).toBe(200);
  const write = await request.post("/v1/generations", {
    headers: { "x-api-key": key },
    data: { model: "atelier/gradient", input: { prompt: "no" } },
  });
  expect(write.status()).toBe(403);

  // Revoke asks first; Cancel keeps the key.
  await row.getByRole("button", { name: "Revoke deploy bot" }).click();
  const confirm = page.getByRole("dialog", { name: "Revoke “deploy bot”?" });
  await expect(confirm).toContainText(`atl_…${key.slice(-4)}`);
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  expect((await request.get("/v1/credits", { headers: { "x-api-key": key } })).status()).toBe(200);

  await row.getByRole("button", { name: "Revoke deploy bot" }).click();
  await screenshot(page, "keys-revoke");
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toContainText("Revoked");
  await expect(row.getByRole("button", { name: "Revoke deploy bot" })).toHaveCount(0);
  expect((await request.get("/v1/credits", { headers: { "x-api-key": key } })).status()).toBe(401);
  // Reloading never shows the key again.
  await page.reload();
  await expect(page.getByTestId("new-key")).toHaveCount(0);
});
