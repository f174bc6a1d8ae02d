// How the studio looks beyond the light, wide default: every page under a dark OS setting
// (prefers-color-scheme), a phone-sized screen, the loading skeletons, and the error state with
// its reference. Screenshots go to test-results/studio/ (dark-*, phone-*, skeleton-*, error-*);
// the contrast checks catch text that a palette change left unreadable.
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { newKey, newUser, screenshot, signIn, signInCookie, startRun, waitFinal } from "./helpers";
import { STUDIO_DATA_DIR } from "./playwright.config";

/**
 * WCAG contrast ratio of an element's text against what is painted behind it: the backgrounds of
 * the element and its ancestors composited on a 1×1 canvas, then the text colour on top.
 */
function contrastOf(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const g = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
    const paint = (color: string) => {
      g.fillStyle = color;
      g.fillRect(0, 0, 1, 1);
      const [r, gr, b] = g.getImageData(0, 0, 1, 1).data;
      return [r!, gr!, b!].map((c) => {
        const s = c / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
    };
    const luminance = ([r, gr, b]: number[]) => 0.2126 * r! + 0.7152 * gr! + 0.0722 * b!;
    const chain: Element[] = [];
    for (let n: Element | null = el; n; n = n.parentElement) chain.unshift(n);
    let behind = paint(getComputedStyle(document.documentElement).colorScheme.includes("dark") ? "#000" : "#fff");
    for (const n of chain) behind = paint(getComputedStyle(n).backgroundColor);
    const text = paint(getComputedStyle(el).color);
    const [hi, lo] = [luminance(behind), luminance(text)].sort((a, b) => b - a);
    return (hi! + 0.05) / (lo! + 0.05);
  });
}

/** Readable body text: at least WCAG AA's 4.5:1. */
async function expectLegible(locator: Locator, min = 4.5): Promise<void> {
  await expect(locator).toBeVisible();
  expect(await contrastOf(locator), `contrast of ${locator}`).toBeGreaterThanOrEqual(min);
}

async function pageLuminanceIsDark(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const m = getComputedStyle(document.body).backgroundColor;
    const g = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
    g.fillStyle = m;
    g.fillRect(0, 0, 1, 1);
    const [r, gr, b] = g.getImageData(0, 0, 1, 1).data;
    return r! + gr! + b! < 3 * 48;
  });
}

const nav = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name, exact: true });

test.describe("dark mode", () => {
  test.use({ colorScheme: "dark" });

  test("every page is dark, legible and keeps its images as they are", async ({ page, request }) => {
    const user = newUser("ops", "5");
    const key = newKey(user.workspaceId);
    const done = await startRun(request, key, "atelier/gradient", { prompt: "dark mode, a finished run" });
    expect(await waitFinal(request, key, done)).toBe("succeeded");

    await signIn(page, user);
    expect(await pageLuminanceIsDark(page)).toBe(true);
    await expectLegible(page.getByRole("heading", { name: "Catalog", exact: true }));
    await expectLegible(page.getByText("Every model and preset this workspace can run"));
    await expectLegible(nav(page, "Catalog"));
    await expectLegible(nav(page, "Runs"));
    await expectLegible(page.getByRole("button", { name: "All", exact: true }));
    await expectLegible(page.getByRole("button", { name: "Video", exact: true }));
    const card = page.getByTestId("model-card").filter({ hasText: "atelier/promo-video@2" });
    await expectLegible(card.getByRole("link"));
    await expectLegible(card.getByText("Preset v2"));
    await expectLegible(
      page.getByTestId("model-card").filter({ hasText: "atelier/gradient-classic" }).getByText("Deprecated"),
    );
    await expectLegible(page.getByTestId("balance"));
    await screenshot(page, "dark-catalog");

    await page.goto("/catalog/atelier/artwork");
    await expectLegible(page.getByRole("heading", { name: "Artwork" }).first());
    await page.getByLabel("Prompt", { exact: true }).fill("a lighthouse at night");
    await expectLegible(page.getByLabel("Prompt", { exact: true }));
    await page.getByRole("radio", { name: "512" }).click();
    await expectLegible(page.getByRole("radio", { name: "512" }));
    await expectLegible(page.getByRole("radio", { name: "1024" }));
    await expect(page.getByTestId("quote")).toContainText("Cost $0.003");
    await expectLegible(page.getByTestId("quote"));
    const run = page.getByRole("button", { name: /^Run/ });
    await expectLegible(run);
    await run.click();
    const pill = page.getByTestId("status-pill").first();
    await expect(pill).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
    await expectLegible(pill);
    const image = page.getByTestId("output-image").first();
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    // Dark mode is the palette only: outputs are never inverted or dimmed.
    await expect(image).toHaveCSS("filter", "none");
    await screenshot(page, "dark-model-page");

    // A form with a slider, a switch and segmented controls.
    await page.goto("/catalog/atelier/title-motion");
    await expectLegible(page.getByLabel("Duration", { exact: true }));
    await expect(page.getByTestId("quote")).toContainText("Cost $");
    await page.getByRole("switch", { name: "Show title" }).click();
    await expect(page.getByRole("switch", { name: "Show title" })).toHaveAttribute("aria-checked", "false");
    await page.getByText("The same run over the API").click();
    await expect(page.getByTestId("api-request").locator("pre")).toBeVisible();
    await expectLegible(page.getByTestId("api-request").locator("pre"));
    await screenshot(page, "dark-model-form");

    // History with every kind of pill this workspace can show: succeeded, canceled, unfinished.
    const canceled = await startRun(request, key, "atelier/title-motion", { prompt: "to be canceled", duration: 2 });
    await request.post(`/v1/generations/${canceled}/cancel`, { headers: { "x-api-key": key } });
    await startRun(request, key, "atelier/title-motion", { prompt: "still going", duration: 2 });
    await nav(page, "Runs").click();
    await expect(page).toHaveURL(/\/runs$/);
    const pills = page.locator("tbody").getByTestId("status-pill");
    await expect(pills.first()).toBeVisible();
    for (const p of await pills.all()) await expectLegible(p);
    await expectLegible(page.getByRole("heading", { name: "Runs", exact: true }));
    await screenshot(page, "dark-runs");

    await page.goto(`/runs/${done}`);
    await expectLegible(page.getByTestId("run-input"));
    await expectLegible(page.getByText("Timeline"));
    await screenshot(page, "dark-run-page");

    await nav(page, "API keys").click();
    await expect(page).toHaveURL(/\/keys$/);
    await expectLegible(page.getByRole("heading", { name: "API keys", exact: true }));
    await expectLegible(page.getByText("studio test").first());
    await screenshot(page, "dark-keys");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await expectLegible(page.getByRole("dialog").getByLabel("Name", { exact: true }));
    await screenshot(page, "dark-keys-dialog");

    await page.goto("/webhooks");
    await expect(page).toHaveURL(/\/webhooks$/);
    await expectLegible(page.getByRole("heading", { name: "Webhooks", exact: true }));
    await screenshot(page, "dark-webhooks");

    await nav(page, "Ops").click();
    await expect(page).toHaveURL(/\/ops$/);
    await expectLegible(page.getByTestId("ops-queued"));
    await expectLegible(page.getByRole("button", { name: "Add credit" }));
    await expectLegible(page.getByRole("button", { name: "Filter" }));
    for (const p of (await page.getByTestId("ops-run").getByTestId("status-pill").all()).slice(0, 6))
      await expectLegible(p);
    await screenshot(page, "dark-ops");
  });

  test("a page waiting for the server shows its skeleton, announced as loading", async ({ page }) => {
    await signIn(page, newUser("owner"));
    // The navigation's own request to /keys is held until the skeleton has been seen, so the check
    // does not race the server. The skeleton comes from the link's prefetch (route tree, then the
    // part up to the loading state); if the click beats the router storing that prefetch, Next
    // shows an empty page body instead, so an attempt that sees no skeleton starts over.
    const isPrefetch = (headers: Record<string, string>) => !!headers["next-router-prefetch"];
    let release = () => {};
    let held = Promise.resolve();
    await page.route(/\/keys(\?|$)/, async (route) => {
      const headers = route.request().headers();
      if (headers.rsc && !isPrefetch(headers)) await held;
      await route.continue();
    });
    const skeleton = page.getByRole("status", { name: "Loading API keys" });
    await expect(async () => {
      release();
      held = new Promise<void>((resolve) => (release = resolve));
      const prefetched = page.waitForResponse(
        (r) =>
          /\/keys(\?|$)/.test(r.url()) &&
          isPrefetch(r.request().headers()) &&
          !r.request().headers()["next-router-segment-prefetch"],
      );
      await page.goto("/catalog");
      await prefetched;
      await nav(page, "API keys").click();
      await expect(skeleton).toBeVisible({ timeout: 3_000 });
    }).toPass({ timeout: 45_000 });
    await expect(skeleton).toHaveAttribute("aria-busy", "true");
    await screenshot(page, "skeleton-keys-dark");
    release();
    await expect(page.getByRole("heading", { name: "API keys", exact: true })).toBeVisible();
    await expect(skeleton).toHaveCount(0);
  });

  test("a page that fails on the server shows the error state with its reference; the frame stays", async ({
    page,
    request,
  }) => {
    // A real failure on real data: a run whose stored input is no longer JSON makes the run page
    // throw inside lib/core, an unexpected error rather than an ApiError.
    const user = newUser("owner", "1");
    const key = newKey(user.workspaceId);
    const id = await startRun(request, key, "atelier/gradient", { prompt: "about to break" });
    expect(await waitFinal(request, key, id)).toBe("succeeded");
    const db = new Database(path.join(STUDIO_DATA_DIR, "atelier.sqlite"));
    try {
      db.pragma("busy_timeout = 5000");
      expect(db.prepare("update generations set input_json = ? where id = ?").run("{not json", id).changes).toBe(1);
    } finally {
      db.close();
    }

    await signInCookie(page, user);
    await page.goto(`/runs/${id}`);
    const alert = page.getByRole("alert").filter({ hasText: "Something went wrong on our side" });
    await expect(alert).toBeVisible();
    await expect(alert.getByTestId("error-reference")).toHaveText(/^Reference \S{6,}$/);
    await expect(alert.getByRole("button", { name: "Try again" })).toBeVisible();
    await expectLegible(alert.getByTestId("error-reference").locator("code"));
    await expect(page.getByTestId("balance")).toBeVisible();
    await screenshot(page, "error-page-dark");
  });
});

test.describe("phone", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  async function expectNoSidewaysScroll(page: Page): Promise<void> {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  }

  test("catalog and a model page fit a phone; the account menu shows who is signed in", async ({ page }) => {
    const user = newUser("owner", "5");
    await signIn(page, user);
    await expect(page.getByTestId("model-card").first()).toBeVisible();
    await expectNoSidewaysScroll(page);
    await screenshot(page, "phone-catalog");

    const account = page.getByLabel(`Account: ${user.email}`);
    await expect(account).toBeVisible();
    await account.click();
    const menu = page.locator("details[open]");
    await expect(menu.getByText(user.email, { exact: true })).toBeVisible();
    await expect(menu.getByRole("button", { name: "Sign out" })).toBeVisible();
    await screenshot(page, "phone-account-menu");
    await account.click();

    await page.getByTestId("model-card").filter({ hasText: "atelier/artwork" }).getByRole("link").click();
    await expect(page).toHaveURL(/\/catalog\/atelier\/artwork$/);
    await page.getByLabel("Prompt", { exact: true }).fill("a kite over the dunes");
    await expect(page.getByTestId("quote")).toContainText("Cost $0.003");
    await page.getByRole("button", { name: /^Run/ }).click();
    await expect(page.getByTestId("status-pill").first()).toHaveAttribute("data-status", "succeeded", {
      timeout: 45_000,
    });
    await expect(page.getByTestId("output-image").first()).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectLegible(page.getByRole("heading", { name: "Artwork" }).first());
    await screenshot(page, "phone-model-page");
  });
});
