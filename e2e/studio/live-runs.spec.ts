// Live runs in the studio: the model page, the run page and the history list follow the page's one
// event stream (GET /api/runs/events) without a reload or a read on a timer: results, progress,
// a preset's preview (and the cancel it rules out), queue places. Then the model page and the
// history list on a phone.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

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

type Marked = Window & { __sameDocument?: boolean; __progress?: string[] };

/** Marks the document: the mark survives only if the page is never reloaded. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => ((window as Marked).__sameDocument = true));
}

async function expectSameDocument(page: Page): Promise<void> {
  expect(await page.evaluate(() => (window as Marked).__sameDocument ?? false)).toBe(true);
}

/** What the page asks for while it waits: its event streams and the bodies of the server actions it posts. */
function watchRequests(page: Page): { streams: string[]; actions: string[] } {
  const seen = { streams: [] as string[], actions: [] as string[] };
  page.on("request", (r) => {
    if (r.url().includes("/api/runs/events")) seen.streams.push(r.url());
    else if (r.method() === "POST" && r.headers()["next-action"]) seen.actions.push(r.postData() ?? "");
  });
  return seen;
}

/** Records every value the run card's progress bar shows ("model:42", "estimate:10"), in order. */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as Marked;
    w.__progress = [];
    const record = () => {
      const box = document.querySelector('[data-testid="run-view"] [data-testid="run-progress"]');
      const value = box?.querySelector('[role="progressbar"]')?.getAttribute("aria-valuenow");
      if (!box || value == null) return;
      const item = `${box.getAttribute("data-source")}:${value}`;
      if (w.__progress!.at(-1) !== item) w.__progress!.push(item);
    };
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["aria-valuenow", "data-source"],
    });
  });
}

test("a result appears without a reload on the model page and on the run page, from one event stream", async ({
  page,
  request,
}) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  await signInCookie(page, user);
  await page.goto("/catalog/atelier/artwork");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.003");
  await markDocument(page);
  const seen = watchRequests(page);
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded");
  const image = view.getByTestId("output-image").first();
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeGreaterThan(0);
  await expectSameDocument(page);
  const id = (await view.getAttribute("data-run-id"))!;
  expect(seen.streams.some((url) => url.includes(`ids=${id}`))).toBe(true);

  // The run page of a video run started over the API: it was unfinished when the page opened.
  const video = await start(request, key, "atelier/title-motion", {
    prompt: "harbour lights at night",
    title: "Live",
    duration: 10,
    resolution: "720p",
  });
  const onRunPage = watchRequests(page);
  // React reports a mismatch as a console error in development, as minified error 418 or 425 in production.
  const hydration: string[] = [];
  const mismatch = /hydrat|react\.dev\/errors\/(418|423|425)\b/i;
  page.on("console", (m) => {
    if (m.type() === "error" && mismatch.test(m.text())) hydration.push(m.text());
  });
  page.on("pageerror", (err) => {
    if (mismatch.test(String(err))) hydration.push(String(err));
  });
  await page.goto(`/runs/${video}`);
  await markDocument(page);
  const runView = page.getByTestId("run-view");
  await expect(runView.getByTestId("status-pill")).toHaveAttribute("data-status", /^(queued|running)$/);
  await expect(page.getByTestId("run-webhooks")).toContainText("When the run ends");
  await expect(runView.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  await expect(runView.getByTestId("output-video")).toBeVisible();
  await expect(runView.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  await expect(page.getByText("Completed")).toBeVisible();
  // Its ending reloaded the server parts once: the event it produced is listed.
  await expect(page.getByTestId("run-event-id")).toHaveText(/^evt_/);
  await expectSameDocument(page);
  // One stream for the page's three views of the run, and nothing read through a server action
  // meanwhile: the stream brought every change.
  expect(onRunPage.streams).toHaveLength(1);
  expect(onRunPage.actions).toEqual([]);
  // The page was drawn on the server mid-run (elapsed time, progress): the browser took it over cleanly.
  expect(hydration).toEqual([]);
  await screenshot(page, "live-run-page");
});

test("when the event stream fails for good, the result still arrives through the server action", async ({ page }) => {
  const user = newUser("owner", "5");
  await signIn(page, user);
  // An answer that is not an event stream: EventSource gives up (readyState CLOSED).
  await page.route("**/api/runs/events**", (route) =>
    route.fulfill({ status: 503, contentType: "application/json", body: '{"error":{"code":"service_unavailable"}}' }),
  );
  await page.goto("/catalog/atelier/title-motion");
  await page.getByLabel("Duration", { exact: true }).fill("4");
  await page.getByRole("radio", { name: "480p" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $");
  await markDocument(page);
  const seen = watchRequests(page);
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  await expect(view.getByTestId("output-video")).toBeVisible();
  await expectSameDocument(page);
  expect(seen.streams.length).toBeGreaterThan(0);
  // The run was read through getRunAction, whose only argument is the run's ID.
  const id = (await view.getAttribute("data-run-id"))!;
  expect(seen.actions.some((body) => body.includes(`"${id}"`) && !body.includes('"model"'))).toBe(true);
});

test("a video run shows a progress bar whose value follows the model's progress", async ({ page }) => {
  // A 10 s 720p render beside the other worker's tests: its waits below add up past the default 60 s.
  test.setTimeout(120_000);
  const user = newUser("owner", "5");
  await signInCookie(page, user);
  await page.goto("/catalog/atelier/title-motion");
  await page.getByLabel("Duration", { exact: true }).fill("10");
  await page.getByRole("radio", { name: "720p" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $");
  await recordProgress(page);
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  const bar = view.getByRole("progressbar");
  await expect(bar).toBeVisible({ timeout: 30_000 });
  await expect(bar).toHaveAttribute("aria-valuenow", /^\d+$/);
  // A picture part-way through (unless the run is quicker than the look). A busy 2-core machine
  // renders the frames slowly: the bar may sit below 30 % for longer than the default 10 s.
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const value = Number(
            document.querySelector('[data-testid="run-view"] [role="progressbar"]')?.getAttribute("aria-valuenow") ??
              100,
          );
          return value >= 30;
        }),
      { timeout: 45_000 },
    )
    .toBe(true);
  await screenshot(page, "live-progress");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await expect(view.getByTestId("output-video")).toBeVisible();
  await expect(view.getByRole("progressbar")).toHaveCount(0);
  const values = await page.evaluate(() => (window as Marked).__progress ?? []);
  const reported = values.filter((v) => v.startsWith("model:")).map((v) => Number(v.slice("model:".length)));
  // Several different values, never going back.
  expect(new Set(reported).size, values.join(" ")).toBeGreaterThan(1);
  expect(reported, values.join(" ")).toEqual([...reported].sort((a, b) => a - b));
});

test("a running run whose model reports no progress shows an estimate from the model's typical run time", async ({
  page,
  request,
}) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  // A finished run of the model first, so it has a typical run time.
  const earlier = await start(request, key, "atelier/title-motion", {
    prompt: "earlier",
    duration: 6,
    resolution: "480p",
  });
  await expect
    .poll(
      async () =>
        (
          (await (await request.get(`/v1/generations/${earlier}`, { headers: { "x-api-key": key } })).json()) as {
            status: string;
          }
        ).status,
      { timeout: 45_000 },
    )
    .toBe("succeeded");
  await signIn(page, user);
  // The stream says the new run is running with no progress of its own (as a remote model's would).
  await page.route("**/api/runs/events**", async (route) => {
    const ids = new URL(route.request().url()).searchParams.get("ids")!.split(",");
    const events = await Promise.all(
      ids.map(async (id, i) => {
        const generation = (await (
          await request.get(`/v1/generations/${id}`, { headers: { "x-api-key": key } })
        ).json()) as Record<string, unknown>;
        const running = {
          ...generation,
          status: "running",
          progress: null,
          queue_position: null,
          output: [],
          completed_at: null,
          usage: { cost_usd: null },
          started_at: new Date().toISOString(),
        };
        return `id: ${i + 1}\nevent: run\ndata: ${JSON.stringify({ generation: running, uncancelable_reason: null })}\n\n`;
      }),
    );
    await route.fulfill({ status: 200, contentType: "text/event-stream", body: `retry: 600000\n\n${events.join("")}` });
  });
  await page.goto("/catalog/atelier/title-motion");
  await expect(page.getByText("No run yet")).toBeVisible();
  await page.getByLabel("Duration", { exact: true }).fill("6");
  await page.getByRole("radio", { name: "480p" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.048");
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "running");
  const progress = view.getByTestId("run-progress");
  await expect(progress).toHaveAttribute("data-source", "estimate");
  const bar = view.getByRole("progressbar", { name: "Estimated progress" });
  await expect(bar).toHaveAttribute(
    "aria-valuetext",
    /(about \d+ s left|almost done|taking longer than usual) \(estimated\)$/,
  );
  await screenshot(page, "live-estimate");
  // However long it takes, an estimate stays short of done.
  expect(Number(await bar.getAttribute("aria-valuenow"))).toBeLessThanOrEqual(95);
  await page.unrouteAll({ behavior: "ignoreErrors" });
});

test("promo-video@1 shows its preview before the video, and Cancel gives way to the reason", async ({ page }) => {
  const user = newUser("owner", "5");
  await signInCookie(page, user);
  await page.goto(`/catalog/atelier/${encodeURIComponent("promo-video@1")}`);
  await page.getByLabel("Duration", { exact: true }).fill("10");
  await expect(page.getByTestId("quote")).toContainText("Cost $0.11");
  await markDocument(page);
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  const preview = view.getByTestId("run-preview");
  await expect(preview).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeGreaterThan(0);
  await expect(view.getByTestId("output-video")).toHaveCount(0);
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "running");
  await expect(view.getByTestId("uncancelable-reason")).toContainText(
    "Preview shown: this run can no longer be canceled",
  );
  await expect(view.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
  await screenshot(page, "live-preview");

  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
  await expect(view.getByTestId("output-video")).toBeVisible();
  await expect(preview).toHaveCount(0);
  await expect(view.getByTestId("uncancelable-reason")).toHaveCount(0);
  await expect(view.getByTestId("run-cost")).toHaveText("$0.11");
  await expectSameDocument(page);
});

test("a queued run shows its place in the queue, then runs once the queue moves", async ({ page, request }) => {
  // Another workspace fills both worker slots and one place in the queue with long runs.
  const owner = newUser("owner", "20");
  const ownerKey = newKey(owner.workspaceId);
  const blockers: string[] = [];
  for (let i = 0; i < 3; i++)
    blockers.push(
      await start(request, ownerKey, "atelier/title-motion", {
        prompt: "slow clouds",
        title: `Blocker ${i}`,
        duration: 10,
        resolution: "720p",
      }),
    );
  try {
    const user = newUser("owner", "5");
    await signInCookie(page, user);
    await page.goto("/catalog/atelier/gradient");
    await expect(page.getByTestId("quote")).toContainText("Cost $0.002");
    await page.getByRole("button", { name: /^Run/ }).click();
    const view = page.getByTestId("run-view");
    await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "queued");
    await expect(view.getByTestId("queue-position")).toHaveText(/^In queue: #\d+$/);
    await screenshot(page, "live-queued");
    for (const b of blockers) await request.post(`/v1/generations/${b}/cancel`, { headers: { "x-api-key": ownerKey } });
    await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
    await expect(view.getByTestId("queue-position")).toHaveCount(0);
    await expect(view.getByTestId("output-image").first()).toBeVisible();
  } finally {
    for (const b of blockers) await request.post(`/v1/generations/${b}/cancel`, { headers: { "x-api-key": ownerKey } });
  }
});

test("history rows go from running to succeeded without a reload", async ({ page, request }) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  await signIn(page, user);
  const done = await start(request, key, "atelier/gradient", { prompt: "already done" });
  await expect
    .poll(
      async () =>
        (
          (await (await request.get(`/v1/generations/${done}`, { headers: { "x-api-key": key } })).json()) as {
            status: string;
          }
        ).status,
    )
    .toBe("succeeded");
  const running = await start(request, key, "atelier/title-motion", {
    prompt: "morning fog",
    title: "One",
    duration: 6,
    resolution: "480p",
  });
  const seen = watchRequests(page);
  await page.goto("/runs");
  await markDocument(page);
  const row = page.getByTestId("run-row").filter({ hasText: running });
  await expect(row).toHaveAttribute("data-status", /^(queued|running)$/);
  await screenshot(page, "live-history-running");
  await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  await expect(row).toContainText("$0.");
  await expect(row.locator("img")).toBeVisible(); // the poster as the thumbnail
  await expect(page.getByTestId("run-row").filter({ hasText: done })).toHaveAttribute("data-status", "succeeded");
  await expectSameDocument(page);
  expect(seen.streams).toHaveLength(1);
  expect(seen.actions).toEqual([]);
});

test.describe("on a phone (390 × 844)", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("pressing Run brings the result into view", async ({ page }) => {
    const user = newUser("owner", "5");
    await signInCookie(page, user);
    await page.goto("/catalog/atelier/artwork");
    await expect(page.getByTestId("quote")).toContainText("Cost $0.003");
    const result = page.getByTestId("result-area");
    await expect(result).not.toBeInViewport();
    await page.getByRole("button", { name: /^Run/ }).click();
    await expect(result).toBeInViewport();
    const view = page.getByTestId("run-view");
    await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded");
    const image = view.getByTestId("output-image").first();
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    await expect(view.getByTestId("status-pill")).toBeInViewport();
    await screenshot(page, "phone-model-run", { fullPage: false });
  });

  test("the history list is cards that fit the screen", async ({ page, request }) => {
    const user = newUser("owner", "5");
    const key = newKey(user.workspaceId);
    const ids = [
      await start(request, key, "atelier/gradient", { prompt: "one" }),
      await start(request, key, "atelier/artwork", { prompt: "two" }),
      await start(request, key, "atelier/title-motion", {
        prompt: "three",
        title: "Phone",
        duration: 2,
        resolution: "480p",
      }),
    ];
    for (const id of ids) {
      await expect
        .poll(
          async () =>
            (
              (await (await request.get(`/v1/generations/${id}`, { headers: { "x-api-key": key } })).json()) as {
                status: string;
              }
            ).status,
          { timeout: 45_000 },
        )
        .toMatch(/succeeded|failed/);
    }
    await signInCookie(page, user);
    await page.goto("/runs");
    const cards = page.getByTestId("run-card");
    await expect(cards).toHaveCount(ids.length);
    await expect(page.getByTestId("runs-table")).toBeHidden();
    for (const card of await cards.all()) {
      await expect(card).toBeVisible();
      const box = (await card.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      // Model, status (the whole word), cost and when: all inside the card.
      const pill = card.getByTestId("status-pill");
      await expect(pill).toHaveText(/succeeded|failed/);
      const pillBox = (await pill.boundingBox())!;
      expect(pillBox.x + pillBox.width).toBeLessThanOrEqual(box.x + box.width);
      expect(await pill.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await expect(card).toContainText(/\$0\.\d+|—/);
      await expect(card).toContainText(/just now|ago/);
      await expect(card).toContainText("atelier/");
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, "phone-history");
    await cards.first().click();
    await expect(page).toHaveURL(/\/runs\/gen_/);
  });
});

test("the live runs stream refuses in the error envelope: 401 signed out, 404 for an ID no run has (NUL included), 400 past the limit", async ({
  page,
  request,
}) => {
  const out = await request.get("/api/runs/events?ids=gen_x");
  expect(out.status()).toBe(401);
  expect((await out.json()).error).toMatchObject({
    code: "authentication_required",
    message: "Sign in to follow runs.",
  });

  await signIn(page, newUser());
  for (const ids of ["gen_nothere", "gen_%00", "%00", "x".repeat(5000)]) {
    const res = await page.request.get(`/api/runs/events?ids=${ids}`);
    expect(res.status(), ids.slice(0, 20)).toBe(404);
    expect((await res.json()).error.code).toBe("resource_not_found");
  }
  const many = Array.from({ length: 101 }, (_, i) => `gen_${i}`).join(",");
  const tooMany = await page.request.get(`/api/runs/events?ids=${many}`);
  expect(tooMany.status()).toBe(400);
  expect((await tooMany.json()).error).toMatchObject({ code: "invalid_parameter", param: "ids" });
});
