// The catalog's cards in a real browser: a real example output of each built-in entry (made by
// the model itself in the background after start, served from /api/examples/…), one card per
// preset with a version picker, and the filters in the address (reload and Back keep them).
import { expect, test, type Locator, type Page } from "@playwright/test";
import { newUser, screenshot, signIn } from "./helpers";

const IMAGE_MODELS = [
  "atelier/artwork",
  "atelier/type-card",
  "atelier/qr-code",
  "atelier/gradient",
  "atelier/gradient-classic",
  "atelier/upscale",
  "atelier/image-edit",
  "atelier/waveform",
  "atelier/gradient-poster@2",
];

const card = (page: Page, id: string) => page.locator(`[data-testid="model-card"][data-model-id="${id}"]`);

async function naturalWidth(image: Locator): Promise<number> {
  return image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));
}

/** Every card's picture has loaded (the page refreshes itself while pictures are being made). */
async function waitForPictures(page: Page, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const image = card(page, id).getByTestId("model-card-image");
    await expect(image, `${id}'s card picture`).toBeVisible({ timeout: 120_000 });
    await image.scrollIntoViewIfNeeded();
    await expect
      .poll(() => naturalWidth(image), { message: `${id}'s picture loads`, timeout: 15_000 })
      .toBeGreaterThan(0);
  }
}

test("cards show a real example output of each built-in model once made, served as a cached WebP", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await signIn(page, newUser("owner", "5"));
  // No reload: while pictures are being made the page looks again on its own.
  await waitForPictures(page, IMAGE_MODELS);
  // Video shows its poster, audio a waveform; every built-in card ends with a picture.
  await waitForPictures(page, [
    "atelier/title-motion",
    "atelier/pan-zoom",
    "atelier/promo-video@2",
    "atelier/music",
    "atelier/speech",
  ]);
  await expect(page.getByTestId("model-card-icon")).toHaveCount(0);

  const src = await card(page, "atelier/artwork").getByTestId("model-card-image").getAttribute("src");
  expect(src).toMatch(/^\/api\/examples\/[0-9a-f]{32}\.webp$/);
  const res = await request.get(src!);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toBe("image/webp");
  expect(res.headers()["cache-control"]).toContain("immutable");
  // Only card pictures are served: no other key, nothing that looks like a path.
  expect((await request.get(`/api/examples/${"0".repeat(32)}.webp`)).status()).toBe(404);
  expect((await request.get("/api/examples/..%2F..%2Fstudio.sqlite")).status()).toBe(404);

  // Made once: a fresh page has them straight away.
  await page.reload();
  await expect(card(page, "atelier/qr-code").getByTestId("model-card-image")).toBeVisible();
  expect(await page.getByTestId("model-card-icon").count()).toBe(0);

  for (const [name, viewport] of [
    ["desktop", { width: 1440, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(viewport);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => window.scrollTo(0, 0));
      await waitForPictures(page, ["atelier/artwork"]);
      await screenshot(page, `catalog-cards-${name}-${scheme}`, { fullPage: name === "desktop" });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
});

test("the public catalog shows the same pictures to a visitor", async ({ page }) => {
  await page.goto("/explore");
  await waitForPictures(page, ["atelier/artwork", "atelier/gradient"]);
  await screenshot(page, "explore-cards", { fullPage: false });
});

test("a preset's versions are one card with a version picker that changes the link and the price", async ({ page }) => {
  await signIn(page, newUser("owner", "5"));
  const posters = page.locator('[data-testid="model-card"][data-model-id^="atelier/gradient-poster@"]');
  await expect(posters).toHaveCount(1);
  await expect(page.locator('[data-testid="model-card"][data-model-id^="atelier/promo-video@"]')).toHaveCount(1);
  const poster = posters.first();
  // The latest by default.
  await expect(poster).toHaveAttribute("data-model-id", "atelier/gradient-poster@2");
  await expect(poster).toContainText("Preset v2");
  await expect(poster.getByTestId("model-card-price")).toHaveText("$0.006 / run");
  await expect(poster.getByRole("link")).toHaveAttribute(
    "href",
    `/catalog/atelier/${encodeURIComponent("gradient-poster@2")}`,
  );
  const v1 = poster.getByRole("button", { name: /^Version 1/ });
  await expect(poster.getByRole("button", { name: "Version 2 (latest)" })).toHaveAttribute("aria-pressed", "true");

  await v1.click();
  await expect(v1).toHaveAttribute("aria-pressed", "true");
  await expect(poster).toHaveAttribute("data-model-id", "atelier/gradient-poster@1");
  await expect(poster).toContainText("Preset v1");
  await expect(poster.getByTestId("model-card-price")).toHaveText("$0.005 / run");
  await expect(poster.getByRole("link")).toHaveAttribute(
    "href",
    `/catalog/atelier/${encodeURIComponent("gradient-poster@1")}`,
  );
  // Picking a version stays on the catalog; the card's link opens the picked one.
  await expect(page).toHaveURL(/\/catalog$/);
  await poster.getByRole("link").click();
  await expect(page).toHaveURL(/\/catalog\/atelier\/gradient-poster%401$/);

  // Deprecated entries keep their badge.
  await page.goto("/catalog");
  await expect(card(page, "atelier/gradient-classic")).toContainText("Deprecated");
});

/**
 * Back or Forward once the page's own fetches have settled. A page that navigates itself (the
 * catalog looking again for pictures still being made) can abort the step: then, if the address
 * did not move, the step is taken again.
 */
async function historyStep(page: Page, step: "back" | "forward"): Promise<void> {
  await page.waitForLoadState("networkidle");
  const before = page.url();
  const go = () => (step === "back" ? page.goBack() : page.goForward());
  await go().catch(async (err: Error) => {
    if (!/ERR_ABORTED/.test(err.message)) throw err;
    if (page.url() === before) await go();
  });
  // A history step moves the address at once (the router's fetch comes after). One taken while the
  // router was still busy with the previous step was seen dropped under a full suite's load (the
  // address stayed put for 10 s): if it has not moved after a moment, take the step again.
  await page.waitForTimeout(1_000);
  if (page.url() === before) await go().catch(() => undefined);
}

test("filters and search live in the address: shareable, kept on reload, restored by Back", async ({ page }) => {
  await signIn(page, newUser("owner", "5"));
  const cards = page.getByTestId("model-card");
  // Sign-in lands on /catalog before its cards have rendered: count only once they are there.
  await expect(cards.first()).toBeVisible();
  const all = await cards.count();
  expect(all).toBeGreaterThan(1);
  const video = page.getByRole("button", { name: "Video", exact: true });
  const task = page.getByRole("combobox");
  const search = page.getByPlaceholder("Search models");

  await video.click();
  await expect(page).toHaveURL(/\/catalog\?modality=video$/);
  await task.selectOption("text-to-video");
  await expect(page).toHaveURL(/\/catalog\?modality=video&task=text-to-video$/);
  // Typing edits one history entry, not one per key.
  await search.pressSequentially("promo");
  await expect(page).toHaveURL(/\/catalog\?modality=video&task=text-to-video&q=promo$/);
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText("Promo Video");

  await page.reload();
  await expect(video).toHaveAttribute("aria-pressed", "true");
  await expect(task).toHaveValue("text-to-video");
  await expect(search).toHaveValue("promo");
  await expect(cards).toHaveCount(1);

  await historyStep(page, "back");
  await expect(page).toHaveURL(/\/catalog\?modality=video&task=text-to-video$/);
  await expect(search).toHaveValue("");
  await expect.poll(() => cards.count()).toBeGreaterThan(1);
  await historyStep(page, "back");
  await expect(page).toHaveURL(/\/catalog\?modality=video$/);
  await expect(task).toHaveValue("all");
  await expect(page.locator('[data-testid="model-card"]:not([data-modality="video"])')).toHaveCount(0);
  await historyStep(page, "back");
  await expect(page).toHaveURL(/\/catalog$/);
  await expect(page.getByRole("button", { name: "All", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(cards).toHaveCount(all);
  await historyStep(page, "forward");
  await expect(page).toHaveURL(/\/catalog\?modality=video$/);
  await expect(video).toHaveAttribute("aria-pressed", "true");
  await expect(page.locator('[data-testid="model-card"]:not([data-modality="video"])')).toHaveCount(0);
  // Let the history step's fetch settle before the next navigation starts: a navigation that
  // cuts the page's own fetch short (the Forward step's, or the catalog looking again for
  // pictures still being made) can end with the page navigating itself, which aborts ours.
  await page.waitForLoadState("networkidle");

  // A shared link opens with its filters (opened again if the page's own navigation aborted it).
  await page.goto("/catalog?modality=audio&q=speech").catch(async (err: Error) => {
    if (!/ERR_ABORTED/.test(err.message)) throw err;
    await page.goto("/catalog?modality=audio&q=speech");
  });
  await expect(page.getByRole("button", { name: "Audio", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(search).toHaveValue("speech");
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toHaveAttribute("data-model-id", "atelier/speech");
  await screenshot(page, "catalog-filtered", { fullPage: false });
});
