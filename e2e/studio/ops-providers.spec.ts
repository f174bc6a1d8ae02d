// The ops Providers page (issue 37): operators only (anyone else gets a 404); an operator adds an
// openai-images provider with a pasted key against a local fake that lists models for that key
// only, tests its connection (and a wrong key's refusal), sees its outage and failed runs as the
// store records them (a passing test ends a recorded outage), edits its base URL (a bad one is the verb's message under the field) and
// removes it. The pasted key is never in the page again. Screenshots: ops-providers, ops-providers-phone.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { sql } from "kysely";
import { openStore } from "../../lib/store/store";
import { STUDIO_DATA_DIR } from "./playwright.config";
import { apiRun, newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

const KEY = "sk-fake-ops-providers-7f3a9c1e";
const MODELS = ["image-1", "image-2", "image-3"];

let fake: Server;
let base: string;

test.beforeAll(async () => {
  fake = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/v1/models") {
      if (req.headers.authorization !== `Bearer ${KEY}`) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "Incorrect API key provided.", type: "invalid_request_error" } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: MODELS.map((id) => ({ id, object: "model" })) }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => fake.close(resolve));
});

test("a member who does not operate the install gets a 404 on /ops/providers", async ({ page }) => {
  await signIn(page, newUser("creator"));
  expect((await page.goto("/ops/providers"))?.status()).toBe(404);
});

test("an operator adds, tests, edits and removes a provider with a pasted key", async ({ page, request }) => {
  const id = `fake-${Date.now().toString(36)}`;
  await signInCookie(page, newUser("ops"));
  await page.goto("/ops");
  await page.getByRole("link", { name: "Providers", exact: true }).click();
  await expect(page).toHaveURL(/\/ops\/providers$/);
  await expect(page.getByRole("heading", { level: 1, name: "Providers" })).toBeVisible();

  // Add: openai-images, the fake's address, a pasted key.
  const form = page.getByRole("form", { name: "Add a provider" });
  await form.getByLabel("Kind", { exact: true }).selectOption("openai-images");
  await form.getByLabel("ID").fill(id);
  await form.getByLabel(/Base URL/).fill(base);
  await form.getByLabel(/Call timeout/).fill("5000");
  await form.getByLabel("Paste the key").check();
  await form.getByLabel("API key", { exact: true }).fill(KEY);
  await form.getByRole("button", { name: "Add provider" }).click();
  // The add's result tests the connection at once.
  await expect(page.getByTestId("provider-saved")).toContainText(`Added ${id} (key: secret set)`);
  await expect(page.getByTestId("provider-saved-check")).toContainText(`${MODELS.length} models`);
  const card = page.getByRole("listitem", { name: `Provider ${id}` });
  await expect(card).toContainText("openai-images");
  await expect(card).toContainText(base);
  await expect(card.getByTestId("provider-credential")).toHaveText("secret set");
  await expect(card).toContainText("0 published, 0 drafts");
  await expect(card.getByTestId("provider-health")).toHaveText("In service");
  // The key went in and never came back: not in the page, nor in a reload's HTML and RSC payload.
  expect(await page.content()).not.toContain(KEY);
  await page.reload();
  expect(await page.content()).not.toContain(KEY);

  // Test connection from the card.
  await card.getByRole("button", { name: "Test connection" }).click();
  await expect(card.getByTestId("provider-check")).toContainText(`Connected: ${MODELS.length} models`);

  // A wrong key: the fake refuses it, and the page says so without either key.
  await card.getByRole("button", { name: "Edit" }).click();
  const editForm = page.getByRole("form", { name: `Edit ${id}` });
  await expect(editForm.getByLabel("ID")).toHaveValue(id);
  await expect(editForm.getByLabel(/Base URL/)).toHaveValue(base);
  await expect(editForm.getByLabel("Keep the stored key")).toBeChecked();
  await expect(editForm.getByLabel("No key (remove the pasted key)")).toBeVisible();
  await editForm.getByLabel("Paste a new key").check();
  await editForm.getByLabel("API key", { exact: true }).fill("sk-wrong-key-0000");
  await editForm.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByTestId("provider-saved-check")).toContainText("Not connected");
  await expect(page.getByTestId("provider-saved-check")).not.toContainText("sk-wrong-key-0000");
  await expect(page.getByTestId("provider-saved-check")).toContainText(
    `The provider ${id} refused this server's credentials (HTTP 401)`,
  );
  expect(await page.content()).not.toContain("sk-wrong-key-0000");

  // Back to the right key; then a bad base URL is the verb's message under the field.
  await card.getByRole("button", { name: "Edit" }).click();
  await editForm.getByLabel("Paste a new key").check();
  await editForm.getByLabel("API key", { exact: true }).fill(KEY);
  await editForm.getByLabel(/Base URL/).fill("ftp://files.example");
  await editForm.getByRole("button", { name: "Save changes" }).click();
  await expect(editForm.getByTestId("provider-error-base_url")).toContainText("must start with http:// or https://");
  await expect(editForm.getByLabel(/Base URL/)).toHaveAttribute("aria-invalid", "true");

  // A good one: the base URL changes (with a trailing slash, which the parser drops when it runs).
  await editForm.getByLabel(/Base URL/).fill(`${base}/`);
  await editForm.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByTestId("provider-saved")).toContainText(`Saved ${id} (key: secret set)`);
  await expect(page.getByTestId("provider-saved-check")).toContainText(`${MODELS.length} models`);
  await expect(card).toContainText(`${base}/`);
  expect(await page.content()).not.toContain(KEY);

  // Health as the store records it: an outage some process wrote, and a failed run through it.
  const owner = newUser("owner");
  const key = newKey(owner.workspaceId);
  const started = await request.post("/v1/generations", {
    headers: { "x-api-key": key },
    data: { model: "atelier/gradient", input: { prompt: "a zebracorn for the providers page" } },
  });
  const runId = ((await started.json()) as { id: string }).id;
  await expect.poll(async () => (await apiRun(request, key, runId)).status, { timeout: 30_000 }).toBe("failed");
  const until = new Date(Date.now() + 10 * 60_000).toISOString();
  const store = openStore({ databaseUrl: null, dataDir: STUDIO_DATA_DIR });
  try {
    await sql`update generations set provider = ${id}, model = ${`${id}/image-1`} where id = ${runId}`.execute(
      store.db,
    );
    await sql`insert into provider_outages (provider_id, down_until, reason, updated_at)
      values (${id}, ${until}, 'HTTP 502', ${new Date().toISOString()})`.execute(store.db);
  } finally {
    await store.close();
  }
  await page.reload();
  await expect(card.getByTestId("provider-health")).toHaveText("Out of service");
  await expect(card).toContainText(`Until ${until.slice(0, 16).replace("T", " ")} UTC`);
  await expect(card).toContainText("HTTP 502");
  await card.getByText("Recent failures").click();
  const failure = card.getByRole("link", { name: runId });
  await expect(failure).toHaveAttribute("href", `/ops/runs/${runId}`);
  await expect(card).toContainText(`${id}/image-1`);
  await screenshot(page, "ops-providers");
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "ops-providers-phone");
  await page.setViewportSize({ width: 1280, height: 800 });
  // A new adapter checks, so the recorded outage does not stop the test; a pass ends the outage.
  await card.getByRole("button", { name: "Test connection" }).click();
  await expect(card.getByTestId("provider-check")).toContainText(`Connected: ${MODELS.length} models`);
  await expect(card.getByTestId("provider-health")).toHaveText("In service");
  await page.reload();
  await expect(card.getByTestId("provider-health")).toHaveText("In service");

  // Remove, with a confirmation naming its entries.
  await card.getByRole("button", { name: "Remove" }).click();
  await expect(card).toContainText(`Remove ${id} and its 0 entries?`);
  await card.getByRole("button", { name: "Yes, remove" }).click();
  await expect(page.getByText(`Removed ${id} and its 0 entries.`)).toBeVisible();
  await expect(page.getByRole("listitem", { name: `Provider ${id}` })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("listitem", { name: `Provider ${id}` })).toHaveCount(0);
});
