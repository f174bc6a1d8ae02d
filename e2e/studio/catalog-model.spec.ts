// The model page in a real browser: filter the catalog, open a model, field errors from the live
// quote, the quote following the input, and runs of an image, a video and an image-to-image model.
import sharp from "sharp";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { makeWav } from "../api/runs-helpers";
import {
  admin,
  apiRun,
  holdScripts,
  newKey,
  newUser,
  screenshot,
  signIn,
  signInCookie,
  type TestUser,
} from "./helpers";

/** Presses Run, waits for the run to succeed, and checks the API sees it as a studio run. */
async function runAndWait(page: Page, request: APIRequestContext, user: TestUser): Promise<string> {
  const run = page.getByRole("button", { name: /^Run/ });
  await expect(run).toBeEnabled();
  await run.click();
  return expectStudioRun(page, request, user, "succeeded");
}

/** Waits for the result area's run to reach `status` and reads it back from the API: source "studio". */
async function expectStudioRun(
  page: Page,
  request: APIRequestContext,
  user: TestUser,
  status: string,
): Promise<string> {
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", status, { timeout: 45_000 });
  const id = (await view.getAttribute("data-run-id"))!;
  expect(id).toMatch(/^gen_/);
  expect(await apiRun(request, keyOf(user), id)).toMatchObject({ id, status, source: "studio" });
  return id;
}

const keys = new Map<string, string>();
function keyOf(user: TestUser): string {
  if (!keys.has(user.workspaceId)) keys.set(user.workspaceId, newKey(user.workspaceId));
  return keys.get(user.workspaceId)!;
}

test("filter the catalog, open atelier/artwork, see field errors and the quote follow the input, run it", async ({
  page,
  request,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const user = newUser("owner", "5");
  await signIn(page, user);
  await expect(page.getByTestId("balance")).toHaveText(/^\$5\.00 available/);
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
  await expect(quote).toContainText("Cost $0.003");
  await expect(page.getByTestId("quote-terms")).toHaveText("Reserved now, charged only if the run succeeds.");

  const count = page.getByLabel("Number of images", { exact: true });
  await count.fill("2");
  await expect(quote).toContainText("Cost $0.006");
  // A count past 4 is refused as it is typed (set to 4); under 1 it is an error in words.
  await count.fill("0");
  await expect(page.getByTestId("field-error-num_images")).toHaveText("Number of images must be 1 to 4.");
  await expect(page.getByRole("button", { name: /^Run/ })).toBeDisabled();
  await count.fill("1");
  await expect(quote).toContainText("Cost $0.003");
  // Before any run: the request this form sends, as JSON and as curl, on the clipboard.
  await expect(page.getByText("No run yet")).toBeVisible();
  const apiRequest = page.getByTestId("api-request");
  await apiRequest.getByRole("button", { name: "Copy as JSON" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('"model": "atelier/artwork"');
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as {
    model: string;
    input: Record<string, unknown>;
  };
  expect(copied).toMatchObject({ model: "atelier/artwork", input: { num_images: 1 } });
  await apiRequest.getByRole("button", { name: "Copy as curl" }).click();
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toMatch(/^curl -X POST http:\/\/localhost:\d+\/v1\/generations/);
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

  await runAndWait(page, request, user);
  const image = page.getByTestId("output-image").first();
  await expect(image).toBeVisible();
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeGreaterThan(0);
  await expect(page.getByTestId("run-cost")).toHaveText("$0.003");
  // The header follows the run: $5.00 less the charge, nothing left held.
  await expect(page.getByTestId("balance")).toHaveText(/^\$4\.997 available/);
  await expect(page.getByTestId("balance")).not.toContainText("held");
  await screenshot(page, "model-page");

  await page.getByRole("link", { name: "Open run →" }).click();
  await expect(page).toHaveURL(/\/runs\/gen_/);
  await expect(page.getByTestId("run-input")).toContainText("pastel mountains at sunrise");
  await expect(page.getByTestId("output-image").first()).toBeVisible();
  await page.getByRole("button", { name: "Keep as file" }).first().click();
  await expect(page.getByTestId("run-message")).toContainText(/Kept as file_/);
  await screenshot(page, "run-page");
});

test("a video model plays with a poster; Ctrl+Enter runs", async ({ page, request }) => {
  const user = newUser("owner", "5");
  await signInCookie(page, user);
  await page.goto("/models/atelier/title-motion"); // the alias redirects to /catalog/…
  await expect(page).toHaveURL(/\/catalog\/atelier\/title-motion$/);
  await page.getByLabel("Duration", { exact: true }).fill("2");
  await page.getByRole("radio", { name: "480p" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.016");
  await page.keyboard.press("Control+Enter");
  await expectStudioRun(page, request, user, "succeeded");
  const video = page.getByTestId("output-video");
  await expect(video).toBeVisible();
  await expect(video).toHaveAttribute("poster", /\/v1\/blobs\//);
  await expect(video).toHaveAttribute("controls", "");
});

test("a preset opens by its versioned ID; upload an image and upscale it", async ({ page, request }) => {
  const user = newUser("owner", "5");
  await signInCookie(page, user);
  await page.goto(`/catalog/atelier/${encodeURIComponent("gradient-poster@2")}`);
  await expect(page.getByText("Preset v2")).toBeVisible();
  await expect(page.getByTestId("quote")).toContainText(/Cost \$0\.006|Fill in the form/);

  await page.goto("/catalog/atelier/upscale");
  const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .png()
    .toBuffer();
  await page.getByLabel("Upload Image").setInputFiles({ name: "swatch.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("file-thumbnail")).toBeVisible();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.004");
  await runAndWait(page, request, user);
  const image = page.getByTestId("output-image").first();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(192);
  await screenshot(page, "model-upload");
});

test("an image chosen before the page has come alive is uploaded once it does", async ({ page }) => {
  await signIn(page, newUser("owner", "5"));
  // The form is there (server-rendered) but nothing listens to it yet.
  const release = await holdScripts(page);
  await page.goto("/catalog/atelier/upscale", { waitUntil: "commit" });
  const picker = page.getByLabel("Upload Image");
  await picker.waitFor({ state: "attached" });
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 20, g: 160, b: 90 } } })
    .png()
    .toBuffer();
  await picker.setInputFiles({ name: "early.png", mimeType: "image/png", buffer: png });
  release();
  await expect(page.getByTestId("file-thumbnail")).toBeVisible();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.004");
});

test("a prompt and a count typed before the page has come alive are kept, priced and sent", async ({ page }) => {
  const user = newUser("owner", "5");
  await signIn(page, user);
  const release = await holdScripts(page);
  await page.goto("/catalog/atelier/artwork", { waitUntil: "commit" });
  const prompt = page.getByLabel("Prompt", { exact: true });
  await prompt.waitFor({ state: "attached" });
  await prompt.fill("typed early: a red fox in snow");
  await page.getByLabel("Number of images", { exact: true }).fill("2");
  release();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.006");
  await expect(prompt).toHaveValue("typed early: a red fox in snow");
  // Taken once: nothing is recorded any more.
  expect(await page.evaluate(() => "__atelierEarlyInput" in window && window.__atelierEarlyInput !== undefined)).toBe(
    false,
  );
  await page.getByText("The same run over the API").click();
  await expect(page.getByTestId("api-request").locator("pre")).toContainText(
    '"prompt":"typed early: a red fox in snow"',
  );
  await expect(page.getByTestId("api-request").locator("pre")).toContainText('"num_images":2');
  // Typing after the page came alive is the form's own, as always.
  await prompt.fill("typed later");
  await expect(page.getByTestId("api-request").locator("pre")).toContainText('"prompt":"typed later"');
  // The next visit of the model opens with that last input, not the early one again.
  await page.goto("/catalog/atelier/artwork");
  await expect(prompt).toHaveValue("typed later");
});

test("a sound goes up as a direct upload and its waveform is drawn", async ({ page, request }) => {
  const user = newUser("owner", "5");
  await signInCookie(page, user);
  await page.goto("/catalog/atelier/waveform");
  await expect(page.getByRole("button", { name: "Upload a sound" })).toBeVisible();
  await page
    .getByLabel("Upload Sound")
    .setInputFiles({ name: "tone.wav", mimeType: "audio/wav", buffer: makeWav(1.5) });
  await expect(page.getByTestId("file-thumbnail")).toContainText("1.5 s");
  await expect(page.getByRole("combobox", { name: "Choose Sound from files" })).toContainText("tone.wav · 1.5 s");
  await expect(page.getByLabel("Listen to tone.wav")).toBeVisible();
  await page.getByLabel("Pick Colour").fill("#dc2626");
  await expect(page.getByLabel("Colour", { exact: true })).toHaveValue("#dc2626");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  await runAndWait(page, request, user);
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
  await page
    .getByLabel("Upload Sound")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await expect(page.getByRole("alert").filter({ hasText: "content_type" })).toBeVisible();
});

test("a deprecated model says when it stops and links its replacement", async ({ page }) => {
  await signInCookie(page, newUser("owner", "5"));
  await page.goto("/catalog/atelier/gradient-classic");
  const banner = page.getByTestId("deprecated-banner");
  await expect(banner).toContainText(/Deprecated — runs stop on \d{1,2} [A-Z][a-z]{2} \d{4}\./);
  await banner.getByRole("link", { name: "atelier/gradient" }).click();
  await expect(page).toHaveURL(/\/catalog\/atelier\/gradient$/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByTestId("deprecated-banner")).toHaveCount(0);
});

test("a failed run shows its error message, on the model page and the run page, and is not charged", async ({
  page,
  request,
}) => {
  const user = newUser("owner", "5");
  await signInCookie(page, user);
  await page.goto("/catalog/atelier/gradient");
  // The studio server refuses prompts with "zebracorn" (MODERATION_BLOCKLIST in playwright.config.ts).
  await page.getByLabel("Prompt", { exact: true }).fill("a zebracorn at dawn");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  await page.getByRole("button", { name: /^Run/ }).click();
  const id = await expectStudioRun(page, request, user, "failed");
  const view = page.getByTestId("run-view");
  await expect(view.getByRole("alert")).toContainText('it contains "zebracorn"');
  await expect(view.getByTestId("run-cost")).toHaveText("Not charged");
  expect((await apiRun(request, keyOf(user), id)).error?.message).toContain("zebracorn");

  await view.getByRole("link", { name: "Open run →" }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${id}$`));
  await expect(page.getByTestId("status-pill").first()).toHaveAttribute("data-status", "failed");
  await expect(page.getByRole("alert").filter({ hasText: "refused" })).toContainText("Nothing was charged");
  await expect(page.getByTestId("balance")).toHaveText(/^\$5\.00 available/);
  await screenshot(page, "run-failed");
});

test("the result area shows the signed-in user's newest run of the model, not a colleague's", async ({
  page,
  request,
}) => {
  const alice = newUser("owner", "5");
  const bob = { email: `bob-${alice.workspaceId.slice(-8).toLowerCase()}@example.com`, password: "studio-pass-2" };
  admin([
    "user",
    "create",
    "--email",
    bob.email,
    "--password",
    bob.password,
    "--workspace",
    alice.workspaceId,
    "--role",
    "creator",
  ]);

  await signInCookie(page, alice);
  await page.goto("/catalog/atelier/gradient");
  await page.getByLabel("Prompt", { exact: true }).fill("alice's sea");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  const mine = await runAndWait(page, request, alice);
  // A run of the same model over the API, after Alice's, is not hers either.
  const started = await request.post("/v1/generations", {
    headers: { "x-api-key": keyOf(alice) },
    data: { model: "atelier/gradient", input: { prompt: "from a key" } },
  });
  expect(started.status()).toBe(201);
  await page.reload();
  await expect(page.getByTestId("run-view")).toHaveAttribute("data-run-id", mine);

  await page.context().clearCookies();
  await signInCookie(page, bob);
  await page.goto("/catalog/atelier/gradient");
  await expect(page.getByText("No run yet")).toBeVisible();
  await expect(page.getByTestId("run-view")).toHaveCount(0);
});
