// Share links in a real browser: made on a run page (expiry, prompt shown or not), opened in a
// fresh browser context without a session (outputs with players and downloads, the prompt only
// when chosen, nothing of the studio), refused with a plain 404 after one-click revoke, refused
// for a run that did not succeed, and listed for ops. Screenshots: share-*.png, light and dark,
// desktop and phone.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { newKey, newUser, screenshot, signInCookie, startRun, waitFinal } from "./helpers";
import { STUDIO_URL } from "./playwright.config";

/** Makes a link on the run page and answers its address (shown once). */
async function createLink(page: Page, options: { expires: string; showPrompt: boolean }): Promise<string> {
  const panel = page.getByTestId("share-panel");
  await panel.getByText(options.expires, { exact: true }).click();
  await expect(panel.getByRole("radio", { name: options.expires })).toBeChecked();
  const prompt = panel.getByRole("checkbox", { name: "Show the prompt and settings" });
  if (options.showPrompt) await prompt.check();
  else await prompt.uncheck();
  const url = panel.getByTestId("share-url");
  const before = (await url.count()) ? await url.inputValue() : null;
  const rows = await panel.getByTestId("share-link").count();
  await panel.getByRole("button", { name: "Create link" }).click();
  // The new link is listed first, and the box shows its address (not the one made before).
  await expect(panel.getByTestId("share-link")).toHaveCount(rows + 1);
  await expect(url).toHaveValue(/\/s\/[0-9A-Za-z]{24}\.[0-9A-Za-z_-]{22}$/);
  const value = await url.inputValue();
  expect(value).not.toBe(before);
  await expect(panel.getByTestId("share-link").first()).toContainText(`/s/…${value.slice(-4)}`);
  return value;
}

/** A browser context with no session at all, as the customer opening the link. */
async function stranger(browser: Browser, options: { colorScheme?: "light" | "dark"; phone?: boolean } = {}) {
  const context = await browser.newContext({
    baseURL: STUDIO_URL,
    colorScheme: options.colorScheme ?? "light",
    viewport: options.phone ? { width: 390, height: 844 } : { width: 1280, height: 800 },
  });
  expect(await context.cookies()).toEqual([]);
  return context;
}

async function imagesLoaded(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page
        .locator("img[data-testid=shared-image]")
        .evaluateAll(
          (imgs) =>
            imgs.length > 0 &&
            imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0),
        ),
    )
    .toBe(true);
}

test("share a run: a public page with the prompt only when chosen, revoked in one click to a plain 404", async ({
  page,
  request,
  browser,
}) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  const runId = await startRun(request, key, "atelier/gradient", {
    prompt: "ocean dusk for the customer",
    num_images: 2,
  });
  expect(await waitFinal(request, key, runId)).toBe("succeeded");

  await signInCookie(page, user);
  await page.goto(`/runs/${runId}`);
  const panel = page.getByTestId("share-panel");
  await expect(panel.getByRole("heading", { name: "Share" })).toBeVisible();
  await expect(panel).toContainText("No links yet.");

  const withPrompt = await createLink(page, { expires: "30 days", showPrompt: true });
  await expect(panel.getByTestId("share-new")).toContainText("shown only this once");
  const rows = panel.getByTestId("share-link");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`/s/…${withPrompt.slice(-4)}`);
  await expect(rows.first()).toContainText("Prompt shown");
  await expect(rows.first()).toContainText(user.email);
  await expect(rows.first()).toContainText("expires in 30 d");
  await expect(rows.first()).toContainText("not opened yet");
  await panel.scrollIntoViewIfNeeded();
  await screenshot(page, "share-run-page");

  // A stranger (no cookies) opens it: the model, the prompt, both images with downloads, nothing of the studio.
  const guest = await stranger(browser);
  const shared = await guest.newPage();
  const first = await shared.goto(withPrompt);
  expect(first!.status()).toBe(200);
  expect(new URL(shared.url()).pathname).toBe(new URL(withPrompt).pathname);
  await expect(shared.getByTestId("shared-model")).toHaveText("Gradient");
  await expect(shared.getByTestId("shared-prompt")).toContainText("ocean dusk for the customer");
  await expect(shared.getByTestId("shared-output")).toHaveCount(2);
  await imagesLoaded(shared);
  for (const src of await shared
    .locator("img[data-testid=shared-image]")
    .evaluateAll((imgs) => imgs.map((i) => i.getAttribute("src")!))) {
    expect(src).toMatch(/^\/v1\/blobs\//); // same-origin links
  }
  const download = shared.getByTestId("shared-download").first();
  expect(await download.getAttribute("href")).toMatch(/^\/v1\/blobs\/.*filename=gradient-1\.png/);
  const bytes = await shared.request.get((await download.getAttribute("href"))!);
  expect(bytes.status()).toBe(200);
  expect(bytes.headers()["content-disposition"] ?? "").toContain("gradient-1.png");
  const body = (await shared.locator("body").innerText()).toLowerCase();
  for (const studioWord of [
    "sign out",
    "api keys",
    "webhooks",
    "available",
    runId.toLowerCase(),
    user.workspaceName.toLowerCase(),
    user.email,
  ]) {
    expect(body).not.toContain(studioWord);
  }
  expect(await shared.locator("meta[name=robots]").getAttribute("content")).toContain("noindex");
  await screenshot(shared, "share-public");

  // The same page on a phone and in the dark.
  for (const [scheme, phone] of [
    ["dark", false],
    ["light", true],
    ["dark", true],
  ] as const) {
    const ctx = await stranger(browser, { colorScheme: scheme, phone });
    const p = await ctx.newPage();
    await p.goto(withPrompt);
    await imagesLoaded(p);
    if (phone) expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(p, `share-public-${phone ? "phone" : "desktop"}-${scheme}`);
    await ctx.close();
  }

  // A second link that shows only the outputs.
  const outputsOnly = await createLink(page, { expires: "Never", showPrompt: false });
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("Outputs only");
  await expect(rows.first()).toContainText("never expires");
  await shared.goto(outputsOnly);
  await expect(shared.getByTestId("shared-model")).toHaveText("Gradient");
  await expect(shared.getByTestId("shared-output")).toHaveCount(2);
  await expect(shared.getByTestId("shared-prompt")).toHaveCount(0);
  expect((await shared.locator("body").innerText()).toLowerCase()).not.toContain("ocean dusk");

  // The opens are counted on the run page (after a reload: the list is read on the server).
  await page.reload();
  const promptRow = rows.filter({ hasText: `…${withPrompt.slice(-4)}` });
  // Four opens: the stranger's, then dark, phone and dark phone (one count per page view, not per read).
  await expect(promptRow.getByTestId("share-opens")).toHaveText("opened 4 times");

  // Revoke in one click: the row says so, and the stranger gets the plain 404.
  await promptRow.getByRole("button", { name: /^Revoke link/ }).click();
  await expect(promptRow).toHaveAttribute("data-state", "revoked");
  await expect(promptRow).toContainText("Revoked");
  await expect(promptRow.getByRole("button", { name: /^Revoke link/ })).toHaveCount(0);
  const gone = await shared.goto(withPrompt);
  expect(gone!.status()).toBe(404);
  await expect(shared.getByTestId("shared-not-found")).toContainText("This link does not work");
  await expect(shared.getByTestId("shared-output")).toHaveCount(0);
  await screenshot(shared, "share-revoked");
  // The other link still works; a forged or mangled one is the same 404.
  expect((await shared.goto(outputsOnly))!.status()).toBe(200);
  for (const bad of [
    `${outputsOnly.slice(0, -1)}${outputsOnly.endsWith("A") ? "B" : "A"}`,
    "/s/nothing-here",
    "/s/%00",
    `/s/${"a".repeat(5000)}`,
  ]) {
    const res = await shared.goto(bad);
    expect(res!.status(), bad.slice(0, 80)).toBe(404);
  }
  // After a reload the run page still lists it as revoked.
  await page.reload();
  await expect(rows.filter({ hasText: `…${withPrompt.slice(-4)}` })).toHaveAttribute("data-state", "revoked");
  await guest.close();

  // Ops see who shared what.
  const ops = newUser("ops", "1");
  await page.context().clearCookies();
  await signInCookie(page, ops);
  await page.goto("/ops");
  const opsRows = page.getByTestId("ops-share").filter({ hasText: runId });
  await expect(opsRows).toHaveCount(2);
  await expect(opsRows.first()).toContainText(user.workspaceName);
  await expect(opsRows.first()).toContainText(user.email);
  await expect(opsRows.filter({ hasText: "Revoked" })).toHaveCount(1);
  await page.getByRole("heading", { name: "Share links" }).scrollIntoViewIfNeeded();
  await screenshot(page, "share-ops", { fullPage: false });
});

test("only a succeeded run can be shared; video and sound play on the public page", async ({
  page,
  request,
  browser,
}) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  // MODERATION_BLOCKLIST (playwright.config.ts) makes this one fail.
  const failed = await startRun(request, key, "atelier/gradient", { prompt: "zebracorn" });
  const video = await startRun(request, key, "atelier/title-motion", { prompt: "Spring launch", duration: 2 });
  const sound = await startRun(request, key, "atelier/music", { prompt: "calm rainy night piano", duration: 3 });
  expect(await waitFinal(request, key, failed)).toBe("failed");

  await signInCookie(page, user);
  await page.goto(`/runs/${failed}`);
  const panel = page.getByTestId("share-panel");
  await expect(panel.getByTestId("share-unavailable")).toContainText("Only a succeeded run can be shared");
  await expect(panel.getByRole("button", { name: "Create link" })).toHaveCount(0);

  expect(await waitFinal(request, key, video)).toBe("succeeded");
  expect(await waitFinal(request, key, sound)).toBe("succeeded");
  const guest = await stranger(browser);
  const shared = await guest.newPage();

  await page.goto(`/runs/${video}`);
  const videoLink = await createLink(page, { expires: "1 day", showPrompt: true });
  await expect(panel.getByTestId("share-link").first()).toContainText(/expires in (24 h|1 d)/);
  await shared.goto(videoLink);
  await expect(shared.getByTestId("shared-model")).toHaveText("Title Motion");
  await expect(shared.getByTestId("shared-prompt")).toContainText("Spring launch");
  await expect(shared.getByTestId("shared-prompt")).toContainText("Yes"); // show_title: true, in words
  const player = shared.getByTestId("shared-video");
  await expect(player).toHaveAttribute("poster", /^\/v1\/blobs\//);
  await expect(player).toHaveAttribute("src", /^\/v1\/blobs\//);
  await expect
    .poll(() => player.evaluate((v) => (v as HTMLVideoElement).readyState), { timeout: 20_000 })
    .toBeGreaterThanOrEqual(1);
  await screenshot(shared, "share-public-video");

  await page.goto(`/runs/${sound}`);
  const soundLink = await createLink(page, { expires: "7 days", showPrompt: false });
  await shared.goto(soundLink);
  const audio = shared.getByTestId("shared-audio");
  await expect(audio).toHaveAttribute("src", /^\/v1\/blobs\//);
  await expect
    .poll(() => audio.evaluate((a) => (a as HTMLAudioElement).duration), { timeout: 20_000 })
    .toBeGreaterThan(1);
  await expect(shared.getByTestId("shared-download")).toHaveAttribute("href", /filename=music-1\./);
  await screenshot(shared, "share-public-audio");
  await guest.close();
});

test("on a phone, the run page's share card fits", async ({ browser }) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  const context = await browser.newContext({ baseURL: STUDIO_URL, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const runId = await startRun(page.request, key, "atelier/gradient", { prompt: "phone share" });
  expect(await waitFinal(page.request, key, runId)).toBe("succeeded");
  await signInCookie(page, user);
  await page.goto(`/runs/${runId}`);
  await createLink(page, { expires: "7 days", showPrompt: true });
  await page.getByTestId("share-panel").scrollIntoViewIfNeeded();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await screenshot(page, "share-run-page-phone", { fullPage: false });
  await context.close();
  for (const scheme of ["dark"] as const) {
    const dark = await browser.newContext({ baseURL: STUDIO_URL, colorScheme: scheme });
    const p = await dark.newPage();
    await signInCookie(p, user);
    await p.goto(`/runs/${runId}`);
    await p.getByTestId("share-panel").scrollIntoViewIfNeeded();
    await screenshot(p, "share-run-page-dark");
    await dark.close();
  }
});
