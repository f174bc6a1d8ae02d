// Runs in the studio: cancel a queued run, page through history with filters, and the studio's runs
// are source "studio" in the API.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { apiRun, newKey, newUser, screenshot, signIn, signInCookie, type TestUser } from "./helpers";

function apiKey(user: TestUser): string {
  return newKey(user.workspaceId);
}

async function start(
  request: APIRequestContext,
  key: string,
  model: string,
  input: Record<string, unknown>,
): Promise<string> {
  const res = await request.post("/v1/generations", { headers: { "x-api-key": key }, data: { model, input } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

test("cancel a queued run started in the studio; its hold shows meanwhile; it is source studio in the API", async ({
  page,
  request,
}) => {
  // Another workspace fills every worker with slow runs, so the studio's run waits in the queue.
  const owner = newUser("owner", "20");
  const ownerKey = apiKey(owner);
  const blockers: string[] = [];
  for (let i = 0; i < 4; i++)
    blockers.push(
      await start(request, ownerKey, "atelier/promo-video@1", {
        title: `Blocker ${i}`,
        prompt: "neon night",
        duration: 10,
      }),
    );
  const user = newUser("owner", "5");
  const key = apiKey(user);
  await signInCookie(page, user);
  await page.goto("/catalog/atelier/gradient");
  const balance = page.getByTestId("balance");
  await expect(balance).toContainText("$5.00 available");
  await expect(balance).not.toContainText("held");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "queued");
  // While it waits, its price is held: the header says so.
  await expect(balance).toContainText("$4.998 available");
  await expect(balance).toContainText("$0.002 held");
  await screenshot(page, "model-queued");
  await view.getByRole("button", { name: "Cancel run" }).click();
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "canceled");
  await expect(view.getByTestId("run-cost")).toHaveText("Not charged");
  await expect(balance).toContainText("$5.00 available");
  await expect(balance).not.toContainText("held");
  const id = (await view.getAttribute("data-run-id"))!;
  expect(await apiRun(request, key, id)).toMatchObject({ status: "canceled", source: "studio" });

  // A run past its preview cannot be stopped: the studio shows why.
  await page.context().clearCookies();
  await signIn(page, owner);
  await expect
    .poll(
      async () =>
        (
          (await (
            await request.get(`/v1/generations/${blockers[0]}`, { headers: { "x-api-key": ownerKey } })
          ).json()) as { preview: unknown }
        ).preview,
      { timeout: 30_000 },
    )
    .not.toBeNull();
  await page.goto(`/runs/${blockers[0]}`);
  await expect(page.getByTestId("run-view")).toBeVisible();
  const cancel = page.getByRole("button", { name: "Cancel run" });
  if (await cancel.isVisible()) {
    await cancel.click();
    // Either it is still going (409: the message says why) or it ended meanwhile (final state shown).
    await expect(page.getByTestId("run-message").or(page.locator('[data-status="succeeded"]'))).toBeVisible();
    if (await page.getByTestId("run-message").isVisible())
      await expect(page.getByTestId("run-message")).toContainText("can no longer be canceled");
  }
  for (const b of blockers) await request.post(`/v1/generations/${b}/cancel`, { headers: { "x-api-key": ownerKey } });
});

test("a run of a batch links to the history of that batch", async ({ page, request }) => {
  const user = newUser("owner", "5");
  const key = apiKey(user);
  const made = await request.post("/v1/batches", {
    headers: { "x-api-key": key },
    data: { requests: ["one", "two", "three"].map((prompt) => ({ model: "atelier/gradient", input: { prompt } })) },
  });
  expect(made.status(), await made.text()).toBe(201);
  const batch = (await made.json()) as { id: string; data: { id: string }[] };
  const alone = await start(request, key, "atelier/gradient", { prompt: "not in the batch" });
  // The API lists a batch's runs too; a malformed batch ID is refused like any other filter.
  const listed = (await (
    await request.get(`/v1/generations?batch=${batch.id}`, { headers: { "x-api-key": key } })
  ).json()) as { data: { id: string }[] };
  expect(listed.data.map((g) => g.id).sort()).toEqual(batch.data.map((g) => g.id).sort());
  const bad = await request.get("/v1/generations?batch=gen_123", { headers: { "x-api-key": key } });
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("batch");

  await signInCookie(page, user);
  await page.goto(`/runs/${batch.data[1]!.id}`);
  expect((await apiRun(request, key, batch.data[1]!.id)).batch_id).toBe(batch.id);
  await page.getByTestId("run-batch").click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?batch=${batch.id}$`));
  await expect(page.getByTestId("batch-filter")).toContainText(batch.id);
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: alone })).toHaveCount(0);
  await screenshot(page, "history-batch");
  // Other filters keep the batch until it is cleared.
  await page.getByLabel("Source").selectOption("api");
  await expect(page).toHaveURL(/batch=bat_.*source=api|source=api.*batch=bat_/);
  await expect(rows).toHaveCount(3);
  await page.getByRole("link", { name: "Clear the batch filter" }).click();
  await expect(page).toHaveURL(/\/runs\?source=api$/);
  await expect(rows).toHaveCount(4);
});

test("page through 60 runs of history with a status filter", async ({ page, request }) => {
  const user = newUser("owner", "20");
  const key = apiKey(user);
  const ids = await Promise.all(
    Array.from({ length: 60 }, (_, i) => start(request, key, "atelier/gradient", { prompt: `sea ${i}` })),
  );
  expect(new Set(ids).size).toBe(60);
  await expect
    .poll(
      async () =>
        (
          (await (
            await request.get("/v1/generations?status=succeeded&limit=100", { headers: { "x-api-key": key } })
          ).json()) as { data: unknown[] }
        ).data.length,
      { timeout: 60_000 },
    )
    .toBe(60);

  await signInCookie(page, user);
  await page.goto("/runs");
  await page.getByLabel("Status").selectOption("succeeded");
  await expect(page).toHaveURL(/status=succeeded/);
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(20);
  await expect(page.locator('[data-testid="run-row"]:not([data-status="succeeded"])')).toHaveCount(0);
  await expect(page.getByTestId("run-source").first()).toHaveText("api");
  await screenshot(page, "history");
  const seen = new Set(await rows.getByTestId("run-id").allTextContents());

  await page.getByRole("link", { name: "Next →" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 2 · 20 runs");
  for (const t of await rows.getByTestId("run-id").allTextContents()) seen.add(t);
  await page.getByRole("link", { name: "Next →" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 3 · 20 runs");
  for (const t of await rows.getByTestId("run-id").allTextContents()) seen.add(t);
  expect(seen.size).toBe(60);
  await expect(page.getByRole("link", { name: "Next →" })).toHaveCount(0);
  await page.getByRole("link", { name: "← Previous" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 2 · 20 runs");
  await page.getByRole("link", { name: "← Previous" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 1 · 20 runs");

  await page.getByLabel("Status").selectOption("failed");
  await expect(page.getByText("No run matches these filters.")).toBeVisible();
  await page.getByLabel("Status").selectOption("");
  await page.getByLabel("Source").selectOption("studio");
  await expect(page.getByText("No run matches these filters.")).toBeVisible();
});
