// The Audit page: an owner's changes in the studio, a key's over the API and the admin CLI's are
// listed with who made them and what changed, filtered and paged; a creator and a viewer cannot
// open it; ops see every workspace's changes and the install's own.
import { expect, test, type Page } from "@playwright/test";
import { admin, newKey, newUser, screenshot, signIn } from "./helpers";

const rows = (page: Page) => page.getByTestId("audit-row");

test("an owner sees the workspace's changes with filters and pages; a creator and a viewer cannot open it", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const owner = newUser("owner");
  // The CLI: a key made and revoked, several times over, so the log takes more than one page.
  const keys = [1, 2, 3, 4].map(
    () => admin<{ id: string }>(["key", "create", "--workspace", owner.workspaceId, "--name", "rotated"]).id,
  );
  for (const id of keys) admin(["key", "revoke", id]);
  // A key over the API: a webhook endpoint whose URL carries the receiver's token.
  const key = newKey(owner.workspaceId);
  const hook = await request.post("/v1/webhooks", {
    headers: { "x-api-key": key },
    data: { url: "http://127.0.0.1:9/hooks/tok-studio-e2e", description: "deploy bot" },
  });
  expect(hook.status(), await hook.text()).toBe(201);

  await signIn(page, owner);
  // The owner in the studio: an invitation.
  await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Members" }).click();
  const invitee = `audited-${Date.now().toString(36)}@example.com`;
  await page.getByLabel("Email").fill(invitee);
  await page.getByLabel("Role", { exact: true }).selectOption("creator");
  await page.getByRole("button", { name: "Invite" }).click();
  await expect(page.getByTestId("invitation-row")).toContainText(invitee);

  await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit" })).toBeVisible();
  // Newest first: the invitation, by the owner from this machine.
  const invited = rows(page).first();
  await expect(invited).toContainText("member.invited");
  await expect(invited).toContainText(owner.email);
  await expect(invited).toContainText(invitee);
  // The connection's address: the browser reaches localhost over IPv6 or IPv4.
  await expect(invited.getByTestId("audit-ip")).toHaveText(/^from (127\.0\.0\.1|::1)$/);
  const webhook = rows(page).filter({ hasText: "webhook.created" });
  await expect(webhook).toContainText("Key “studio test”");
  await expect(webhook).toContainText("127.0.0.1:9");
  await expect(webhook).not.toContainText("tok-studio-e2e");
  // workspace.created, its credit, the owner added, 5 keys made, 4 revoked, the webhook, the invitation.
  await expect(rows(page)).toHaveCount(14);
  await expect(rows(page).filter({ hasText: "Admin CLI" })).toHaveCount(12);
  await screenshot(page, "audit");

  // Filters: one action, a family, who did it, a range of days.
  const filters = page.getByRole("form", { name: "Audit filters" });
  await filters.getByLabel("Action").selectOption("key.revoked");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/action=key.revoked/);
  await expect(rows(page)).toHaveCount(4);
  await page.getByRole("form", { name: "Audit filters" }).getByLabel("Action").selectOption("key");
  await page.getByRole("form", { name: "Audit filters" }).getByLabel("By").fill("cli");
  await page.getByRole("form", { name: "Audit filters" }).getByRole("button", { name: "Filter" }).click();
  await expect(rows(page)).toHaveCount(9);
  const today = new Date().toISOString().slice(0, 10);
  await page.goto(`/audit?from=${today}&to=${today}&action=member`);
  await expect(rows(page)).toHaveCount(2);
  await page.goto("/audit?from=2000-01-01&to=2000-01-31");
  await expect(page.getByText("No change matches these filters.")).toBeVisible();
  // A malformed filter in the URL is said in words, not a failed page.
  await page.goto("/audit?from=2026-02-30");
  await expect(page.getByRole("alert").filter({ hasText: "from is an RFC 3339 time" })).toBeVisible();

  // Pages of ten: forward and back again.
  await page.goto("/audit?limit=10");
  await expect(rows(page)).toHaveCount(10);
  await expect(page.getByTestId("page-number")).toHaveText("Page 1 · 10 changes");
  // The rows as text, less how long ago each was (that moves on while the test runs).
  // (A pattern cannot cut it off: "15:49" then "10 s ago" reads "15:4910 s ago".)
  const texts = () =>
    rows(page).evaluateAll((els) =>
      els.map((el) => {
        const row = el.cloneNode(true) as HTMLElement;
        for (const ago of row.querySelectorAll("[data-relative-time]")) ago.remove();
        return row.textContent ?? "";
      }),
    );
  const firstPage = await texts();
  await page.getByRole("link", { name: "Next →" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 2 · 4 changes");
  // The workspace and its opening credit came in one transaction, perhaps in one millisecond.
  await expect(rows(page).filter({ hasText: "workspace.created" })).toHaveCount(1);
  await screenshot(page, "audit-page-2");
  await page.getByRole("link", { name: "← Previous" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 1 · 10 changes");
  expect(await texts()).toEqual(firstPage);

  // A creator and a viewer: no link, and the page says who may open it, listing nothing.
  for (const role of ["creator", "viewer"] as const) {
    const them = newUser(role);
    const context = await browser.newContext();
    const theirs = await context.newPage();
    await signIn(theirs, them);
    await expect(theirs.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Audit" })).toHaveCount(
      0,
    );
    await theirs.goto("/audit");
    await expect(theirs.getByText(`You are a ${role} in this workspace.`)).toBeVisible();
    await expect(rows(theirs)).toHaveCount(0);
    await context.close();
  }
});

test("ops see every workspace's changes and the install's own, and narrow them to one", async ({ page }) => {
  const other = newUser("owner");
  const throwaway = newUser("viewer");
  admin(["credit", "add", "--workspace", other.workspaceId, "--usd", "3"]);
  admin(["user", "password", "--email", throwaway.email, "--password", "a-new-password-1"]);
  const operator = newUser("ops");
  await signIn(page, operator);
  await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("columnheader", { name: "Workspace" })).toBeVisible();
  await expect(rows(page).filter({ hasText: other.workspaceName }).first()).toBeVisible();

  const filters = page.getByRole("form", { name: "Audit filters" });
  await filters.getByLabel("Workspace").selectOption(other.workspaceId);
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(rows(page)).toHaveCount(4); // created, opening credit, its owner, the credit added
  for (const text of await rows(page).allTextContents()) expect(text).toContain(other.workspaceName);
  await expect(rows(page).first()).toContainText("credit.granted");

  await page.getByRole("form", { name: "Audit filters" }).getByLabel("Workspace").selectOption("install");
  await page.getByRole("form", { name: "Audit filters" }).getByLabel("Action").selectOption("user.password_reset");
  await page.getByRole("form", { name: "Audit filters" }).getByRole("button", { name: "Filter" }).click();
  const reset = rows(page).filter({ hasText: throwaway.email });
  await expect(reset).toHaveCount(1);
  await expect(reset).toContainText("The install");
  await expect(reset).not.toContainText("a-new-password-1");
  await screenshot(page, "audit-ops");
});
