// Finding and reusing work (issue 15): history with the prompt, prompt search, a range of days,
// batch groups and sound waveforms; the run page's readable input, Run again, Edit and run, named
// downloads and "Kept as file_…"; same-origin media for a studio opened on 127.0.0.1; and the
// public catalog's way through sign-in back to the model a visitor chose.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { STUDIO_PORT } from "./playwright.config";
import { holdScripts, newKey, newUser, screenshot, signIn, signInCookie, type TestUser } from "./helpers";

async function start(
  request: APIRequestContext,
  key: string,
  model: string,
  input: Record<string, unknown>,
): Promise<string> {
  const res = await request.post("/v1/generations", {
    headers: { "x-api-key": key, prefer: "wait=30" },
    data: { model, input },
  });
  expect(res.status(), await res.text()).toBeLessThan(300);
  const run = (await res.json()) as { id: string; status: string };
  expect(run.status).toBe("succeeded");
  return run.id;
}

function base64UrlJson(value: string): unknown {
  return JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
}

const today = () => new Date().toISOString().slice(0, 10);
const dayAfter = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

async function looks(page: Page, name: string): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [device, viewport] of [
      ["desktop", { width: 1440, height: 900 }],
      ["phone", { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(400);
      await screenshot(page, `${name}-${device}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe("finding and reusing work", () => {
  let user: TestUser;
  let key: string;
  const ids: Record<string, string> = {};

  test.beforeAll(async ({ request }) => {
    user = newUser("owner", "5");
    key = newKey(user.workspaceId);
    ids.lighthouse = await start(request, key, "atelier/gradient", {
      prompt: "A LIGHTHOUSE at dusk, 100% teal",
      num_images: 1,
    });
    ids.forest = await start(request, key, "atelier/gradient", { prompt: "misty forest_path", num_images: 1 });
    ids.speech = await start(request, key, "atelier/speech", { text: "Hello from the history page." });
    const made = await request.post("/v1/batches", {
      headers: { "x-api-key": key },
      data: { requests: [0, 1, 2].map((i) => ({ model: "atelier/gradient", input: { prompt: `batch tile ${i}` } })) },
    });
    expect(made.status(), await made.text()).toBe(201);
    ids.batch = ((await made.json()) as { id: string }).id;
  });

  test("history: the prompt column, prompt search, a range of days, batch groups, sound waveforms", async ({
    page,
  }) => {
    await signInCookie(page, user);
    await page.goto("/runs");
    const table = page.getByTestId("runs-table");
    await expect(table.getByRole("columnheader", { name: "Prompt" })).toBeVisible();
    await expect(table.getByTestId("run-prompt").filter({ hasText: "A LIGHTHOUSE at dusk, 100% teal" })).toBeVisible();
    await expect(table.getByTestId("run-prompt").filter({ hasText: "Hello from the history page." })).toBeVisible();
    // The batch: one group with its size and a link to all of its runs.
    const group = table.locator(`[data-testid="batch-group"][data-batch="${ids.batch}"]`);
    await expect(group.getByTestId("batch-row")).toContainText("Batch of 3 runs");
    await expect(group.getByTestId("run-row")).toHaveCount(3);
    await expect(group.getByTestId("batch-link")).toHaveAttribute("href", `/runs?batch=${ids.batch}`);
    // A sound's thumbnail is its waveform, drawn from the audio (not "AUD").
    await expect(table.getByTestId("audio-waveform")).toHaveAttribute("data-state", "drawn", { timeout: 15_000 });
    await expect(table).not.toContainText("AUD");
    await looks(page, "history");

    // Search: case-insensitive, and % or _ are only themselves.
    const search = page.getByTestId("runs-search");
    await search.fill("lighthouse");
    await search.press("Enter");
    await expect(page).toHaveURL(/[?&]q=lighthouse/);
    const rows = table.getByTestId("run-row");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("A LIGHTHOUSE");
    await page.goto(`/runs?q=${encodeURIComponent("100%")}`);
    await expect(rows).toHaveCount(1);
    await page.goto(`/runs?q=${encodeURIComponent("t_p")}`);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("forest_path");
    await page.goto(`/runs?q=${encodeURIComponent("st%p")}`);
    await expect(page.getByText("No run matches these filters.")).toBeVisible();
    // A NUL is refused plainly, not a server error.
    await page.goto(`/runs?q=a%00b`);
    await expect(page.locator("p[role=alert]")).toContainText("NUL");

    // A range of days: today holds every run; from tomorrow, none; a reversed range is refused.
    // A day and a filter picked before the page has come alive count once it does.
    const release = await holdScripts(page);
    await page.goto("/runs", { waitUntil: "commit" });
    await page.getByTestId("runs-from").fill(today());
    await page.getByLabel("Per page").selectOption("10");
    release();
    await expect(page).toHaveURL(new RegExp(`[?&]from=${today()}`));
    await expect(page).toHaveURL(/[?&]limit=10\b/);
    await expect(table.getByTestId("run-row")).toHaveCount(6);
    await page.unrouteAll();
    await page.getByTestId("runs-from").fill(dayAfter(today(), -1));
    await expect(page).toHaveURL(new RegExp(`from=${dayAfter(today(), -1)}`));
    await expect(table.getByTestId("run-row")).toHaveCount(6);
    await page.goto(`/runs?from=${dayAfter(today(), 1)}`);
    await expect(page.getByText("No run matches these filters.")).toBeVisible();
    await page.goto(`/runs?from=${today()}&to=${dayAfter(today(), -1)}`);
    await expect(page.locator("p[role=alert]")).toContainText("must not be after");
    // Search and days page together with a cursor bound to them.
    await page.goto(`/runs?q=batch&from=${today()}&limit=10`);
    await expect(table.getByTestId("run-row")).toHaveCount(3);
  });

  test("run page: readable input, Run again, Edit and run, named downloads, Kept as file", async ({ page }) => {
    await signInCookie(page, user);
    await page.goto(`/runs/${ids.lighthouse}`);
    const input = page.getByTestId("run-input");
    await expect(input.getByTestId("run-prompt")).toContainText("A LIGHTHOUSE at dusk, 100% teal");
    await expect(input.getByTestId("run-fields")).toContainText(/Number of images|Num images/);
    // The JSON is behind a toggle.
    await expect(page.getByTestId("run-input-json")).toHaveCount(0);
    await page.getByTestId("run-input-toggle").click();
    await expect(page.getByTestId("run-input-json")).toContainText('"prompt": "A LIGHTHOUSE at dusk, 100% teal"');

    // Edit and run: the model page with the input as base64url JSON in ?input=.
    const edit = page.getByTestId("edit-and-run");
    const href = (await edit.getAttribute("href"))!;
    expect(href).toMatch(/^\/catalog\/atelier\/gradient\?input=[A-Za-z0-9_-]+$/);
    expect(base64UrlJson(new URL(href, "http://x").searchParams.get("input")!)).toMatchObject({
      prompt: "A LIGHTHOUSE at dusk, 100% teal",
      num_images: 1,
    });
    // Followed, it opens the model page's form with that input, not the model's example.
    const editPage = await page.context().newPage();
    await editPage.goto(href);
    await expect(editPage.getByLabel("Prompt", { exact: true })).toHaveValue("A LIGHTHOUSE at dusk, 100% teal");
    await editPage.close();

    // Downloads are named after the model and the run.
    const link = page.getByTestId("output-download").first();
    const downloadUrl = new URL((await link.getAttribute("href"))!, page.url());
    expect(downloadUrl.origin).toBe(new URL(page.url()).origin);
    expect(downloadUrl.searchParams.get("filename")).toBe(`gradient-${ids.lighthouse}-1.png`);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(`gradient-${ids.lighthouse}-1.png`);
    const answer = await page.request.get(downloadUrl.toString());
    expect(answer.headers()["content-disposition"]).toBe(`attachment; filename="gradient-${ids.lighthouse}-1.png"`);

    // Keep as file: the message links to the file on the Files page.
    await page.getByRole("button", { name: "Keep as file" }).first().click();
    const kept = page.getByTestId("kept-file");
    await expect(kept).toHaveText(/^file_/);
    await looks(page, "run-page");
    await kept.click();
    await expect(page).toHaveURL(/\/files$/);

    // A sound cannot be kept as a file, and the page says why.
    await page.goto(`/runs/${ids.speech}`);
    await expect(page.getByTestId("no-keep")).toContainText("Only images can be kept as files");
    await expect(page.getByRole("button", { name: "Keep as file" })).toHaveCount(0);
    await expect(page.getByTestId("output-download")).toHaveAttribute(
      "href",
      new RegExp(`filename=speech-${ids.speech}-1\\.(mp3|wav)`),
    );
    await expect(page.getByTestId("run-prompt")).toContainText("Hello from the history page.");

    // Run again: the same input, started at once, and the new run's page.
    await page.goto(`/runs/${ids.forest}`);
    await page.getByTestId("run-again").click();
    await expect(page).not.toHaveURL(new RegExp(`/runs/${ids.forest}$`));
    await expect(page).toHaveURL(/\/runs\/gen_[0-9A-Za-z]+$/);
    await expect(page.getByTestId("run-prompt")).toContainText("misty forest_path");
    await expect(page.getByTestId("run-view").getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", {
      timeout: 30_000,
    });
    await expect(page.getByTestId("run-source")).toHaveText("studio");
  });

  test("same-origin media: the studio opened on 127.0.0.1 loads its previews, players and downloads", async ({
    page,
    context,
    request,
  }) => {
    await signIn(page, user);
    // The session of localhost, for 127.0.0.1 (a host-only cookie: the same server, another name).
    const cookies = await context.cookies();
    await context.addCookies(cookies.map((c) => ({ ...c, domain: "127.0.0.1" })));
    const origin = `http://127.0.0.1:${STUDIO_PORT}`;
    await page.goto(`${origin}/runs/${ids.lighthouse}`);
    const image = page.getByTestId("output-image").first();
    await expect(image).toHaveAttribute("src", /^\/v1\/blobs\//);
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    await expect(page.getByTestId("output-download").first()).toHaveAttribute("href", /^\/v1\/blobs\/.*filename=/);
    await page.goto(`${origin}/runs/${ids.speech}`);
    const audio = page.getByTestId("output-audio");
    await expect(audio).toHaveAttribute("src", /^\/v1\/blobs\//);
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => (a.error ? -1 : a.readyState))).toBeGreaterThan(0);
    await page.goto(`${origin}/runs`);
    await expect(page.getByTestId("runs-table").getByTestId("run-thumbnail").first()).toHaveAttribute(
      "src",
      /^\/v1\/blobs\//,
    );
    await expect(page.getByTestId("runs-table").getByTestId("audio-waveform")).toHaveAttribute("data-state", "drawn", {
      timeout: 15_000,
    });
    // The API's answers keep absolute links on PUBLIC_BASE_URL (here the default, localhost).
    const api = (await (
      await request.get(`${origin}/v1/generations/${ids.lighthouse}`, { headers: { "x-api-key": key } })
    ).json()) as { output: { url: string; download_url?: string }[] };
    expect(api.output[0]!.url).toMatch(new RegExp(`^http://localhost:${STUDIO_PORT}/v1/blobs/`));
    expect(api.output[0]!.download_url).toBeUndefined();
  });
});

test("the public catalog sends a visitor who signs in back to the model they clicked", async ({ page }) => {
  const visitor = newUser("owner", "1");
  await page.goto("/explore");
  await page.locator('a[href="/catalog/atelier/gradient"]').first().click();
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fcatalog%2Fatelier%2Fgradient$/);
  await expect(page.getByTestId("sign-in-next")).toHaveText("atelier/gradient");
  await screenshot(page, "explore-sign-in");
  await page.getByLabel("Email").fill(visitor.email);
  await page.getByLabel("Password").fill(visitor.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/catalog\/atelier\/gradient$/);

  // Only same-origin paths: another site, or a protocol-relative one, lands on the catalog.
  for (const callback of ["https://evil.example/", "//evil.example/x"]) {
    await page.context().clearCookies();
    await page.goto(`/sign-in?callbackUrl=${encodeURIComponent(callback)}`);
    await page.getByLabel("Email").fill(visitor.email);
    await page.getByLabel("Password").fill(visitor.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/catalog$/);
  }
  // Signed in already, the sign-in page forwards to the way back.
  await page.goto(`/sign-in?callbackUrl=${encodeURIComponent("/catalog/atelier/speech")}`);
  await expect(page).toHaveURL(/\/catalog\/atelier\/speech$/);
});
