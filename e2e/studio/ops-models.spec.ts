// The ops page's model panel (states, pause and resume from the studio onto the same core as
// `admin model pause|resume`), failure reasons grouped with IDs and numbers masked, the runs
// table's times, cost and links, and the webhooks page collapsing events that went nowhere.
// Screenshots: test-results/studio/ops-models-*.png (desktop and phone, light and dark).
import sharp from "sharp";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { admin, apiRun, newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

const PAUSED = "atelier/type-card";

async function quoteStatus(
  request: APIRequestContext,
  key: string,
): Promise<{ status: number; body: { error?: { message: string } } }> {
  const res = await request.post("/v1/quotes", {
    headers: { "x-api-key": key },
    data: { model: PAUSED, input: { text: "Quote me" } },
  });
  return { status: res.status(), body: (await res.json()) as { error?: { message: string } } };
}

async function entryAvailability(
  request: APIRequestContext,
  key: string,
): Promise<{ status: string; message: string | null }> {
  const res = await request.get(`/v1/models/${PAUSED}`, { headers: { "x-api-key": key } });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { availability: { status: string; message: string | null } }).availability;
}

/** Four times larger than this server allows (8192 px): the run fails with the sizes in its message. */
async function tooWideRun(request: APIRequestContext, key: string, width: number): Promise<string> {
  const png = await sharp({ create: { width, height: 8, channels: 3, background: { r: 90, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  const file = await request.post("/v1/files", {
    headers: { "x-api-key": key, "content-type": "image/png" },
    data: png,
  });
  expect(file.status(), await file.text()).toBe(201);
  const fileId = ((await file.json()) as { id: string }).id;
  const run = await request.post("/v1/generations", {
    headers: { "x-api-key": key },
    data: { model: "atelier/upscale", input: { image: fileId, scale: 4 } },
  });
  expect(run.status(), await run.text()).toBe(201);
  return ((await run.json()) as { id: string }).id;
}

function modelRow(page: Page, id: string) {
  return page.getByRole("region", { name: "Models" }).locator(`[data-testid="ops-model"][data-model="${id}"]`);
}

test("ops pause a model from the studio, its entry and quotes say so, and resume it", async ({ page, request }) => {
  const creator = newUser("owner");
  const key = newKey(creator.workspaceId);
  expect((await quoteStatus(request, key)).status).toBe(200);

  const ops = newUser("ops");
  await signInCookie(page, ops);
  await page.goto("/ops");
  const panel = page.getByRole("region", { name: "Models" });
  await expect(panel.getByTestId("ops-model").first()).toBeVisible();
  expect(await panel.getByTestId("ops-model").count()).toBeGreaterThan(5);
  const row = modelRow(page, PAUSED);
  await expect(row.getByTestId("model-state")).toHaveText("In service");
  await expect(modelRow(page, "atelier/gradient").getByTestId("model-state")).toHaveText("In service");
  await expect(row.getByTestId("model-failure-rate")).toBeVisible();
  // A retired entry says so rather than "In service", and has no Pause.
  const retired = modelRow(page, "atelier/gradient-legacy");
  await expect(retired.getByTestId("model-state")).toHaveText("Retired");
  await expect(retired.getByRole("button")).toHaveCount(0);

  try {
    await row.getByRole("button", { name: `Pause ${PAUSED}` }).click();
    const dialog = page.getByRole("dialog", { name: `Pause ${PAUSED}` });
    await dialog.getByLabel(/Reason/).fill("a font update is being installed");
    await dialog.getByLabel("For how long").selectOption("4");
    await dialog.getByRole("button", { name: "Pause" }).click();
    await expect(dialog).toBeHidden();
    await expect(row).toHaveAttribute("data-state", "paused");
    await expect(row.getByTestId("model-state")).toHaveText("Paused");
    await expect(row.getByTestId("model-detail")).toContainText("a font update is being installed");
    await expect(row.getByTestId("model-detail")).toContainText("in 4 h");
    // Ops see who paused it (API clients see only the reason).
    await expect(row.getByTestId("paused-by")).toHaveText(` by ${ops.email}`);

    // The same pause the admin CLI makes: the public entry says out of service, quotes get 503.
    expect(await entryAvailability(request, key)).toEqual({
      status: "out_of_service",
      message: "a font update is being installed",
      until: expect.any(String),
    });
    const refused = await quoteStatus(request, key);
    expect(refused.status).toBe(503);
    expect(refused.body.error?.message).toContain("a font update is being installed");
    const listed = admin<{ data: { id: string; availability: { status: string } }[] }>(["model", "list"]);
    expect(listed.data.find((m) => m.id === PAUSED)?.availability.status).toBe("out_of_service");
    await screenshot(page, "ops-models-paused");

    await row.getByRole("button", { name: `Resume ${PAUSED}` }).click();
    await expect(row).toHaveAttribute("data-state", "in_service");
    await expect(row.getByTestId("model-state")).toHaveText("In service");
    expect((await entryAvailability(request, key)).status).toBe("available");
    expect((await quoteStatus(request, key)).status).toBe(200);
  } finally {
    admin(["model", "resume", PAUSED]);
  }
});

test("failure reasons differing only by numbers are one row; runs show times, cost and links", async ({
  page,
  request,
}) => {
  const creator = newUser("owner");
  const key = newKey(creator.workspaceId);
  const failing = [await tooWideRun(request, key, 2100), await tooWideRun(request, key, 2200)];
  for (const id of failing)
    await expect.poll(async () => (await apiRun(request, key, id)).status, { timeout: 30_000 }).toBe("failed");
  expect((await apiRun(request, key, failing[0]!)).error?.message).toContain("8400×32");
  expect((await apiRun(request, key, failing[1]!)).error?.message).toContain("8800×32");

  const ops = newUser("ops");
  const opsKey = newKey(ops.workspaceId);
  const own = await request.post("/v1/generations", {
    headers: { "x-api-key": opsKey },
    data: { model: "atelier/gradient", input: { prompt: "an operator's own run" } },
  });
  const ownId = ((await own.json()) as { id: string }).id;
  await expect.poll(async () => (await apiRun(request, opsKey, ownId)).status, { timeout: 30_000 }).toBe("succeeded");

  await signInCookie(page, ops);
  await page.goto(`/ops?workspace=${creator.workspaceId}`);
  const reasons = page.getByRole("region", { name: "Failure reasons" });
  const reason = reasons.getByTestId("failure-reason");
  await expect(reason).toHaveCount(1);
  await expect(reason).toContainText("The result would be #×#; the longest side may be at most # pixels.");
  await expect(reason.getByTestId("failure-count")).toHaveText("2");
  for (const id of failing) await expect(reason.getByTestId("failure-examples")).toContainText(id);
  // Another workspace's runs link to the operator's read-only run page.
  await expect(reason.getByRole("link", { name: failing[0]! })).toHaveAttribute("href", `/ops/runs/${failing[0]}`);
  const failedRow = page.getByTestId("ops-run").filter({ hasText: failing[0]! });
  await expect(failedRow.getByTestId("ops-run-cost")).toHaveText("$0");
  await expect(failedRow.getByTestId("ops-run-time")).toHaveText(/\d.*s$/);
  await expect(failedRow.getByTestId("ops-run-queued")).toHaveText(/\d.*s$/);
  await screenshot(page, "ops-models-failures");

  await page.goto("/ops");
  const ownRow = page.getByTestId("ops-run").filter({ hasText: ownId });
  await expect(ownRow.getByTestId("ops-run-cost")).toHaveText(/^\$0\.\d+/);
  await ownRow.getByRole("link", { name: ownId }).click();
  await expect(page).toHaveURL(new RegExp(`/ops/runs/${ownId}$`));
  // The operator's own run: its run page, where it can be acted on, is one link away.
  await page.getByTestId("ops-run-workspace").getByRole("link", { name: "open its run page" }).click();
  await expect(page).toHaveURL(new RegExp(`(?<!ops)/runs/${ownId}$`));
});

test("events without a destination collapse into one line with a count", async ({ page, request }) => {
  const creator = newUser("owner");
  const key = newKey(creator.workspaceId);
  const ids: string[] = [];
  for (const prompt of ["one", "two", "three", "four"]) {
    const res = await request.post("/v1/generations", {
      headers: { "x-api-key": key },
      data: { model: "atelier/gradient", input: { prompt } },
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  for (const id of ids)
    await expect.poll(async () => (await apiRun(request, key, id)).status, { timeout: 30_000 }).toBe("succeeded");
  await signInCookie(page, creator);
  await page.goto("/webhooks");
  const group = page.getByTestId("event-group");
  await expect(group).toHaveCount(1);
  await expect(group).toHaveAttribute("data-count", "4");
  await expect(group.getByTestId("event-group-count")).toHaveText("4 events");
  await expect(page.getByTestId("event")).toHaveCount(0);
  await group.locator("summary").click();
  for (const id of ids) await expect(group.getByRole("link", { name: new RegExp(id) })).toBeVisible();
  await screenshot(page, "ops-models-webhooks");
});

for (const [label, options] of [
  ["desktop-light", { viewport: { width: 1440, height: 900 }, colorScheme: "light" }],
  ["desktop-dark", { viewport: { width: 1440, height: 900 }, colorScheme: "dark" }],
  ["phone-light", { viewport: { width: 390, height: 844 }, colorScheme: "light" }],
  ["phone-dark", { viewport: { width: 390, height: 844 }, colorScheme: "dark" }],
] as const) {
  test.describe(label, () => {
    test.use(options);
    test(`the ops page and a disabled button (${label})`, async ({ page, request }) => {
      const ops = newUser("ops");
      await signInCookie(page, ops);
      await page.goto("/ops");
      await expect(page.getByRole("region", { name: "Models" }).getByTestId("ops-model").first()).toBeVisible();
      await screenshot(page, `ops-models-${label}`);
      // The pause dialog, and a disabled button: the credit form's while it adds.
      await modelRow(page, "atelier/qr-code").getByRole("button", { name: "Pause atelier/qr-code" }).click();
      await screenshot(page, `ops-models-dialog-${label}`, { fullPage: false });
      await page.keyboard.press("Escape");
      await page.goto("/catalog/atelier/upscale");
      const run = page.getByRole("button", { name: /^Run/ });
      await expect(run).toBeDisabled();
      await run.scrollIntoViewIfNeeded();
      await screenshot(page, `ops-models-disabled-${label}`, { fullPage: false });
      // Three events that went nowhere: one line.
      const key = newKey(ops.workspaceId);
      for (const prompt of ["a", "b", "c"]) {
        const res = await request.post("/v1/generations", {
          headers: { "x-api-key": key },
          data: { model: "atelier/gradient", input: { prompt } },
        });
        const id = ((await res.json()) as { id: string }).id;
        await expect.poll(async () => (await apiRun(request, key, id)).status, { timeout: 30_000 }).toBe("succeeded");
      }
      await page.goto("/webhooks");
      await expect(page.getByTestId("event-group")).toHaveAttribute("data-count", "3");
      await screenshot(page, `ops-models-webhooks-${label}`);
    });
  });
}

// Here rather than with the model page's tests: it pauses the same entry as the test above, and
// tests of one file never run at the same time (the studio suite runs two files at once).
test("a paused model is out of service in the catalog and cannot be run until resumed", async ({ page }) => {
  const model = PAUSED;
  await signIn(page, newUser("owner", "5"));
  admin(["model", "pause", model, "--reason", "the type renderer is being upgraded"]);
  try {
    await page.goto("/catalog");
    const card = page.getByTestId("model-card").filter({ hasText: model });
    await expect(card).toContainText("Out of service");
    await card.getByRole("link").first().click();
    await expect(page).toHaveURL(/\/catalog\/atelier\/type-card$/);
    await expect(page.getByRole("note").filter({ hasText: "Out of service" })).toContainText(
      "the type renderer is being upgraded",
    );
    await expect(page.getByRole("button", { name: /^Run/ })).toBeDisabled();
    await expect(page.getByTestId("quote")).toContainText("Out of service");
    await screenshot(page, "model-paused");
  } finally {
    admin(["model", "resume", model]);
  }
  await page.reload();
  await expect(page.getByRole("note").filter({ hasText: "Out of service" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Run/ })).toBeEnabled();
  await page.goto("/catalog");
  await expect(page.getByTestId("model-card").filter({ hasText: model })).not.toContainText("Out of service");
});
