// The model page for a creator: it opens with a working example, offers the others, says what is
// wrong in words next to the field, names enum options readably, shows your recent runs, remembers
// your last input, and has a presentation mode. Screenshots at desktop and phone size, light and dark.
import { expect, test, type Page } from "@playwright/test";
import { newUser, screenshot, signInCookie } from "./helpers";

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

async function runAndSucceed(page: Page): Promise<string> {
  const run = page.getByRole("button", { name: /^Run/ });
  await expect(run).toBeEnabled();
  const view = page.getByTestId("run-view");
  const before = (await view.count()) ? await view.getAttribute("data-run-id") : null;
  await run.click();
  if (before) await expect(view).not.toHaveAttribute("data-run-id", before);
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  return (await view.getAttribute("data-run-id"))!;
}

test.use({ viewport: DESKTOP });

test("music opens with a prompt, a price and Run enabled; examples fill the form; the last input comes back", async ({
  page,
}) => {
  await signInCookie(page, newUser("owner", "5"));
  await page.goto("/catalog/atelier/music");
  const prompt = page.getByLabel("Prompt", { exact: true });
  await expect(prompt).toHaveValue("calm rainy night piano");
  const quote = page.getByTestId("quote");
  // 15 s at $0.001 a second, said as what is reserved and when it is charged.
  await expect(quote).toContainText("Cost $0.015");
  await expect(page.getByTestId("quote-terms")).toHaveText("Reserved now, charged only if the run succeeds.");
  await expect(quote).not.toContainText("hold");
  await expect(page.getByRole("button", { name: /^Run/ })).toBeEnabled();

  const examples = page.getByTestId("examples");
  await expect(examples.getByRole("heading", { name: "Try an example" })).toBeVisible();
  await expect(examples.getByRole("button", { name: "Calm rainy night" })).toHaveAttribute("aria-pressed", "true");
  await examples.getByRole("button", { name: "Forest morning" }).click();
  await expect(prompt).toHaveValue("dreamy forest morning with birds and bells");
  await expect(page.getByLabel("Duration", { exact: true })).toHaveValue("30");
  await expect(quote).toContainText("Cost $0.03");
  await expect(examples.getByRole("button", { name: "Forest morning" })).toHaveAttribute("aria-pressed", "true");
  await expect(examples.getByRole("button", { name: "Calm rainy night" })).toHaveAttribute("aria-pressed", "false");
  await screenshot(page, "creators-music-example");

  // Your own words, remembered after a reload, with a way back to the example.
  await prompt.fill("slow harbour bells at dawn");
  await expect(examples.getByRole("button", { name: "Forest morning" })).toHaveAttribute("aria-pressed", "false");
  await expect(quote).toContainText("Cost $0.03");
  await page.reload();
  await expect(prompt).toHaveValue("slow harbour bells at dawn");
  await expect(page.getByLabel("Duration", { exact: true })).toHaveValue("30");
  const restored = page.getByTestId("restored-note");
  await expect(restored).toContainText("Your last input is back.");
  await restored.getByRole("button", { name: "Back to the example" }).click();
  await expect(prompt).toHaveValue("calm rainy night piano");
  await expect(page.getByLabel("Duration", { exact: true })).toHaveValue("15");
  await expect(quote).toContainText("Cost $0.015");
});

test("an optional field with a default hint opens empty; a file model asks for the file in words", async ({ page }) => {
  await signInCookie(page, newUser("owner", "5"));
  await page.goto(`/catalog/atelier/${encodeURIComponent("promo-video@2")}`);
  const music = page.getByLabel("Music", { exact: true });
  await expect(music).toHaveValue("");
  await expect(music).toHaveAttribute("placeholder", "e.g. upbeat bright synth");
  await expect(page.getByLabel("Title", { exact: true })).toHaveValue("Spring launch");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.072");

  await page.goto("/catalog/atelier/upscale");
  await expect(page.getByTestId("examples-file-hint")).toContainText("add an image");
  await expect(page.getByTestId("quote")).toHaveText("Add an image to see the price.");
  await page.getByTestId("examples").getByRole("button", { name: "Four times, as JPEG" }).click();
  await expect(page.getByRole("radio", { name: "4×" })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByRole("radio", { name: "JPEG" })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("field-error-image")).toHaveCount(0);
});

test("a validation message names the field in words, once, next to the field; bounded numbers refuse out-of-range values", async ({
  page,
}) => {
  await signInCookie(page, newUser("owner", "5"));
  await page.goto("/catalog/atelier/artwork");
  const quote = page.getByTestId("quote");
  await expect(quote).toContainText("Cost $0.003");
  const count = page.getByLabel("Number of images", { exact: true });

  // Past the maximum: set to the maximum at once, and said so.
  await count.fill("9");
  await expect(count).toHaveValue("4");
  await expect(page.getByTestId("field-note-num_images")).toHaveText("Number of images is 1 to 4, so it was set to 4.");
  await expect(quote).toContainText("Cost $0.012");

  // Under the minimum while typing: the message in words under the field, not repeated below.
  await count.fill("0");
  const message = page.getByTestId("field-error-num_images");
  await expect(message).toHaveText("Number of images must be 1 to 4.");
  await expect(page.getByText("Number of images must be 1 to 4.")).toHaveCount(1);
  await expect(quote).toContainText("Check Number of images to see the price.");
  await expect(quote).not.toContainText("input.num_images");
  await expect(page.getByRole("button", { name: /^Run/ })).toBeDisabled();
  // Next to its field, and not hidden under the sticky footer.
  const field = page.locator('[data-field="num_images"]');
  await expect(field.getByTestId("field-error-num_images")).toBeVisible();
  const footer = page.getByRole("button", { name: /^Run/ }).locator("..");
  const [box, cover] = await Promise.all([message.boundingBox(), footer.boundingBox()]);
  expect(box!.y + box!.height).toBeLessThanOrEqual(cover!.y);
  await screenshot(page, "creators-field-error", { fullPage: false });
  // Leaving the box puts it back in range.
  await count.blur();
  await expect(count).toHaveValue("1");
  await expect(message).toHaveCount(0);
  await expect(quote).toContainText("Cost $0.003");

  await page.getByLabel("Prompt", { exact: true }).fill("");
  await expect(page.getByTestId("field-error-prompt")).toHaveText("Prompt is required.");
});

test("enum options have readable labels: the speech voices and a camera move", async ({ page }) => {
  await signInCookie(page, newUser("owner", "5"));
  await page.goto("/catalog/atelier/speech");
  const voice = page.getByRole("combobox", { name: "Voice" });
  await expect(voice.locator("option:checked")).toHaveText("English (US), male");
  await expect(voice.locator("option")).toContainText([
    "English (US), male",
    "English (US), female",
    "English (Scotland), male",
  ]);
  await expect(page.locator('[data-field="voice"]')).not.toContainText("en-us-female is");
  await voice.selectOption({ label: "English (Scotland), male" });
  await expect(page.getByTestId("quote")).toContainText("Cost $");
  await expect(page.getByRole("radio", { name: "MP3" })).toHaveAttribute("aria-checked", "true");

  await page.goto("/catalog/atelier/pan-zoom");
  await expect(page.getByRole("combobox", { name: "Motion" }).locator("option:checked")).toHaveText("Zoom in");
});

test("recent runs of the model as a gallery; a tile shows its run; presentation mode", async ({ page }) => {
  await signInCookie(page, newUser("owner", "5"));
  await page.goto("/catalog/atelier/gradient");
  await expect(page.getByTestId("recent-runs")).toHaveCount(0);
  const first = await runAndSucceed(page);
  await page.getByTestId("examples").getByRole("button", { name: "Forest mist, wide" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  const second = await runAndSucceed(page);
  expect(second).not.toBe(first);

  await page.reload();
  const tiles = page.getByTestId("recent-run");
  await expect(tiles).toHaveCount(2);
  await expect(tiles.first()).toHaveAttribute("data-run-id", second);
  await expect(tiles.first()).toHaveAttribute("aria-pressed", "true");
  await expect(tiles.first().locator("img")).toBeVisible();
  await expect(page.getByTestId("run-view")).toHaveAttribute("data-run-id", second);
  await tiles.nth(1).click();
  await expect(page.getByTestId("run-view")).toHaveAttribute("data-run-id", first);
  await expect(tiles.nth(1)).toHaveAttribute("aria-pressed", "true");
  // Its input back in the form.
  await page.getByRole("button", { name: "Use this input" }).click();
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue("ocean dusk over a quiet harbour");
  await screenshot(page, "creators-gallery");

  await page.getByRole("button", { name: "Present" }).click();
  const presentation = page.getByTestId("presentation");
  await expect(presentation).toBeVisible();
  await expect(page).toHaveURL(/[?&]present=1/);
  await expect(presentation.getByRole("heading", { name: "Gradient" })).toBeVisible();
  await expect(presentation.getByLabel("Prompt", { exact: true })).toBeVisible();
  await expect(presentation.getByTestId("run-view")).toBeVisible();
  // No chrome: the sidebar, the examples, the API request and the gallery are out of sight.
  expect(await presentation.boundingBox()).toEqual({ x: 0, y: 0, width: DESKTOP.width, height: DESKTOP.height });
  const onTop = await page.evaluate(
    () => document.elementFromPoint(20, 20)?.closest('[data-testid="presentation"]') !== null,
  );
  expect(onTop).toBe(true);
  await expect(page.getByTestId("examples")).toHaveCount(0);
  await expect(page.getByTestId("api-request")).toHaveCount(0);
  await expect(page.getByTestId("recent-runs")).toHaveCount(0);
  await screenshot(page, "creators-present", { fullPage: false });
  await page.keyboard.press("Escape");
  await expect(presentation).toHaveCount(0);
  await expect(page).not.toHaveURL(/present=1/);
  await expect(page.getByTestId("recent-runs")).toBeVisible();

  // "Edit and run" from a run page: ?from=<run> opens the form with that run's input.
  await page.goto(`/catalog/atelier/gradient?from=${first}`);
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue("ocean dusk over a quiet harbour");
  await expect(page.getByTestId("run-input-note")).toBeVisible();
  await page.goto(`/catalog/atelier/artwork?from=${first}`); // a run of another model is not an input here
  await expect(page.getByLabel("Prompt", { exact: true })).toHaveValue("neon night grid of circles and stars");

  // Opened by its link, it starts presenting.
  await page.goto("/catalog/atelier/gradient?present=1");
  await expect(page.getByTestId("presentation")).toBeVisible();
});

for (const colorScheme of ["light", "dark"] as const) {
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    test.describe(`screenshots: ${size}, ${colorScheme}`, () => {
      test.use({ viewport, colorScheme });

      test(`music, speech, an error and the presentation (${size}, ${colorScheme})`, async ({ page }) => {
        await signInCookie(page, newUser("owner", "5"));
        await page.goto("/catalog/atelier/music");
        await expect(page.getByTestId("quote")).toContainText("Cost $0.015");
        await runAndSucceed(page);
        await expect(page.getByTestId("recent-run")).toHaveCount(1);
        await page.evaluate(() => window.scrollTo(0, 0));
        await screenshot(page, `creators-music-${size}-${colorScheme}`);
        await page.goto("/catalog/atelier/speech");
        await expect(page.getByTestId("quote")).toContainText("Cost $");
        await screenshot(page, `creators-speech-${size}-${colorScheme}`);
        await page.goto("/catalog/atelier/artwork");
        await expect(page.getByTestId("quote")).toContainText("Cost $0.003");
        await page.getByLabel("Number of images", { exact: true }).fill("0");
        await expect(page.getByTestId("field-error-num_images")).toBeVisible();
        await screenshot(page, `creators-error-${size}-${colorScheme}`, { fullPage: false });
        await page.goto("/catalog/atelier/music?present=1");
        await expect(page.getByTestId("presentation")).toBeVisible();
        await expect(page.getByTestId("run-view")).toBeVisible();
        await screenshot(page, `creators-present-${size}-${colorScheme}`, { fullPage: false });
      });
    });
  }
}
