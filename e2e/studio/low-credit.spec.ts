// The Budgets page's low-balance alert: an owner sets it (a bad amount is named under its field),
// a threshold over the balance fires credits.low at once (the server's webhook sender writes the
// event, read back over the API), and the alert is cleared and set again below the balance.
import { expect, test } from "@playwright/test";
import { newKey, newUser, screenshot, signInCookie } from "./helpers";

test("an owner sets the low balance alert, it fires over the balance, is cleared and set again", async ({
  page,
  request,
}) => {
  const owner = newUser("owner", "5");
  const key = newKey(owner.workspaceId);
  await signInCookie(page, owner);
  await page.goto("/budgets");
  const section = page.getByTestId("low-credit");
  const state = section.getByTestId("low-credit-state");
  await expect(state).toHaveText("No alert set. Available now: $5.00.");
  await expect(section.getByRole("button", { name: "Clear alert" })).toHaveCount(0);

  // Bad amounts: the core's message under the field, nothing saved.
  const form = section.getByRole("form", { name: "Set the low balance alert" });
  const amount = form.getByLabel("Alert under");
  for (const [typed, message] of [
    ["0", /\(to turn the alert off, clear it\); got "0"\.$/],
    ["-1", /^usd must be an amount in US dollars .* got "-1"\.$/],
    ["1.0000001", /at most 6 decimals/],
  ] as const) {
    await amount.fill(typed);
    await form.getByRole("button", { name: "Save alert" }).click();
    await expect(form.getByTestId("low-credit-error")).toHaveText(message);
    await expect(amount).toHaveAttribute("aria-invalid", "true");
  }
  await expect(state).toHaveText("No alert set. Available now: $5.00.");

  // Over the balance: under it at once, and one credits.low event.
  await amount.fill("6");
  await form.getByRole("button", { name: "Save alert" }).click();
  await expect(state).toHaveText("Alerting under $6.00: the balance is under it now. Available now: $5.00.");
  await expect(form.getByTestId("low-credit-error")).toHaveCount(0);
  const lowEvents = async () => {
    const res = await request.get("/v1/events?type=credits.low", { headers: { "x-api-key": key } });
    expect(res.status()).toBe(200);
    return ((await res.json()) as { data: { type: string; data: unknown }[] }).data;
  };
  await expect
    .poll(lowEvents)
    .toEqual([
      expect.objectContaining({ type: "credits.low", data: { available_usd: "5.00", threshold_usd: "6.00" } }),
    ]);
  const alerts = page.getByRole("status", { name: "Spending alerts" });
  await expect(alerts).toContainText("The available balance, $5.00, is under the low-balance alert of $6.00.");
  await screenshot(page, "budgets-low-credit");

  // Cleared, then set under the balance: armed, not under, no second event.
  await section.getByRole("button", { name: "Clear alert" }).click();
  await expect(state).toHaveText("No alert set. Available now: $5.00.");
  await expect(alerts).toHaveCount(0);
  await expect(amount).toHaveValue("");
  await amount.fill("2.5");
  await form.getByRole("button", { name: "Save alert" }).click();
  await expect(state).toHaveText("Alerting under $2.50. Available now: $5.00.");
  await page.reload();
  await expect(section.getByLabel("Alert under")).toHaveValue("2.50");
  expect(await lowEvents()).toHaveLength(1);
});
