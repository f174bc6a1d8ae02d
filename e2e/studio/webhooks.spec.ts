// Webhooks in the studio: an endpoint made in the page (with the core's field error for a bad URL),
// a run's event arriving at a local receiver (a 500 first, then accepted on the retry) and shown
// with its attempts, resend, the run page's deliveries, edit, disable, delete, and the secret.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { newKey, newUser, screenshot, signIn } from "./helpers";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on a free port: answers 500 to the first request, then 200. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (received.length === 1) {
        res.writeHead(500, { "content-type": "text/plain" }).end("warming up, try again");
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/atelier-hook`, received };
}

test("endpoints, deliveries with attempts, resend, run page, disable, delete, rotate the secret", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    const user = newUser("owner");
    const key = newKey(user.workspaceId);
    await signIn(page, user);
    await page.getByRole("navigation", { name: "Studio" }).getByRole("link", { name: "Webhooks" }).click();
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    await expect(page.getByText("No endpoints yet")).toBeVisible();
    await expect(page.getByText("No events yet.")).toBeVisible();

    // A bad URL: the core's message, under the URL field, which gets the focus.
    await page.getByRole("button", { name: "Add your first endpoint" }).click();
    const form = page.getByRole("form", { name: "Add endpoint" });
    const url = form.getByLabel("URL");
    await url.fill("not a url");
    await form.getByRole("button", { name: "Add endpoint" }).click();
    await expect(form.getByText(/url must be an absolute https:\/\/ URL/)).toBeVisible();
    await expect(url).toHaveAttribute("aria-invalid", "true");
    await expect(url).toBeFocused();

    await url.fill(receiver.url);
    await form.getByLabel("Description").fill("Local receiver");
    await form.getByRole("checkbox", { name: /generation\.succeeded/ }).check();
    await form.getByRole("button", { name: "Add endpoint" }).click();
    const endpoint = page.getByTestId("endpoint").filter({ hasText: receiver.url });
    await expect(endpoint).toBeVisible();
    await expect(endpoint.getByTestId("endpoint-state")).toHaveText("Enabled");
    await expect(endpoint).toContainText("generation.succeeded");
    await expect(endpoint).toContainText("Local receiver");

    // A run through the API: its event reaches the receiver (500, then 200 on the retry).
    const res = await request.post("/v1/generations", {
      headers: { "x-api-key": key },
      data: { model: "atelier/gradient", input: { prompt: "webhook dusk" } },
    });
    expect(res.status(), await res.text()).toBe(201);
    const runId = ((await res.json()) as { id: string }).id;
    await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const first = receiver.received[0]!;
    const payload = JSON.parse(first.body) as { type: string; data: { id: string } };
    expect(payload).toMatchObject({ type: "generation.succeeded", data: { id: runId } });
    const eventId = first.headers["webhook-id"] as string;
    expect(receiver.received[1]!.headers["webhook-id"]).toBe(eventId);

    const event = page.getByTestId("event").filter({ hasText: runId });
    await expect(async () => {
      await page.reload();
      await expect(event.getByTestId("delivery")).toHaveAttribute("data-status", "succeeded", { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await expect(event.getByTestId("event-type")).toHaveText("generation.succeeded");
    const attempts = event.getByTestId("attempt");
    await expect(attempts).toHaveCount(2);
    await expect(attempts.nth(0)).toContainText("HTTP 500");
    await expect(attempts.nth(1)).toContainText("HTTP 200");
    await expect(event.getByRole("link", { name: new RegExp(runId) })).toHaveAttribute("href", `/runs/${runId}`);

    // The revealed secret verifies what the receiver got.
    const secretBox = page.getByTestId("webhook-secret");
    await expect(secretBox).toHaveText(/^whsec_•+$/);
    await page.getByRole("button", { name: "Reveal" }).click();
    await expect(secretBox).toHaveText(/^whsec_[A-Za-z0-9+/=]+$/);
    const secret = (await secretBox.textContent())!;
    expect(() =>
      new Webhook(secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers as Record<string, string>),
    ).not.toThrow();
    await page.getByRole("button", { name: "Hide" }).click();
    await expect(secretBox).toHaveText(/^whsec_•+$/);
    await endpoint.getByText("Recent deliveries").click();
    await expect(endpoint.getByTestId("delivery")).toHaveCount(1);
    await screenshot(page, "webhooks");

    // Resend: a new delivery of the same event, with the same webhook-id.
    await event.getByRole("button", { name: `Resend ${eventId} to ${receiver.url}` }).click();
    await expect(event.getByRole("status").filter({ hasText: "Sent again." })).toBeVisible();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(3);
    expect(receiver.received[2]!.headers["webhook-id"]).toBe(eventId);
    await expect(async () => {
      await page.reload();
      await expect(event.getByTestId("delivery")).toHaveCount(2, { timeout: 1_000 });
      await expect(event.locator('[data-testid="delivery"][data-status="succeeded"]')).toHaveCount(2, {
        timeout: 1_000,
      });
    }).toPass({ timeout: 20_000 });

    // The run page shows the event and where it went.
    await event.getByRole("link", { name: new RegExp(runId) }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
    const section = page.getByTestId("run-webhooks");
    await expect(section.getByRole("heading", { name: "Webhook deliveries" })).toBeVisible();
    await expect(section.getByTestId("run-event-id")).toHaveText(eventId);
    await expect(section.getByTestId("delivery")).toHaveCount(2);
    await expect(section.getByTestId("delivery").first()).toContainText(receiver.url);
    await expect(section.getByText("HTTP 200").first()).toBeVisible();
    await expect(section.getByText("HTTP 500")).toBeVisible();
    await expect(page.getByTestId("run-view").getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded");
    await screenshot(page, "run-webhooks");

    // Edit, disable, enable, delete (Escape cancels the confirmation).
    await page.goto("/webhooks");
    await endpoint.getByRole("button", { name: `Edit ${receiver.url}` }).click();
    const edit = page.getByRole("form", { name: `Edit endpoint ${receiver.url}` });
    await edit.getByLabel("Description").fill("Renamed receiver");
    await edit.getByRole("checkbox", { name: /generation\.failed/ }).check();
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(endpoint).toContainText("Renamed receiver");
    await expect(endpoint).toContainText("generation.failed");

    await endpoint.getByRole("button", { name: `Disable ${receiver.url}` }).click();
    await expect(endpoint.getByTestId("endpoint-state")).toHaveText("Disabled");
    await endpoint.getByRole("button", { name: `Enable ${receiver.url}` }).click();
    await expect(endpoint.getByTestId("endpoint-state")).toHaveText("Enabled");
    await endpoint.getByRole("button", { name: `Disable ${receiver.url}` }).click();
    await expect(endpoint.getByTestId("endpoint-state")).toHaveText("Disabled");

    await endpoint.getByRole("button", { name: `Delete ${receiver.url}` }).click();
    const confirmDelete = page.getByRole("dialog", { name: "Delete this endpoint?" });
    await expect(confirmDelete).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(confirmDelete).toBeHidden();
    await expect(endpoint).toBeVisible();
    await endpoint.getByRole("button", { name: `Delete ${receiver.url}` }).click();
    await confirmDelete.getByRole("button", { name: "Delete endpoint" }).click();
    await expect(endpoint).toHaveCount(0);
    await expect(page.getByText("No endpoints yet")).toBeVisible();
    // Its past deliveries stay listed under the event, without a resend to the deleted endpoint.
    await expect(event.getByText("endpoint deleted").first()).toBeVisible();
    await expect(event.getByRole("button", { name: `Resend ${eventId} to ${receiver.url}` })).toHaveCount(0);

    // Rotate: the dialog says the old secret keeps signing for the overlap; a new secret is shown.
    await page.getByRole("button", { name: "Reveal" }).click();
    await expect(secretBox).toHaveText(secret);
    await page.getByRole("button", { name: "Rotate…" }).click();
    const confirmRotate = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await expect(confirmRotate).toContainText("keeps signing too for 24 hours");
    await confirmRotate.getByRole("button", { name: "Rotate secret" }).click();
    await expect(confirmRotate).toBeHidden();
    await expect(page.getByText(/^Rotated\./)).toBeVisible();
    await expect(page.getByTestId("previous-secret")).toContainText("overlap ends in 24 h");
    await page.getByRole("button", { name: "Reveal" }).click();
    await expect(secretBox).toHaveText(/^whsec_/);
    expect(await secretBox.textContent()).not.toBe(secret);

    // On a phone the page stacks.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
    await screenshot(page, "webhooks-phone");
  } finally {
    await new Promise((resolve) => receiver.server.close(resolve));
  }
});
