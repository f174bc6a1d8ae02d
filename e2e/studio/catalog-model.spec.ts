// The model page in a real browser: filter the catalog, open a model, field errors from the live
// quote, the quote following the input, and runs of an image, a video and an image-to-image model.
import sharp from "sharp";
import { expect, test, type Page } from "@playwright/test";
import { makeWav } from "../api/runs-helpers";
import { newUser, screenshot, signIn } from "./helpers";

async function runAndWait(page: Page): Promise<void> {
  const run = page.getByRole("button", { name: /^Run/ });
  await expect(run).toBeEnabled();
  await run.click();
  await expect(page.getByTestId("status-pill").first()).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
}

test("filter the catalog, open atelier/artwork, see field errors and the quote follow the input, run it", async ({ page }) => {
  await signIn(page, newUser("creator", "5"));
  const cards = page.getByTestId("model-card");
  await expect(cards.first()).toBeVisible();
  const all = await cards.count();

  await page.getByRole("button", { name: "Video", exact: true }).click();
  await expect(page.locator('[data-testid="model-card"]:not([data-modality="video"])')).toHaveCount(0);
  expect(await cards.count()).toBeGreaterThan(0);
  await page.getByRole("button", { name: "All", exact: true }).click();
  await page.getByPlaceholder("Search models").fill("artwork");
  await expect(cards.filter({ hasText: "atelier/artwork" })).toHaveCount(1);
  expect(await cards.count()).toBeLessThan(all);

  await cards.filter({ hasText: "atelier/artwork" }).getByRole("link").click();
  await expect(page).toHaveURL(/\/catalog\/atelier\/artwork$/);
  const quote = page.getByTestId("quote");
  await expect(quote).toContainText("Cost $0.003 · hold $0.003");

  const count = page.getByLabel("Number of images", { exact: true });
  await count.fill("2");
  await expect(quote).toContainText("Cost $0.006 · hold $0.006");
  await count.fill("9");
  await expect(page.getByTestId("field-error-num_images")).toContainText(/4/);
  await expect(page.getByRole("button", { name: /^Run/ })).toBeDisabled();
  await count.fill("1");
  await expect(quote).toContainText("Cost $0.003");
  await page.getByText("The same run over the API").click();
  await expect(page.getByTestId("api-request").locator("pre")).toContainText('"model":"atelier/artwork"');
  await expect(page.getByTestId("api-request").locator("pre")).toContainText('"num_images":1');
  await expect(page.getByTestId("api-request").locator("pre")).toContainText("x-api-key: $ATELIER_API_KEY");

  await page.getByLabel("Prompt", { exact: true }).fill("");
  await expect(page.getByTestId("field-error-prompt")).toBeVisible();
  await expect(page.getByRole("button", { name: /^Run/ })).toBeDisabled();
  await page.getByLabel("Prompt", { exact: true }).fill("pastel mountains at sunrise");
  await page.getByLabel("Aspect ratio", { exact: true }).selectOption({ label: "16:9" });
  await page.getByRole("radio", { name: "512" }).click();
  await expect(quote).toContainText("Cost $0.003");

  await runAndWait(page);
  const image = page.getByTestId("output-image").first();
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  await expect(page.getByTestId("run-cost")).toHaveText("$0.003");
  await screenshot(page, "model-page");

  await page.getByRole("link", { name: "Open run →" }).click();
  await expect(page).toHaveURL(/\/runs\/gen_/);
  await expect(page.getByTestId("run-input")).toContainText("pastel mountains at sunrise");
  await expect(page.getByTestId("output-image").first()).toBeVisible();
  await page.getByRole("button", { name: "Keep as file" }).first().click();
  await expect(page.getByTestId("run-message")).toContainText(/Kept as file_/);
  await screenshot(page, "run-page");
});

test("a video model plays with a poster; Ctrl+Enter runs", async ({ page }) => {
  await signIn(page, newUser("creator", "5"));
  await page.goto("/models/atelier/title-motion"); // the alias redirects to /catalog/…
  await expect(page).toHaveURL(/\/catalog\/atelier\/title-motion$/);
  await page.getByLabel("Duration", { exact: true }).fill("2");
  await page.getByRole("radio", { name: "480p" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.016");
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("status-pill").first()).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  const video = page.getByTestId("output-video");
  await expect(video).toBeVisible();
  await expect(video).toHaveAttribute("poster", /\/v1\/blobs\//);
  await expect(video).toHaveAttribute("controls", "");
});

test("a preset opens by its versioned ID; upload an image and upscale it", async ({ page }) => {
  await signIn(page, newUser("creator", "5"));
  await page.goto(`/catalog/atelier/${encodeURIComponent("gradient-poster@2")}`);
  await expect(page.getByText("Preset v2")).toBeVisible();
  await expect(page.getByTestId("quote")).toContainText(/Cost \$0\.006|Fill in the form/);

  await page.goto("/catalog/atelier/upscale");
  const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 200, g: 80, b: 40 } } }).png().toBuffer();
  await page.getByLabel("Upload Image").setInputFiles({ name: "swatch.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("file-thumbnail")).toBeVisible();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.004");
  await runAndWait(page);
  const image = page.getByTestId("output-image").first();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(192);
  await screenshot(page, "model-upload");
});

test("a sound goes up as a direct upload and its waveform is drawn", async ({ page }) => {
  await signIn(page, newUser("creator", "5"));
  await page.goto("/catalog/atelier/waveform");
  await expect(page.getByRole("button", { name: "Upload a sound" })).toBeVisible();
  await page.getByLabel("Upload Sound").setInputFiles({ name: "tone.wav", mimeType: "audio/wav", buffer: makeWav(1.5) });
  await expect(page.getByTestId("file-thumbnail")).toContainText("1.5 s");
  await expect(page.getByRole("combobox", { name: "Choose Sound from files" })).toContainText("tone.wav · 1.5 s");
  await expect(page.getByLabel("Listen to tone.wav")).toBeVisible();
  await page.getByLabel("Pick Colour").fill("#dc2626");
  await expect(page.getByLabel("Colour", { exact: true })).toHaveValue("#dc2626");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  await runAndWait(page);
  const image = page.getByTestId("output-image").first();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1200);
  // The bars are drawn in the picked red.
  const red = await image.evaluate((img: HTMLImageElement) => {
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const g = canvas.getContext("2d")!;
    g.drawImage(img, 0, 0);
    const { data } = g.getImageData(0, img.naturalHeight / 2, img.naturalWidth, 1);
    let reds = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! > 180 && data[i + 1]! < 80) reds++;
    return reds;
  });
  expect(red).toBeGreaterThan(100);
  await screenshot(page, "model-direct-upload");

  // Something that is not a sound is refused by the upload, with the API's reason.
  await page.getByLabel("Upload Sound").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await expect(page.getByRole("alert").filter({ hasText: "content_type" })).toBeVisible();
});
