// The first studio slice in a real browser: signing in and out, the frame with the workspace and
// its balance, and the catalog with its filters.
import { expect, test } from "@playwright/test";
import { newUser, screenshot, signIn, signInWithForm } from "./helpers";

test("signed-out visitors are sent to sign-in; a wrong password says so; a right one opens the catalog", async ({
  page,
}) => {
  const user = newUser("owner", "5");
  await page.goto("/catalog");
  await expect(page).toHaveURL(/\/sign-in$/);
  await expect(page.getByRole("heading", { name: "Sign in to Atelier" })).toBeVisible();
  await screenshot(page, "sign-in");

  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "do not match" })).toHaveText(
    "That email and password do not match a user.",
  );

  await signInWithForm(page, user);
  await expect(page.getByText(user.workspaceName)).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText(/\$5\.00 available/);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/catalog");
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("the catalog shows every entry with its price and badges, filtered by modality, task and search", async ({
  page,
}) => {
  await signIn(page, newUser("owner", "0.50"));
  const cards = page.getByTestId("model-card");
  await expect(cards.first()).toBeVisible();
  const all = await cards.count();
  expect(all).toBeGreaterThanOrEqual(14);
  await expect(page.getByTestId("balance")).toContainText("Low credit");
  const artwork = cards.filter({ hasText: "atelier/artwork" });
  await expect(artwork).toContainText("$0.003 / image");
  await expect(cards.filter({ hasText: "atelier/promo-video@2" })).toContainText("Preset v2");
  await expect(cards.filter({ hasText: "atelier/gradient-classic" })).toContainText("Deprecated");
  await expect(cards.filter({ hasText: "atelier/speech" })).toContainText("$0.02 / 1k characters");
  await screenshot(page, "catalog");

  await page.getByRole("button", { name: "Video", exact: true }).click();
  await expect(page.locator('[data-testid="model-card"]:not([data-modality="video"])')).toHaveCount(0);
  // pan-zoom, title-motion and promo-video (its two versions share one card).
  expect(await cards.count()).toBeGreaterThanOrEqual(3);
  await page.getByRole("button", { name: "All", exact: true }).click();
  await page.getByRole("combobox").selectOption("text-to-speech");
  await expect(cards).toHaveCount(1);
  await page.getByRole("combobox").selectOption("all");
  await page.getByPlaceholder("Search models").fill("qr");
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText("atelier/qr-code");
  await page.getByPlaceholder("Search models").fill("no such model anywhere");
  await expect(page.getByText("No model matches these filters.")).toBeVisible();
});

test("on a phone-sized screen the sidebar becomes a top bar and the catalog one column", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, newUser("owner"));
  await expect(page.getByRole("navigation", { name: "Studio" })).toBeVisible();
  await screenshot(page, "catalog-phone");
});
