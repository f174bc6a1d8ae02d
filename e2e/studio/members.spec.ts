// Organisations in the studio: an owner invites by email (mailed through a real SMTP server the
// test starts), the invitee opens the mailed link in another browser, sets a name and password and
// lands in the workspace as a viewer who cannot spend; role changes and removal end their
// sessions at once; a person in two workspaces switches between them.
import { expect, test } from "@playwright/test";
import { linkIn, startSmtpCatcher } from "../../lib/boot/testing/smtp-catcher";
import { admin, newUser, screenshot, signIn, signInCookie, startRun } from "./helpers";
import { STUDIO_SMTP_PORT } from "./playwright.config";

test("invite by mail, accept as a new person, viewer limits, role change and removal end sessions", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const smtp = await startSmtpCatcher(STUDIO_SMTP_PORT);
  try {
    const owner = newUser("owner");
    await signIn(page, owner);
    await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Members" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Members" })).toBeVisible();
    const email = `invitee-${Date.now().toString(36)}@example.com`;
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    const shown = page.getByTestId("invite-link");
    await expect(shown).toContainText(`Mailed to ${email}`);
    const link = (await shown.locator("code").textContent())!;
    await expect(page.getByTestId("invitation-row")).toContainText(email);
    await screenshot(page, "members-invited");

    // The mail arrived, with the same link.
    await expect.poll(() => smtp.mails.filter((m) => m.to.includes(email)).length).toBe(1);
    const mailed = linkIn(smtp.mails.find((m) => m.to.includes(email))!);
    expect(mailed).toBe(link);

    const theirs = await browser.newContext();
    const invitee = await theirs.newPage();
    await invitee.goto(new URL(mailed!).pathname);
    await expect(invitee.getByRole("heading", { name: `Join ${owner.workspaceName}` })).toBeVisible();
    await invitee.getByLabel("Your name").fill("Ada Viewer");
    await invitee.getByLabel("Password").fill("short");
    await invitee.getByRole("button", { name: "Create my account and join" }).click();
    await expect(invitee.getByText("at least 8 characters")).toBeVisible();
    await invitee.getByLabel("Password").fill("invitee-pass-1");
    await invitee.getByRole("button", { name: "Create my account and join" }).click();
    await expect(invitee).toHaveURL(/\/catalog$/);
    const nav = invitee.getByRole("navigation", { name: "Studio" });
    await expect(nav.getByRole("link", { name: "Runs" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Members" })).toHaveCount(0);
    await expect(nav.getByRole("link", { name: "Webhooks" })).toHaveCount(0);
    // A viewer cannot start a run: the form says why, and the button stays off.
    await invitee.goto("/catalog/atelier/gradient");
    await expect(invitee.getByText("You are a viewer in this workspace")).toBeVisible();
    await expect(invitee.getByRole("button", { name: /^Run/ })).toBeDisabled();
    await screenshot(invitee, "members-viewer-model");

    // The link is used up: a second visit reads the one plain message.
    const again = await browser.newContext();
    const late = await again.newPage();
    await late.goto(new URL(mailed!).pathname);
    await expect(late.getByText("can no longer be used")).toBeVisible();
    await again.close();

    // The owner makes them a creator: their session ends at once.
    await page.reload();
    const row = page.getByTestId("member-row").filter({ hasText: email });
    await expect(row).toContainText(/\d{4}-\d{2}-\d{2}/);
    await row.getByLabel(`Role of ${email}`).selectOption("creator");
    await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("creator");
    await invitee.goto("/runs");
    await expect(invitee).toHaveURL(/\/sign-in/);
    await signInCookie(invitee, { email, password: "invitee-pass-1" });
    await invitee.goto("/catalog/atelier/gradient");
    await expect(invitee.getByText("You are a viewer in this workspace")).toHaveCount(0);

    // Removed: signed out at once, and signing in again finds no workspace.
    await row.getByRole("button", { name: `Remove ${email}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
    await expect(page.getByTestId("member-row").filter({ hasText: email })).toHaveCount(0);
    await invitee.goto("/runs");
    await expect(invitee).toHaveURL(/\/sign-in/);
    await screenshot(page, "members");
    await theirs.close();
  } finally {
    await smtp.stop();
  }
});

test("a person in two workspaces switches between them; other tabs are covered until reloaded", async ({ page }) => {
  const user = newUser("creator");
  const second = newUser("owner");
  admin(["member", "add", "--workspace", second.workspaceId, "--email", user.email, "--role", "viewer"]);
  await signIn(page, user);
  const menu = page.getByLabel("Workspace");
  await expect(menu).toHaveValue(user.workspaceId);
  const other = await page.context().newPage();
  await other.goto("/runs");
  await menu.selectOption(second.workspaceId);
  await expect(page).toHaveURL(/\/catalog$/);
  await expect(page.getByLabel("Workspace")).toHaveValue(second.workspaceId);
  await expect(page.getByText("viewer", { exact: true })).toBeVisible();
  // The other tab showed the first workspace: it is covered, and its button opens the second.
  const covered = other.getByRole("alertdialog");
  await expect(covered).toContainText(second.workspaceName);
  await screenshot(other, "workspace-switched-elsewhere", { fullPage: false });
  await covered.getByRole("button", { name: `Open ${second.workspaceName}` }).click();
  await expect(other.getByLabel("Workspace")).toHaveValue(second.workspaceId);
  // A workspace that is not theirs cannot be switched to, even by a forged call.
  await expect(page.getByLabel("Workspace").locator("option")).toHaveCount(2);
});

test("ops make a workspace from the studio; whoever accepts its invitation is its owner", async ({ page, browser }) => {
  await signInCookie(page, newUser("ops"));
  await page.goto("/ops");
  const form = page.getByRole("form", { name: "New workspace" });
  const name = `Launch ${Date.now().toString(36)}`;
  const email = `lead-${Date.now().toString(36)}@example.com`;
  await form.getByLabel("Workspace name").fill(name);
  await form.getByLabel("First owner's email").fill(email);
  await form.getByRole("button", { name: "Make workspace" }).click();
  await expect(form.getByRole("status")).toContainText(`Made ${name}`);
  const link = (await form.getByTestId("owner-invite-link").textContent())!;
  const theirs = await browser.newContext();
  const lead = await theirs.newPage();
  await lead.goto(new URL(link).pathname);
  await expect(lead.getByText("invited as an owner")).toBeVisible();
  await lead.getByLabel("Your name").fill("Lead");
  await lead.getByLabel("Password").fill("lead-pass-12");
  await lead.getByRole("button", { name: "Create my account and join" }).click();
  await expect(lead).toHaveURL(/\/catalog$/);
  await expect(lead.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Members" })).toBeVisible();
  await expect(lead.getByText(name).first()).toBeVisible();
  await theirs.close();
});

test("runs are filtered by who started them: a member or an API key", async ({ page, request }) => {
  const owner = newUser("owner");
  const first = admin<{ id: string; key: string }>([
    "key",
    "create",
    "--workspace",
    owner.workspaceId,
    "--name",
    "first bot",
  ]);
  const second = admin<{ id: string; key: string }>([
    "key",
    "create",
    "--workspace",
    owner.workspaceId,
    "--name",
    "second bot",
  ]);
  await startRun(request, first.key, "atelier/gradient", { prompt: "from the first bot" });
  await startRun(request, second.key, "atelier/gradient", { prompt: "from the second bot" });
  await signInCookie(page, owner);
  await page.goto("/runs");
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(2);
  await page.getByLabel("Started by").selectOption(first.id);
  await expect(page).toHaveURL(new RegExp(`by=${first.id}`));
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText("from the first bot");
  // A starter that cannot be one is a plain message, not an error page.
  await page.goto("/runs?by=usr_%00x");
  await expect(page.getByText("Started by is a member")).toBeVisible();
});
