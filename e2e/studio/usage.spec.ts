// The Usage page: an owner's runs (succeeded and failed) add up to what GET /v1/usage says for the
// same range, the CSV is the API's, bad ranges are said in words; a creator cannot open it; ops pick
// any workspace or all. Screenshots: usage, dark-usage, phone-usage.
import { readFileSync } from "node:fs";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { newKey, newUser, screenshot, signIn, signInCookie, startRun, waitFinal, type TestUser } from "./helpers";

const today = new Date().toISOString().slice(0, 10);

async function signedIn(browser: Browser, user: TestUser, options: Parameters<Browser["newContext"]>[0] = {}) {
  const context = await browser.newContext({ ...options, reducedMotion: "reduce" });
  const page = await context.newPage();
  await signIn(page, user);
  return page;
}

async function expectTotals(page: Page, usage: { total: { runs: number; cost_usd: string } }) {
  await expect(page.getByTestId("usage-runs")).toHaveText(String(usage.total.runs));
  await expect(page.getByTestId("usage-spend")).toHaveText(`$${usage.total.cost_usd}`);
}

test("an owner's usage matches the API and downloads as its CSV; a creator cannot open it", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(150_000);
  const owner = newUser("owner");
  const key = newKey(owner.workspaceId);
  const ids = [
    await startRun(request, key, "atelier/gradient", { prompt: "usage one" }),
    await startRun(request, key, "atelier/gradient", { prompt: "usage two", num_images: 2 }),
    await startRun(request, key, "atelier/artwork", { prompt: "usage three" }),
    // The studio's test server blocks this word: the run fails and is not charged.
    await startRun(request, key, "atelier/gradient", { prompt: "a zebracorn" }),
  ];
  const ends = await Promise.all(ids.map((id) => waitFinal(request, key, id)));
  expect(ends).toEqual(["succeeded", "succeeded", "succeeded", "failed"]);
  const api = async (query: string, accept = "application/json") => {
    const res = await request.get(`/v1/usage?${query}`, { headers: { "x-api-key": key, accept } });
    expect(res.status(), await res.text()).toBe(200);
    return res;
  };
  const todays = (await (await api(`from=${today}&to=${today}`)).json()) as {
    total: { runs: number; cost_usd: string };
  };
  expect(todays.total.runs).toBe(4);
  expect(todays.total.cost_usd).not.toBe("0.00");

  await signIn(page, owner);
  await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Usage" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Usage" })).toBeVisible();
  // The default range (the last 30 days) holds only today's runs.
  await expectTotals(page, (await (await api("")).json()) as typeof todays);
  await expect(page.getByRole("link", { name: "30 days" })).toHaveAttribute("aria-current", "page");
  await page.goto(`/usage?from=${today}&to=${today}`);
  await expectTotals(page, todays);
  await expect(page.getByTestId("usage-failed")).toHaveText("1 (25%)");
  await expect(page.getByRole("heading", { name: "Spend per day, by model" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Runs and failure rate per day" })).toBeVisible();
  // The charts' numbers as text: each day as a table, and the top keys.
  await page.getByText("Each day as a table").click();
  await expect(
    page.getByRole("row", { name: new RegExp(`^${today} 4 1 25% \\$${todays.total.cost_usd}$`) }),
  ).toBeVisible();
  await expect(page.getByRole("region", { name: "Top keys" })).toContainText("studio test");
  await expect(page.getByRole("region", { name: "Top members" })).toContainText("keys the admin CLI made");

  // The CSV is the API's, byte for byte.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("usage-csv").click()]);
  expect(download.suggestedFilename()).toBe(`usage-${today}-${today}-by-day.csv`);
  const csv = readFileSync((await download.path())!, "utf8");
  expect(csv).toBe(await (await api(`from=${today}&to=${today}&group_by=day`, "text/csv")).text());
  expect(csv).toContain(`${today},4,3,1,0,${todays.total.cost_usd}`);

  // Presets and the custom range live in the address.
  await page.getByRole("link", { name: "7 days" }).click();
  await expect(page).toHaveURL(/days=7/);
  await expectTotals(page, todays);
  await page.goto("/usage");
  await screenshot(page, "usage");

  // Bad ranges are a message, never a failed page.
  for (const [query, said] of [
    ["from=2026-03-05&to=2026-03-04", "is after to"],
    ["from=2024-01-01&to=2026-01-01", "at most 366 days"],
    ["from=%00", "from is a day"],
    ["to=2026-02-30", "to is a day"],
    ["days=12", "days is one of 7, 30, 90"],
  ] as const) {
    const res = await page.goto(`/usage?${query}`);
    expect(res?.status(), query).toBe(200);
    await expect(page.getByRole("main").getByRole("alert"), query).toContainText(said);
  }

  // Dark and a phone.
  const dark = await signedIn(browser, owner, { colorScheme: "dark" });
  await dark.goto("/usage");
  await expectTotals(dark, todays);
  await screenshot(dark, "dark-usage");
  const phone = await signedIn(browser, owner, { viewport: { width: 390, height: 844 }, isMobile: true });
  await phone.goto("/usage");
  await expectTotals(phone, todays);
  expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await screenshot(phone, "phone-usage");

  // A creator of the workspace: a note, no link, and no CSV either.
  const creator = newUser("creator");
  const theirs = await signedIn(browser, creator);
  await expect(theirs.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Usage" })).toHaveCount(0);
  await theirs.goto("/usage");
  await expect(theirs.getByText("Admins and owners see this workspace's runs and spend.")).toBeVisible();
  await expect(theirs.getByTestId("usage-totals")).toHaveCount(0);
  const refused = await theirs.request.get(`/api/usage/csv?from=${today}&to=${today}`);
  expect(refused.status()).toBe(403);
});

test("ops see every workspace's usage, or one workspace's", async ({ page, request }) => {
  const owner = newUser("owner");
  const key = newKey(owner.workspaceId);
  expect(await waitFinal(request, key, await startRun(request, key, "atelier/gradient", { prompt: "ops view" }))).toBe(
    "succeeded",
  );
  const theirs = (await (
    await request.get(`/v1/usage?from=${today}&to=${today}`, { headers: { "x-api-key": key } })
  ).json()) as { total: { runs: number; cost_usd: string } };

  await signInCookie(page, newUser("ops"));
  await page.goto(`/usage?from=${today}&to=${today}`);
  await expect(page.getByText("Every workspace's runs")).toBeVisible();
  // All workspaces hold at least this one's runs.
  expect(Number(await page.getByTestId("usage-runs").textContent())).toBeGreaterThanOrEqual(theirs.total.runs);
  await page.getByLabel("Workspace").selectOption(owner.workspaceId);
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(new RegExp(`workspace=${owner.workspaceId}`));
  await expectTotals(page, theirs);
  const csv = await page.request.get(`/api/usage/csv?from=${today}&to=${today}&workspace=${owner.workspaceId}`);
  expect(await csv.text()).toContain(`${today},1,1,0,0,${theirs.total.cost_usd}`);
  await page.goto("/usage?workspace=constructor");
  await expect(page.getByRole("main").getByRole("alert")).toContainText("workspace is a workspace ID");
});
