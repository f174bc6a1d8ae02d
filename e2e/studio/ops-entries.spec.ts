// The ops entry editor (/ops/entries): an operator adds a model from scratch to a stored
// openai-images provider (added with the admin CLI, its key on stdin), sees a bad schema refused
// with its field named, the live form follow the schema and the quote follow the price and
// example, publishes it; a creator in another browser sees it in the catalog within seconds, with
// no restart, runs it against a fake images server and is charged the quote; a price change makes
// a new revision; a deprecation with a sunset marks it in the catalog. Anyone else gets a 404.
// Also: a start from a model id with an example, Replicate's and fal's schemas imported, and
// routes built in the form (two targets, a bad weight refused at its field, a run served by one).
// Screenshots: ops-entries, ops-entry-editor, ops-entry-editor-phone, ops-entry-routes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { ADMIN_CLI } from "../admin-cli";
import { startFalFake } from "../../lib/providers/fal/testing/fal-fake";
import { REPO_ROOT, STUDIO_DATA_DIR } from "./playwright.config";
import { admin, apiRun, newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

const FAKE_PORT = 3411;
const REPLICATE_PORT = 3412;
const PASTED_KEY = "sk-e2e-entry-editor-7c1f";
const TAG = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const PROVIDER = `fake-images-${TAG}`;
const ENTRY = `e2e-images/heron-${TAG}`;
/** A month from now: the deprecation's sunset. */
const SUNSET = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const seen: Array<{ auth: string | undefined; body: Record<string, unknown> }> = [];
let fake: http.Server;

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000 });

/** An openai-images provider on the fake images server, its key pasted (on stdin). */
function addImagesProvider(id: string): void {
  const out = execFileSync(
    process.execPath,
    [
      ADMIN_CLI,
      "--json",
      ...["provider", "add", "--id", id, "--kind", "openai-images"],
      ...["--base-url", `http://127.0.0.1:${FAKE_PORT}`, "--api-key-stdin"],
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, DATA_DIR: STUDIO_DATA_DIR, DATABASE_URL: "" },
      encoding: "utf8",
      input: `${PASTED_KEY}\n`,
    },
  );
  expect(JSON.parse(out)).toMatchObject({ id, credential: "secret set" });
}

test.beforeAll(async () => {
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#47a" } })
    .png()
    .toBuffer();
  fake = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>;
      seen.push({ auth: req.headers.authorization, body });
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          created: 1,
          data: Array.from({ length: Number(body.n ?? 1) }, () => ({ b64_json: png.toString("base64") })),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => fake.listen(FAKE_PORT, "127.0.0.1", resolve));
  addImagesProvider(PROVIDER);
});

test.afterAll(async () => {
  fake.closeAllConnections();
  await new Promise((resolve) => fake.close(resolve));
});

const SCHEMA = (extra: Record<string, unknown>) =>
  JSON.stringify(
    {
      type: "object",
      required: ["prompt"],
      properties: {
        prompt: { type: "string", title: "Prompt", minLength: 1, maxLength: 1000 },
        ...extra,
      },
      additionalProperties: false,
    },
    null,
    2,
  );

const N_FIELD = { n: { type: "integer", title: "Number of images", minimum: 1, maximum: 4, default: 1 } };

async function fill(page: Page, label: string, value: string) {
  await page.getByLabel(label, { exact: true }).fill(value);
}

test("a member who does not operate the install gets a 404 on the entry pages", async ({ page }) => {
  await signIn(page, newUser("owner"));
  expect((await page.goto("/ops/entries"))?.status()).toBe(404);
  expect((await page.goto("/ops/entries/new"))?.status()).toBe(404);
});

test("an operator adds a model from scratch; a creator sees it, runs it, is charged the quote", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(150_000);
  await signInCookie(page, newUser("ops"));
  await page.goto("/ops");
  await page.getByRole("link", { name: "Entries" }).click();
  await expect(page).toHaveURL(/\/ops\/entries$/);
  await page.getByRole("link", { name: "Add a model" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Add a model" })).toBeVisible();

  await page.getByLabel("Provider").selectOption(PROVIDER);
  await fill(page, "Id (creator/name)", ENTRY);
  await fill(page, "Upstream model", "fake-heron-1");
  await fill(page, "Name", "Entry Heron");
  await page.getByLabel("Description").fill("Added in the studio's entry editor.");

  const schema = page.getByLabel("Input schema (JSON Schema 2020-12)");
  const live = page.getByTestId("live-form");
  // Not JSON: the place is said as line and column, and the form waits for a schema.
  await schema.fill('{\n  "type": "object",\n  oops\n}');
  await expect(page.getByTestId("schema-error")).toContainText("Line 3, column 3");
  await expect(live).toContainText("Fix the schema");
  // Not closed: the server's parser refuses it, naming the field.
  await schema.fill(SCHEMA(N_FIELD).replace('"additionalProperties": false', '"additionalProperties": true'));
  await expect(page.getByTestId("schema-error")).toContainText("entry.input_schema.additionalProperties");
  // The live form follows the schema.
  await schema.fill(SCHEMA({}));
  await expect(page.getByTestId("schema-error")).toHaveCount(0);
  await expect(live.getByLabel("Prompt")).toBeVisible();
  await expect(live.getByText("Number of images")).toHaveCount(0);
  await schema.fill(SCHEMA(N_FIELD));
  await expect(live.getByText("Number of images")).toBeVisible();

  // The quote follows the price and the example.
  await fill(page, "USD per unit", "0.03");
  await fill(page, "Drivers (input fields, comma separated)", "n");
  await page.getByLabel("Example input (JSON)").fill('{ "prompt": "a heron", "n": 2 }');
  await expect(page.getByTestId("quote-preview")).toContainText("$0.06");
  await page.getByLabel("Example input (JSON)").fill('{ "prompt": "a heron", "n": 1 }');
  await expect(page.getByTestId("quote-preview")).toContainText("$0.03");
  // A driver the schema does not have is refused at the drivers field.
  await fill(page, "Drivers (input fields, comma separated)", "count");
  await expect(page.getByTestId("drivers-error")).toContainText("entry.pricing.drivers");
  await fill(page, "Drivers (input fields, comma separated)", "n");
  await expect(page.getByTestId("drivers-error")).toHaveCount(0);
  await expect(page.getByTestId("quote-preview")).toContainText("$0.03");
  // A workflow named by a path would be read from the server's disk: the studio refuses it.
  const otherFields = page.getByLabel("Other fields (JSON: status, creator, cost, a kind's own fields)");
  await otherFields.fill('{ "workflow": "/etc/passwd" }');
  await expect(page.getByTestId("other-error")).toContainText("entry.workflow must be the workflow itself");
  await expect(page.getByTestId("other-error")).not.toContainText("root");
  await otherFields.fill("{}");
  await expect(page.getByTestId("other-error")).toHaveCount(0);
  await screenshot(page, "ops-entry-editor");

  // A creator, in a browser of their own, signed in before the entry is published.
  const creatorUser = newUser("creator", "5");
  const other = await browser.newContext();
  const creator = await other.newPage();
  await signIn(creator, creatorUser);

  await page.getByRole("button", { name: "Publish" }).click();
  const today = new Date().toISOString().slice(0, 10);
  await expect(page.getByTestId("save-message")).toHaveText(`Saved and published: revision ${today}.`);
  await expect(page).toHaveURL(new RegExp(`/ops/entries/${encodeURIComponent(ENTRY)}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Entry Heron" })).toBeVisible();

  // Listed in the creator's catalog at once, with no restart (the change is signalled, not polled).
  try {
    const card = creator.locator(`[data-testid="model-card"][data-model-id="${ENTRY}"]`);
    await expect(async () => {
      await creator.goto("/catalog");
      await expect(card).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 5_000, intervals: [200] });
    await card.getByRole("link").first().click();
    await expect(creator).toHaveURL(new RegExp(`/catalog/${ENTRY}$`));
    await creator.getByLabel("Prompt", { exact: true }).fill("a heron at dawn");
    await expect(creator.getByTestId("quote")).toContainText("$0.03");
    seen.length = 0;
    await creator.getByRole("button", { name: /^Run/ }).click();
    const view = creator.getByTestId("run-view");
    await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
    const id = (await view.getAttribute("data-run-id"))!;
    const run = (await apiRun(request, newKey(creatorUser.workspaceId), id)) as unknown as {
      usage: { cost_usd: string };
      provider: string;
      revision: string;
    };
    expect(run).toMatchObject({ provider: PROVIDER, revision: today });
    expect(Number(run.usage.cost_usd)).toBe(0.03);
    expect(seen.at(-1)).toMatchObject({ auth: `Bearer ${PASTED_KEY}`, body: { model: "fake-heron-1" } });

    // A price change of a published entry: a new revision, said in words.
    await fill(page, "USD per unit", "0.05");
    await expect(page.getByTestId("quote-preview")).toContainText("$0.05");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByTestId("save-message")).toContainText(
      new RegExp(`new revision ${today}\\.2; runs already queued keep theirs`),
    );
    await expect(page.getByTestId("entry-revision")).toHaveText(`${today}.2`);
    // The revision field says the store's, and is not the operator's to type once published.
    await expect(page.getByLabel("Revision", { exact: true })).toHaveValue(`${today}.2`);
    await expect(page.getByLabel("Revision", { exact: true })).toBeDisabled();

    // Deprecated with a sunset: the catalog marks it.
    await page.getByLabel("Sunset date (UTC)").fill(SUNSET);
    await page.getByRole("button", { name: "Deprecate…" }).click();
    await page.getByRole("button", { name: "Confirm deprecate" }).click();
    await expect(page.getByTestId("lifecycle-message")).toHaveText(`Now deprecated, sunset ${SUNSET}.`);
    await expect(page.getByTestId("lifecycle-now")).toContainText(`deprecated, sunset ${SUNSET}`);
    // A change of words afterwards keeps the lifecycle and the revision.
    await page.getByLabel("Description").fill("Added in the studio's entry editor; deprecated.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByTestId("save-message")).toHaveText(`Saved and published: revision ${today}.2.`);
    await expect(page.getByTestId("entry-state")).toContainText(`deprecated, sunset ${SUNSET}`);
    await expect(async () => {
      await creator.goto("/catalog");
      await expect(card).toContainText("Deprecated", { timeout: 500 });
    }).toPass({ timeout: 5_000, intervals: [200] });
  } finally {
    await other.close();
  }
  await screenshot(page, "ops-entry-editor-saved");

  await page.goto("/ops/entries");
  const row = page.getByTestId("stored-entry").filter({ hasText: ENTRY });
  await expect(row).toContainText("published");
  await expect(row).toContainText(`${today}.2`);
  await expect(row).toContainText(`deprecated, sunset ${SUNSET}`);
  await screenshot(page, "ops-entries");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/ops/entries/${encodeURIComponent(ENTRY)}`);
  await expect(page.getByTestId("live-form").getByText("Number of images")).toBeVisible();
  await expect(page.getByTestId("quote-preview")).toContainText("$0.05");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, "ops-entry-editor-phone");
  expect(
    JSON.stringify(await (await page.request.get(`/ops/entries/${encodeURIComponent(ENTRY)}`)).text()),
  ).not.toContain(PASTED_KEY);

  // Retired now, after a confirmation: out of the catalog at once.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("button", { name: "Retire now…" }).click();
  await page.getByRole("button", { name: "Confirm retire" }).click();
  await expect(page.getByTestId("lifecycle-message")).toHaveText("Now retired.");
  await expect(page.getByTestId("lifecycle-now")).toHaveText("This entry is retired.");
  await expect(async () => {
    await page.goto("/catalog");
    await expect(page.getByTestId("model-card").first()).toBeVisible({ timeout: 1_000 });
    await expect(page.locator(`[data-testid="model-card"][data-model-id="${ENTRY}"]`)).toHaveCount(0, {
      timeout: 500,
    });
  }).toPass({ timeout: 5_000, intervals: [200] });
});

test("an operator imports a Replicate model's schema and saves it as a draft", async ({ page }) => {
  const asked: Array<{ url: string | undefined }> = [];
  const replicate = http.createServer((req, res) => {
    asked.push({ url: req.url });
    if (req.url !== "/models/acme/sketch") return void res.writeHead(404).end('{"detail":"Not found"}');
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        owner: "acme",
        name: "sketch",
        description: "Quick pencil sketches from a prompt.",
        is_official: true,
        latest_version: {
          id: "v1",
          openapi_schema: {
            components: {
              schemas: {
                Input: {
                  type: "object",
                  required: ["prompt"],
                  properties: {
                    prompt: { type: "string", title: "Prompt", "x-order": 0 },
                    num_outputs: { type: "integer", title: "Num Outputs", default: 1, minimum: 1, maximum: 4 },
                  },
                },
              },
            },
          },
        },
      }),
    );
  });
  await new Promise<void>((resolve) => replicate.listen(REPLICATE_PORT, "127.0.0.1", resolve));
  try {
    const provider = `fake-replicate-${TAG}`;
    // A Replicate provider's key is named by a variable only (the parser refuses a stored one); the
    // studio's server has none by that name, and the fake asks for no key.
    admin([
      ...["provider", "add", "--id", provider, "--kind", "replicate"],
      ...["--base-url", `http://127.0.0.1:${REPLICATE_PORT}`, "--api-key-env", "E2E_REPLICATE_TOKEN"],
    ]);
    await signInCookie(page, newUser("ops"));
    await page.goto("/ops/entries/new");
    await page.getByLabel("Provider").selectOption(provider);
    await fill(page, "Id (creator/name)", `e2e-rep/sketch-${TAG}`);
    await fill(page, "USD per unit", "0.02");
    const source = page.getByPlaceholder("black-forest-labs/flux-schnell");
    await source.fill("acme/missing");
    await page.getByRole("button", { name: "Import schema" }).click();
    await expect(page.getByTestId("import-error")).toContainText("Replicate answered 404");
    await source.fill("acme/sketch");
    await page.getByRole("button", { name: "Import schema" }).click();
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Sketch");
    await expect(page.getByLabel("Upstream model", { exact: true })).toHaveValue("acme/sketch");
    await expect(page.getByTestId("live-form").getByText("Num Outputs")).toBeVisible();
    await expect(page.getByTestId("quote-preview")).toContainText("$0.02");
    expect(asked.at(-1)?.url).toBe("/models/acme/sketch");
    await page.getByRole("button", { name: "Save as draft" }).click();
    const today = new Date().toISOString().slice(0, 10);
    await expect(page.getByTestId("save-message")).toHaveText(`Saved as a draft: revision ${today}.`);
    await screenshot(page, "ops-entry-imported");
  } finally {
    replicate.closeAllConnections();
    await new Promise((resolve) => replicate.close(resolve));
  }
});

test("an operator starts an entry from a model id and gives it an example creators start from", async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const id = `e2e-images/kite-${TAG}`;
  await signInCookie(page, newUser("ops"));
  await page.goto("/ops/entries/new");
  await page.getByLabel("Provider").selectOption(PROVIDER);
  await fill(page, "Id (creator/name)", id);
  await fill(page, "USD per unit", "0.02");
  await page.getByLabel("Model id to start from").fill("gpt-image-1");
  await page.getByLabel("Makes").selectOption("video");
  await page.getByRole("button", { name: "Start from model id" }).click();
  await expect(page.getByTestId("import-error")).toContainText("not video");
  await page.getByLabel("Makes").selectOption("");
  await page.getByRole("button", { name: "Start from model id" }).click();
  await expect(page.getByLabel("Upstream model", { exact: true })).toHaveValue("gpt-image-1");
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Gpt image 1");
  await fill(page, "Name", "Kite");
  const live = page.getByTestId("live-form");
  await live.getByLabel("Prompt").fill("a red kite over dunes");
  await expect(page.getByTestId("quote-preview")).toContainText("$0.02");
  await page.getByRole("button", { name: "Add the example input" }).click();
  const examples = page.getByLabel(/^Examples \(JSON/);
  await expect(examples).toHaveValue(/"title": "Example 1"/);
  await expect(examples).toHaveValue(/a red kite over dunes/);
  // An example the entry would refuse is refused at its field, with its path.
  const good = await examples.inputValue();
  await examples.fill('[{ "title": "Too many", "input": { "prompt": "x", "n": 9 } }]');
  await expect(page.getByTestId("examples-error")).toContainText("entry.examples[0].input.n");
  await examples.fill(good.replace("Example 1", "Kite over dunes"));
  await expect(page.getByTestId("examples-error")).toHaveCount(0);
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByTestId("save-message")).toContainText("Saved and published");

  const creatorContext = await browser.newContext();
  const creator = await creatorContext.newPage();
  try {
    await signIn(creator, newUser("creator"));
    await expect(async () => {
      await creator.goto(`/catalog/${id}`);
      await expect(creator.getByTestId("examples")).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
    await expect(creator.getByRole("button", { name: "Kite over dunes" })).toHaveAttribute("aria-pressed", "true");
    await expect(creator.getByLabel("Prompt", { exact: true })).toHaveValue("a red kite over dunes");
  } finally {
    await creatorContext.close();
  }
});

test("an operator imports a fal endpoint's schema from the provider's document host", async ({ page }) => {
  const fal = await startFalFake();
  try {
    const provider = `fake-fal-${TAG}`;
    // fal's documents are public: the key's variable is one the studio's server does not have.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "atelier-e2e-fal-")), "provider.json");
    writeFileSync(
      file,
      JSON.stringify({
        id: provider,
        kind: "fal",
        base_url: fal.url,
        api_key_env: "E2E_FAL_KEY",
        openapi_base_url: fal.url,
      }),
    );
    admin(["provider", "add", "--file", file]);
    await signInCookie(page, newUser("ops"));
    await page.goto("/ops/entries/new");
    await page.getByLabel("Provider").selectOption(provider);
    await fill(page, "Id (creator/name)", `e2e-fal/flux-${TAG}`);
    await fill(page, "USD per unit", "0.025");
    const source = page.getByPlaceholder("fal-ai/flux/dev");
    await source.fill("fal-ai/no-such-endpoint");
    await page.getByRole("button", { name: "Import schema" }).click();
    await expect(page.getByTestId("import-error")).toContainText("fal answered");
    await source.fill("fal-ai/flux/dev");
    await page.getByRole("button", { name: "Import schema" }).click();
    await expect(page.getByLabel("Upstream model", { exact: true })).toHaveValue("fal-ai/flux/dev");
    await expect(page.getByTestId("live-form").getByLabel("Prompt")).toBeVisible();
    await expect(page.getByTestId("quote-preview")).toContainText("$0.025");
    await page.getByRole("button", { name: "Save as draft" }).click();
    await expect(page.getByTestId("save-message")).toContainText("Saved as a draft");
  } finally {
    await fal.close();
  }
});

test("an operator builds an entry's routes in the form; a bad weight is refused; a run takes the route", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const [egret, ibis] = [`route-egret-${TAG}`, `route-ibis-${TAG}`];
  addImagesProvider(egret);
  addImagesProvider(ibis);
  const id = `e2e-images/stork-${TAG}`;
  const ops = newUser("ops");
  await signInCookie(page, ops);
  await page.goto("/ops/entries/new");
  await page.getByLabel("Provider").selectOption(PROVIDER);
  await fill(page, "Id (creator/name)", id);
  await fill(page, "Upstream model", "fake-stork-own");
  await fill(page, "Name", "Stork");
  await page.getByLabel("Description").fill("Served by three providers.");

  const routes = page.getByRole("region", { name: "Routes" });
  await expect(routes.getByTestId("routes-none")).toContainText(`Served by its own provider only (${PROVIDER})`);
  const target = (n: number) => routes.getByRole("group", { name: new RegExp(`^Target ${n}`) });
  const providerOf = (n: number) => target(n).getByLabel("Provider", { exact: true });
  // Added with the keyboard: focus lands on the new target's provider, the first one not taken.
  await routes.getByRole("button", { name: "Add a target" }).focus();
  await page.keyboard.press("Enter");
  await expect(providerOf(1)).toBeFocused();
  await providerOf(1).selectOption(egret);
  await target(1).getByLabel("Upstream model").fill("fake-stork-egret");
  await routes.getByRole("button", { name: "Add a target" }).click();
  await providerOf(2).selectOption(ibis);
  await target(2).getByLabel("Upstream model").fill("fake-stork-ibis");
  // The entry's own provider and a provider already a target are not offered again.
  await expect(providerOf(2).locator("option", { hasText: PROVIDER })).toHaveCount(0);
  await expect(providerOf(2).locator(`option[value="${egret}"]`)).toHaveCount(0);

  // Weighted: weights appear; one out of bounds is refused by the server at its field, on save too.
  await expect(target(1).getByLabel(/^Weight/)).toHaveCount(0);
  await routes.getByRole("radio", { name: /^Weighted/ }).check();
  await target(2)
    .getByLabel(/^Weight/)
    .fill("250");
  const weightError = target(2).getByRole("alert");
  await expect(weightError).toHaveText("entry.routes.targets[1].weight must be a whole number from 1 to 100; got 250.");
  await expect(target(2).getByLabel(/^Weight/)).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Save as draft" }).click();
  await expect(page.getByTestId("save-message")).toContainText("entry.routes.targets[1].weight must be");
  await expect(page.getByTestId("entry-state")).toHaveText("Not saved yet.");
  await target(2)
    .getByLabel(/^Weight/)
    .fill("30");
  await expect(weightError).toHaveCount(0);

  // Ordered: moved up and down from the keyboard, focus following the target.
  await routes.getByRole("radio", { name: /^Ordered/ }).check();
  await target(2).getByRole("button", { name: "Move up target 2" }).press("Enter");
  await expect(target(1)).toContainText(ibis);
  await expect(target(1).getByRole("button", { name: "Move down target 1" })).toBeFocused();
  await expect(routes.getByTestId("routes-said")).toHaveText("Target 2 moved up: now target 1 of 2.");

  // Cheapest: a declared cost on the egret; the entry's own declares none, so the egret goes first.
  await routes.getByRole("radio", { name: /^Cheapest/ }).check();
  await target(2).getByLabel("Declared cost").selectOption("unit");
  await expect(target(2).getByLabel("Cost unit")).toHaveValue("image");
  await target(2).getByLabel("Cost in USD").fill("0.01");
  // The form owns the routes: Other fields holds none.
  const otherFields = page.getByLabel("Other fields (JSON: status, creator, cost, a kind's own fields)");
  await expect(otherFields).not.toHaveValue(/routes/);
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByTestId("save-message")).toContainText("Saved and published");

  // Stored: a reload shows the same routes in the form, and none in Other fields.
  await page.reload();
  await expect(routes.getByRole("radio", { name: /^Cheapest/ })).toBeChecked();
  await expect(providerOf(1)).toHaveValue(ibis);
  await expect(target(1).getByLabel("Upstream model")).toHaveValue("fake-stork-ibis");
  await expect(providerOf(2)).toHaveValue(egret);
  await expect(target(2).getByLabel("Cost in USD")).toHaveValue("0.01");
  await expect(otherFields).not.toHaveValue(/routes/);
  await screenshot(page, "ops-entry-routes");

  // A run goes to the cheapest declared: the egret, with its own upstream model.
  const key = newKey(ops.workspaceId);
  let run = "";
  await expect(async () => {
    const res = await request.post("/v1/generations", {
      headers: { "x-api-key": key },
      data: { model: id, input: { prompt: "a stork on a chimney" } },
    });
    expect(res.status(), await res.text()).toBe(201);
    run = ((await res.json()) as { id: string }).id;
  }).toPass({ timeout: 10_000 });
  await expect.poll(async () => (await apiRun(request, key, run)).status, { timeout: 30_000 }).toBe("succeeded");
  expect(((await apiRun(request, key, run)) as unknown as { provider: string }).provider).toBe(egret);
  expect(seen.map((s) => s.body.model)).toContain("fake-stork-egret");
});
