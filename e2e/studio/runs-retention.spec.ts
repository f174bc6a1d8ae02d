// Output retention as a user meets it: a run whose outputs the retention deleted keeps its page
// and its share link, which say when and why the outputs went, and link to no blob.
import { expect, test } from "@playwright/test";
import { sql } from "kysely";
import { localBlobStore } from "../../lib/blobs/blob-store";
import { purgeOldOutputs } from "../../lib/core/runs/output-retention";
import { openStore } from "../../lib/store/store";
import { STUDIO_DATA_DIR } from "./playwright.config";
import { newKey, newUser, screenshot, signInCookie, startRun, waitFinal } from "./helpers";

const YEAR_MS = 365 * 86_400_000;

test("a run past the retention: its page and share link say the outputs were deleted", async ({ page, request }) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  const headers = { "x-api-key": key };
  const id = await startRun(request, key, "atelier/gradient", { prompt: "kept a while, then let go" });
  expect(await waitFinal(request, key, id)).toBe("succeeded");
  const kept = (await (await request.get(`/v1/generations/${id}`, { headers })).json()) as {
    output: { url: string }[];
  };
  expect(kept.output.length).toBeGreaterThan(0);
  // A share link, made on the run page while the outputs are there.
  await signInCookie(page, user);
  await page.goto(`/runs/${id}`);
  const panel = page.getByTestId("share-panel");
  await panel.getByRole("button", { name: "Create link" }).click();
  await expect(panel.getByTestId("share-url")).toHaveValue(/\/s\/[0-9A-Za-z]{24}\.[0-9A-Za-z_-]{22}$/);
  const shareUrl = await panel.getByTestId("share-url").inputValue();

  const store = openStore({ databaseUrl: null, dataDir: STUDIO_DATA_DIR });
  try {
    // Twenty years back: no other test's run is that old (the studio's store is shared), so a
    // ten-year retention purges this run alone.
    const run = await store.db
      .selectFrom("generations")
      .select(["created_at", "started_at", "completed_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const back = (iso: string) => new Date(Date.parse(iso) - 20 * YEAR_MS).toISOString();
    await sql`update generations set created_at = ${back(run.created_at)}, started_at = ${back(run.started_at!)},
      completed_at = ${back(run.completed_at!)} where id = ${id}`.execute(store.db);
    const purged = await purgeOldOutputs(
      { db: store.db, blobs: localBlobStore(STUDIO_DATA_DIR) },
      { olderThanDays: 10 * 365 },
    );
    expect(purged.runs).toBe(1);
  } finally {
    await store.close();
  }

  const after = (await (await request.get(`/v1/generations/${id}`, { headers })).json()) as {
    status: string;
    output: unknown[];
    outputs_purged_at: string | null;
  };
  expect(after).toMatchObject({ status: "succeeded", output: [] });
  expect(after.outputs_purged_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  // The blob itself is gone.
  expect((await request.get(kept.output[0]!.url)).status()).toBe(404);

  await page.goto(`/runs/${id}`);
  const note = page.getByTestId("outputs-purged");
  await expect(note).toContainText(`deleted on ${after.outputs_purged_at!.slice(0, 10)}`);
  await expect(note).toContainText("OUTPUT_RETENTION_DAYS");
  await expect(page.locator('img[src*="/v1/blobs/"], a[href*="/v1/blobs/"]')).toHaveCount(0);
  // The run's own figures are as they were.
  await expect(page.getByTestId("run-view").getByText("Took", { exact: true })).toBeVisible();
  await expect(page.getByText(/-\d+ ms/)).toHaveCount(0);
  await screenshot(page, "run-outputs-purged");

  await page.goto(shareUrl);
  await expect(page.getByTestId("shared-outputs-purged")).toBeVisible();
  await expect(page.locator('img[src*="/v1/blobs/"], a[href*="/v1/blobs/"]')).toHaveCount(0);
  await screenshot(page, "share-outputs-purged");
});
