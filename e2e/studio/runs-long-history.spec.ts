// A long history in the studio: a page reads a bounded stretch of runs, so a rare filter can meet
// a stretch without a match; the page says so and links further back, where the matches are.
import { expect, test } from "@playwright/test";
import { sql } from "kysely";
import { openStore } from "../../lib/store/store";
import { seedHistory } from "../../lib/core/testing/history-seed";
import { PAGE_SCAN_BOUND } from "../../lib/core/runs/history-query";
import { STUDIO_DATA_DIR } from "./playwright.config";
import { newUser, screenshot, signInCookie } from "./helpers";

test("a rare filter over a long history: a stretch without a match links further back", async ({ page }) => {
  const user = newUser("owner", "5");
  const store = openStore({ databaseUrl: null, dataDir: STUDIO_DATA_DIR });
  const day = 86_400_000;
  try {
    // Old runs with a few failures, then more than a page's stretch of newer runs that all succeeded.
    await seedHistory(store.db, {
      workspaceId: user.workspaceId,
      runs: 50,
      tag: "old",
      newest: new Date(Date.now() - 10 * day),
      days: 5,
    });
    // Days old: the studio's store is shared, and runs newer than another test's would push its
    // run out of the ops page's newest runs.
    await seedHistory(store.db, {
      workspaceId: user.workspaceId,
      runs: PAGE_SCAN_BOUND + 100,
      tag: "new",
      newest: new Date(Date.now() - 2 * day),
      days: 5,
    });
    await sql`update generations set status = 'succeeded', error_message = null
      where workspace_id = ${user.workspaceId} and id like 'gen_new%'`.execute(store.db);
  } finally {
    await store.close();
  }
  await signInCookie(page, user);
  await page.goto("/runs?status=failed,canceled");
  const stretch = page.getByTestId("stretch-without-match");
  await expect(stretch).toContainText("No run in this stretch of the history matches these filters");
  await expect(page.getByTestId("run-row")).toHaveCount(0);
  await screenshot(page, "runs-stretch-without-match");
  await stretch.getByRole("link", { name: "look further back" }).click();
  // The old runs' two failures and one cancel (the seed's 2 % and 1 %).
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId("page-number")).toContainText("Page 2");
});
