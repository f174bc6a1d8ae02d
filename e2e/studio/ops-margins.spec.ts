// The ops Margins page: operators only (anyone else gets a 404); per model and provider, what runs
// were charged (the same as GET /v1/usage) against what they cost at the provider, the margin over
// the runs whose cost is known; the range in the address, a bad one said in words.
// Screenshot: ops-margins.
import { expect, test } from "@playwright/test";
import { sql } from "kysely";
import { formatUsd } from "../../lib/primitives/money";
import { openStore } from "../../lib/store/store";
import { STUDIO_DATA_DIR } from "./playwright.config";
import { newKey, newUser, screenshot, signIn, signInCookie, startRun, waitFinal } from "./helpers";

// A day of its own, five years back: the studio's store is shared by the specs, and no other one
// has runs then (output retention's spec purges runs twenty years old only).
const DAY = new Date(Date.now() - 5 * 365 * 86_400_000).toISOString().slice(0, 10);

test("a member who does not operate the install gets a 404 on /ops/margins", async ({ page }) => {
  await signIn(page, newUser("owner"));
  expect((await page.goto("/ops/margins"))?.status()).toBe(404);
  expect((await page.goto(`/ops/margins?from=${DAY}&to=${DAY}`))?.status()).toBe(404);
});

test("an operator reads price, provider cost and margin per model and provider", async ({ page, request }) => {
  const owner = newUser("owner");
  const key = newKey(owner.workspaceId);
  const ids = [
    await startRun(request, key, "atelier/gradient", { prompt: "margin one" }),
    await startRun(request, key, "atelier/gradient", { prompt: "margin two" }),
    await startRun(request, key, "atelier/gradient", { prompt: "margin three" }),
    // The studio's test server blocks this word: the run fails and is not charged.
    await startRun(request, key, "atelier/gradient", { prompt: "a zebracorn" }),
  ];
  expect(await Promise.all(ids.map((id) => waitFinal(request, key, id)))).toEqual([
    "succeeded",
    "succeeded",
    "succeeded",
    "failed",
  ]);
  const price = Math.round(
    Number(
      (
        (await (await request.get(`/v1/generations/${ids[0]}`, { headers: { "x-api-key": key } })).json()) as {
          usage: { cost_usd: string };
        }
      ).usage.cost_usd,
    ) * 1_000_000,
  );
  expect(price).toBeGreaterThan(0);

  // Moved to DAY; the first two stand in for a Replicate entry's runs with a known cost (this
  // server has no providers file: the engine's recording of it is tested against the Replicate
  // fake, lib/engine/provider-cost.test.ts), the other two stay the built-in's, without one.
  const costs = [Math.round(price / 4), Math.round(price / 2)];
  const store = openStore({ databaseUrl: null, dataDir: STUDIO_DATA_DIR });
  try {
    for (const [i, id] of ids.entries()) {
      const at = `${DAY}T0${i}:00:00.000Z`;
      await sql`update generations set created_at = ${at}, started_at = ${at}, completed_at = ${at} where id = ${id}`.execute(
        store.db,
      );
    }
    for (const [i, cost] of costs.entries()) {
      await sql`update generations set model = 'bfl/flux-schnell', model_base = 'bfl/flux-schnell',
        provider = 'replicate', provider_cost_micros = ${cost} where id = ${ids[i]}`.execute(store.db);
    }
  } finally {
    await store.close();
  }
  const usage = (await (
    await request.get(`/v1/usage?from=${DAY}&to=${DAY}&group_by=day`, { headers: { "x-api-key": key } })
  ).json()) as { total: { runs: number; cost_usd: string } };
  expect(usage.total.runs).toBe(4);
  const usd = (micros: number) => `$${formatUsd(micros)}`;
  expect(usage.total.cost_usd).toBe(formatUsd(3 * price));

  await signInCookie(page, newUser("ops"));
  await page.goto("/ops");
  await page.getByRole("link", { name: "Margins" }).click();
  await expect(page).toHaveURL(/\/ops\/margins$/);
  await expect(page.getByRole("heading", { level: 1, name: "Margins" })).toBeVisible();
  await expect(page.getByRole("link", { name: "30 days" })).toHaveAttribute("aria-current", "page");

  await page.getByLabel("From").fill(DAY);
  await page.getByLabel("To").fill(DAY);
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(new RegExp(`/ops/margins\\?from=${DAY}&to=${DAY}$`));
  const rows = page.getByTestId("margins-row");
  await expect(rows).toHaveCount(2);
  const cost = costs[0]! + costs[1]!;
  const margin = 2 * price - cost;
  const percent = `${(Math.round((1000 * margin) / (2 * price)) / 10).toFixed(1)}%`;
  await expect(rows.filter({ hasText: "bfl/flux-schnell" }).locator("td")).toHaveText([
    "bfl/flux-schnell",
    "replicate",
    "2",
    "2",
    usd(2 * price),
    "2 of 2",
    usd(cost),
    usd(margin),
    percent,
  ]);
  await expect(rows.filter({ hasText: "atelier/gradient" }).locator("td")).toHaveText([
    "atelier/gradient",
    "atelier",
    "2",
    "1",
    usd(price),
    "0 of 1",
    "—",
    "—",
    "—",
  ]);
  // The charges are the API's usage for the day; the margin is over the costed runs only.
  await expect(page.getByTestId("margins-charged")).toHaveText(`$${usage.total.cost_usd}`);
  await expect(page.getByTestId("margins-cost")).toHaveText(usd(cost));
  await expect(page.getByTestId("margins-margin")).toHaveText(usd(margin));
  await expect(page.getByTestId("margins-percent")).toHaveText(percent);
  await expect(page.getByTestId("margins-total").locator("td")).toHaveText([
    "4",
    "3",
    usd(3 * price),
    "2 of 3",
    usd(cost),
    usd(margin),
    percent,
  ]);
  await screenshot(page, "ops-margins");

  // A bad range is said in words, with the way back.
  await page.goto("/ops/margins?from=2026-13-01&to=2026-12-01");
  const alert = page.getByRole("alert").filter({ hasText: /\S/ });
  await expect(alert).toContainText('from is a day such as "2026-05-01" (UTC); got "2026-13-01".');
  await page.goto("/ops/margins?days=5");
  await expect(alert).toContainText("days is one of 7, 30, 90.");
  await page.getByRole("link", { name: "Show the last 30 days" }).click();
  await expect(page).toHaveURL(/\/ops\/margins$/);
  await expect(page.getByRole("heading", { name: "By model and provider" })).toBeVisible();
});
