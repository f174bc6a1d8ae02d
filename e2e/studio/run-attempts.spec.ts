// The providers a routed run tried, on its run page and the ops run page, never in the API's
// Generation. No routed entry runs here: the attempts are written into the store as the engine
// writes them when a routed run ends (lib/engine/finish.ts).
import { expect, test } from "@playwright/test";
import { sql } from "kysely";
import { openStore } from "../../lib/store/store";
import { STUDIO_DATA_DIR } from "./playwright.config";
import { apiRun, newKey, newUser, screenshot, signInCookie } from "./helpers";

const ATTEMPTS = [
  {
    provider: "route-fal",
    upstream_model: "fal-ai/flux/dev",
    outcome: "failed",
    reason: "The provider answered 503 Service Unavailable.",
    started_at: "2026-05-01T10:00:00.000Z",
    ms: 240,
  },
  {
    provider: "route-together",
    upstream_model: "black-forest-labs/FLUX.1-schnell",
    outcome: "skipped",
    reason: "out of service: HTTP 502 (until 10:10 UTC)",
    started_at: "2026-05-01T10:00:00.240Z",
    ms: 0,
  },
  {
    provider: "route-replicate",
    upstream_model: "black-forest-labs/flux-schnell",
    outcome: "succeeded",
    reason: null,
    started_at: "2026-05-01T10:00:00.241Z",
    ms: 1_200,
  },
];

test("a routed run lists the providers it tried on its run page and the ops run page", async ({ page, request }) => {
  const owner = newUser("owner");
  const key = newKey(owner.workspaceId);
  const started = await request.post("/v1/generations", {
    headers: { "x-api-key": key },
    data: { model: "atelier/gradient", input: { prompt: "a lighthouse at dusk, tried twice" } },
  });
  expect(started.status(), await started.text()).toBe(201);
  const id = ((await started.json()) as { id: string }).id;
  await expect.poll(async () => (await apiRun(request, key, id)).status, { timeout: 30_000 }).toBe("succeeded");

  // A run of one target: no list.
  await signInCookie(page, owner);
  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId("status-pill").first()).toHaveAttribute("data-status", "succeeded");
  await expect(page.getByTestId("run-attempts")).toHaveCount(0);

  const store = openStore({ databaseUrl: null, dataDir: STUDIO_DATA_DIR });
  try {
    await sql`update generations set route_attempts_json = ${JSON.stringify(ATTEMPTS)}, provider = 'route-replicate'
      where id = ${id}`.execute(store.db);
  } finally {
    await store.close();
  }

  const expectList = async () => {
    const list = page.getByRole("region", { name: "Providers tried" });
    await expect(list).toHaveAttribute("data-testid", "run-attempts");
    const items = list.getByRole("listitem");
    await expect(items).toHaveCount(3);
    await expect(items.nth(0)).toHaveAttribute("data-outcome", "failed");
    await expect(items.nth(0)).toContainText("route-fal");
    await expect(items.nth(0)).toContainText("(fal-ai/flux/dev)");
    await expect(items.nth(0)).toContainText("failed");
    await expect(items.nth(0)).toContainText("The provider answered 503 Service Unavailable.");
    await expect(items.nth(0)).toContainText("240 ms");
    await expect(items.nth(1)).toHaveAttribute("data-outcome", "skipped");
    await expect(items.nth(1)).toContainText("passed over");
    await expect(items.nth(1)).toContainText("out of service: HTTP 502");
    await expect(items.nth(2)).toHaveAttribute("data-outcome", "succeeded");
    await expect(items.nth(2)).toContainText("route-replicate");
    await expect(items.nth(2)).toContainText("1.2 s");
    await expect(page.getByTestId("run-attempt")).toHaveCount(3);
  };

  await page.reload();
  await expectList();
  await screenshot(page, "run-attempts");

  // The API's Generation names the provider that produced the output, and nothing of the others.
  const body = await (await request.get(`/v1/generations/${id}`, { headers: { "x-api-key": key } })).text();
  expect(body).toContain('"provider":"route-replicate"');
  expect(body).not.toContain("route-fal");
  expect(body).not.toContain("route_attempts");

  // An operator of the install sees it on the ops run page, read-only.
  await page.context().clearCookies();
  await signInCookie(page, newUser("ops"));
  await page.goto(`/ops/runs/${id}`);
  await expect(page.getByTestId("ops-run-workspace")).toContainText(owner.workspaceName);
  await expectList();
  await screenshot(page, "run-attempts-ops");
});
