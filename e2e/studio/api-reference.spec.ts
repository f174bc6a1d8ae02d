// The public API reference (/docs/api): the server's own GET /v1/openapi.json drawn by Scalar,
// signed out, with every request the page makes staying on this server; its operations, code
// samples (x-codeSamples) and webhooks; light on a desktop and dark on a phone; the error state;
// and the links to it from the error codes page and the API keys page.
import { expect, test, type Page } from "@playwright/test";
import { STUDIO_URL } from "./playwright.config";
import { newUser, screenshot, signInCookie } from "./helpers";

/** Every URL the page asks for, from now on. */
function requestsOf(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (req) => urls.push(req.url()));
  return urls;
}

/** What left this origin: nothing may (data: and blob: URLs never leave the browser). */
function foreign(urls: string[]): string[] {
  return urls.filter(
    (url) => !url.startsWith(`${STUDIO_URL}/`) && !url.startsWith("data:") && !url.startsWith("blob:"),
  );
}

interface OpenApiDocument {
  info: { title: string };
  paths: Record<
    string,
    Record<string, { summary: string; "x-codeSamples"?: Array<{ lang: string; label: string; source: string }> }>
  >;
  webhooks: Record<string, { post: { summary: string } }>;
}

/** The first page of the reference takes a while on a busy 2-core machine: Scalar parses the whole document. */
const RENDER = { timeout: 30_000 };

test("signed out, /docs/api draws the server's OpenAPI document and asks nothing of any other origin", async ({
  page,
  request,
}) => {
  const docRes = await request.get("/v1/openapi.json");
  expect(docRes.status(), await docRes.text()).toBe(200);
  const doc = (await docRes.json()) as OpenApiDocument;
  expect(doc.info.title).toBe("Atelier API");
  const start = doc.paths["/v1/generations"]!.post!;
  const curl = start["x-codeSamples"]!.find((s) => s.label === "curl")!;
  const webhook = Object.values(doc.webhooks)[0]!.post;

  const urls = requestsOf(page);
  const loaded = page.waitForResponse((res) => res.url() === `${STUDIO_URL}/v1/openapi.json`);
  const res = await page.goto("/docs/api");
  expect(res?.status()).toBe(200);
  await expect(page).toHaveTitle("API reference · Atelier");
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  // The page reads the document from this server, as any client would.
  expect((await loaded).status()).toBe(200);
  await expect(page.getByRole("heading", { name: doc.info.title })).toBeVisible(RENDER);
  await expect(page.getByRole("link", { name: "OpenAPI document (JSON)" })).toHaveAttribute("href", "/v1/openapi.json");
  // No toggle, request client or agent of Scalar's own: colours follow the system, and nothing offers to send requests elsewhere.
  await expect(page.getByRole("button", { name: /dark mode|light mode/i })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /test request/i })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /ask ai|agent/i })).toHaveCount(0);
  await screenshot(page, "api-reference", { fullPage: false });

  // An operation with its path and the document's own curl sample.
  const sidebar = page.getByRole("complementary", { name: `Sidebar for ${doc.info.title}` });
  await sidebar.getByRole("link", { name: "Generations", exact: true }).click();
  await sidebar.getByRole("link", { name: new RegExp(`^${start.summary} HTTP Method: POST$`) }).click();
  const operation = page
    .locator("section")
    .filter({ has: page.getByRole("heading", { name: start.summary, exact: true }) })
    .last();
  await expect(operation.getByRole("heading", { name: start.summary, exact: true })).toBeVisible();
  await expect(operation.getByText("/v1/generations", { exact: true }).first()).toBeVisible();
  await expect(
    operation.getByText(curl.source.split("\n")[0]!.replace(/ \\$/, ""), { exact: false }).first(),
  ).toBeVisible();
  // Its samples are the document's x-codeSamples: curl and the TypeScript SDK.
  // Scalar's menu can drop a click that lands while it is still opening on a busy machine: the
  // menu is opened and the SDK picked again until the SDK's sample shows.
  await expect(async () => {
    await operation
      .getByRole("button", { name: /curl|SDK/ })
      .first()
      .click();
    await page.getByRole("option", { name: "SDK" }).click({ timeout: 5_000 });
    await expect(operation.getByText("@atelier/sdk", { exact: false }).first()).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 30_000 });
  await screenshot(page, "api-reference-operation", { fullPage: false });

  // The webhooks Atelier sends (OpenAPI 3.1 `webhooks`).
  await sidebar.getByRole("link", { name: "Webhook events", exact: true }).click();
  await expect(page.getByRole("heading", { name: webhook.summary, exact: true })).toBeVisible();

  expect(urls).toContain(`${STUDIO_URL}/v1/openapi.json`);
  expect(foreign(urls)).toEqual([]);
});

test("on a phone in dark mode the reference fits the screen and follows the system's colours", async ({ browser }) => {
  const context = await browser.newContext({
    baseURL: STUDIO_URL,
    viewport: { width: 390, height: 844 },
    colorScheme: "dark",
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  const urls = requestsOf(page);
  await page.goto("/docs/api");
  await expect(page.getByRole("heading", { name: "Atelier API" })).toBeVisible(RENDER);
  await expect(page.locator("body")).toHaveClass(/dark-mode/);
  // The studio's dark page colour, not Scalar's, and nothing wider than the phone.
  const colours = await page.evaluate(() => {
    const probe = document.createElement("div");
    probe.className = "bg-zinc-50";
    document.body.append(probe);
    const studio = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return { body: getComputedStyle(document.body).backgroundColor, studio };
  });
  expect(colours.body).toBe(colours.studio);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await screenshot(page, "api-reference-phone-dark", { fullPage: false });

  // The sections are a menu away.
  await page.getByRole("button", { name: /open menu/i }).click();
  await expect(
    page
      .getByRole("complementary", { name: "Sidebar for Atelier API" })
      .getByRole("link", { name: "Webhook events", exact: true }),
  ).toBeVisible();
  await screenshot(page, "api-reference-phone-dark-menu", { fullPage: false });
  expect(foreign(urls)).toEqual([]);
  await context.close();
});

test("when the document cannot be read the page says so, with the request id, and tries again", async ({ page }) => {
  // The one made-up answer here: a failing server, to see the error state.
  let failing = true;
  await page.route("**/v1/openapi.json", (route) =>
    failing
      ? route.fulfill({
          status: 503,
          contentType: "application/json",
          body: JSON.stringify({
            error: {
              type: "api_error",
              code: "service_unavailable",
              message: "The service is starting.",
              param: null,
              doc_url: null,
              request_id: "req_test503",
            },
          }),
        })
      : route.continue(),
  );
  await page.goto("/docs/api");
  const alert = page.getByRole("alert").filter({ hasText: "could not be loaded" });
  await expect(alert).toContainText("The service is starting.");
  await expect(alert.getByTestId("error-reference")).toContainText("req_test503");
  failing = false;
  await alert.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByRole("heading", { name: "Atelier API" })).toBeVisible(RENDER);
});

test("the error codes page and the API keys page link to the reference", async ({ page }) => {
  await page.goto("/docs/errors");
  await page.getByRole("link", { name: "Full API reference" }).click();
  await expect(page).toHaveURL(/\/docs\/api(#.*)?$/);
  await expect(page.getByRole("heading", { name: "Atelier API" })).toBeVisible(RENDER);
  // Back in the studio, the page colour is the studio's again (Scalar's stylesheet stays loaded).
  await page.getByRole("link", { name: "Error codes" }).click();
  await expect(page).toHaveURL(/\/docs\/errors$/);
  await expect(page.locator("body")).not.toHaveClass(/(light|dark)-mode/);

  await signInCookie(page, newUser("owner"));
  await page.goto("/keys");
  await expect(page.getByRole("link", { name: "API reference" })).toHaveAttribute("href", "/docs/api");
  // After a key is made, the dialog points to the reference in a new tab (leaving would lose the key).
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog", { name: "Create key" });
  await dialog.getByLabel("Name").fill("reference reader");
  await dialog.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("dialog", { name: "Your new API key" });
  await expect(shown.getByTestId("new-key")).toBeVisible();
  const link = shown.getByRole("link", { name: "API reference" });
  await expect(link).toHaveAttribute("href", "/docs/api");
  await expect(link).toHaveAttribute("target", "_blank");
});
