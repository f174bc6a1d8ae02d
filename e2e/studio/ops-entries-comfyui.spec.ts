// Issue 37's own scenario, in Chromium against the project's ComfyUI fake (ComfyUI's HTTP API,
// started here): an operator adds a ComfyUI provider on the Providers page and tests it, uploads a
// workflow in API format on "Add a model", binds fields to node inputs with the picker (the box's
// /object_info gives the sampler's choices), prices and publishes it; a creator in another
// browser sees it in the catalog without a restart, runs it (the prompt reaches node 6) and is
// charged the quote; a price change while the creator's next run is held at the box makes a new
// revision, and that run keeps its own revision and price. Meanwhile a cap of one running run
// makes the creator's next runs wait, as the ops page's queue by workspace shows. Screenshots:
// ops-entry-comfyui, ops-queue-shares.
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startComfyFake, type FakeComfy } from "../../lib/providers/comfyui/testing/comfyui-fake";
import { REPO_ROOT } from "./playwright.config";
import { admin, apiRun, newKey, newUser, screenshot, signIn, signInCookie } from "./helpers";

const TAG = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const PROVIDER = `gpu-box-${TAG}`;
const ENTRY = `e2e-comfy/lighthouse-${TAG}`;
const WORKFLOW = path.join(REPO_ROOT, "e2e/api/fixtures/comfyui/workflows/sdxl.json");
let comfy: FakeComfy;

test.describe.configure({ mode: "serial" });
test.use({ actionTimeout: 15_000 });

test.beforeAll(async () => {
  comfy = await startComfyFake();
});

test.afterAll(async () => {
  await comfy.close();
});

type RunView = { usage: { cost_usd: string }; provider: string; revision: string; status: string };

test("an operator adds a ComfyUI box and a workflow; a creator runs it; an edit keeps a held run's revision", async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  await signInCookie(page, newUser("ops"));
  await page.goto("/ops/providers");
  const form = page.getByRole("form", { name: "Add a provider" });
  await form.getByLabel("Kind", { exact: true }).selectOption("comfyui");
  await form.getByLabel("ID").fill(PROVIDER);
  await form.getByLabel(/Base URL/).fill(comfy.url);
  await form.getByLabel("No key").check();
  await form.getByRole("button", { name: "Add provider" }).click();
  const card = page.getByRole("listitem", { name: `Provider ${PROVIDER}` });
  await expect(card).toBeVisible();
  await card.getByRole("button", { name: "Test connection" }).click();
  await expect(card).toContainText("ComfyUI");
  await expect(card).toContainText("1 device(s)");

  await page.goto("/ops/entries/new");
  await page.getByLabel("Provider").selectOption(PROVIDER);
  await page.getByLabel("Id (creator/name)", { exact: true }).fill(ENTRY);
  await page.getByLabel("USD per unit", { exact: true }).fill("0.02");
  // A UI-format export is told apart, not taken.
  await page.getByLabel("Workflow (ComfyUI's API format, .json)").setInputFiles({
    name: "ui.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify({ nodes: [], links: [] })),
  });
  await expect(page.getByTestId("workflow-error")).toContainText("Export (API)");
  await page.getByLabel("Workflow (ComfyUI's API format, .json)").setInputFiles(WORKFLOW);
  const nodes = page.getByTestId("comfy-nodes");
  await expect(nodes.locator('[data-input="6.text"]')).toContainText("a lighthouse on a cliff");
  // Links between nodes are not inputs a field can set.
  await expect(nodes.locator('[data-input="3.model"]')).toHaveCount(0);
  const importButton = page.getByRole("button", { name: "Import workflow" });
  await expect(importButton).toBeDisabled();
  for (const input of ["6.text", "3.steps", "3.sampler_name", "5.batch_size"])
    await page.getByLabel(`Bind ${input}`).check();
  await expect(page.getByLabel("Field for 6.text")).toHaveValue("prompt");
  await expect(page.getByLabel("Field for 3.sampler_name")).toHaveValue("sampler");
  await page.getByLabel("Field for 3.steps").fill("2steps");
  await expect(importButton).toBeDisabled();
  await page.getByLabel("Field for 3.steps").fill("steps");
  await screenshot(page, "ops-entry-comfyui");
  await importButton.click();

  // The document the editor now holds: the box's choices, the batch driving the price.
  const live = page.getByTestId("live-form");
  await expect(live.getByLabel("Sampler")).toBeVisible();
  await expect(live.getByLabel("Sampler").locator("option", { hasText: "euler" }).first()).toBeAttached();
  await expect(page.getByLabel("Drivers (input fields, comma separated)")).toHaveValue("batch_size");
  await expect(page.getByLabel("Other fields (JSON: status, creator, cost, a kind's own fields)")).toHaveValue(
    /"class_type": "KSampler"/,
  );
  await page.getByLabel("Name", { exact: true }).fill("Lighthouse SDXL");
  await expect(page.getByTestId("quote-preview")).toContainText("$0.02");
  await page.getByRole("button", { name: "Publish" }).click();
  const today = new Date().toISOString().slice(0, 10);
  await expect(page.getByTestId("save-message")).toHaveText(`Saved and published: revision ${today}.`);

  const creatorUser = newUser("creator", "5");
  const key = newKey(creatorUser.workspaceId);
  const other = await browser.newContext();
  const creator = await other.newPage();
  try {
    await signIn(creator, creatorUser);
    const entryCard = creator.locator(`[data-testid="model-card"][data-model-id="${ENTRY}"]`);
    await expect(async () => {
      await creator.goto("/catalog");
      await expect(entryCard).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 5_000, intervals: [200] });
    await creator.goto(`/catalog/${ENTRY}`);
    await creator.getByLabel("Prompt", { exact: true }).fill("a heron on a jetty");
    await expect(creator.getByTestId("quote")).toContainText("$0.02");
    await creator.getByRole("button", { name: /^Run/ }).click();
    const view = creator.getByTestId("run-view");
    await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
    const firstId = (await view.getAttribute("data-run-id"))!;
    const first = (await apiRun(request, key, firstId)) as unknown as RunView;
    expect(first).toMatchObject({ provider: PROVIDER, revision: today, usage: { cost_usd: "0.02" } });
    expect(comfy.prompts.at(-1)!.prompt["6"]!.inputs.text).toBe("a heron on a jetty");

    // The next run is held at the box while the price changes.
    comfy.setMode("hold");
    const held = await request.post(`/v1/generations`, {
      headers: { "x-api-key": key },
      data: { model: ENTRY, input: { prompt: "a gull in fog" } },
    });
    expect(held.status(), await held.text()).toBe(201);
    const heldId = ((await held.json()) as { id: string }).id;
    await expect.poll(() => comfy.running(), { timeout: 15_000 }).not.toBeNull();

    // With a cap of one running run, the creator's next runs wait (bulk: plain API creates), and
    // the ops page says so, workspace by workspace.
    admin(["workspace", "queue", "--workspace", creatorUser.workspaceId, "--weight", "2", "--max-running", "1"]);
    const waiting: string[] = [];
    for (const prompt of ["a tern", "a plover"]) {
      const made = await request.post(`/v1/generations`, {
        headers: { "x-api-key": key },
        data: { model: ENTRY, input: { prompt } },
      });
      expect(made.status()).toBe(201);
      waiting.push(((await made.json()) as { id: string }).id);
    }
    const opsTab = await page.context().newPage();
    await opsTab.goto("/ops");
    const share = opsTab.locator(`[data-testid="queue-share"][data-workspace-id="${creatorUser.workspaceId}"]`);
    await expect(share).toBeVisible({ timeout: 20_000 });
    await expect(share).toContainText("Studio");
    await expect(share.locator("td").nth(1)).toHaveText("2");
    await expect(share.locator("td").nth(2)).toHaveText("1");
    await expect(share.locator("td").nth(3)).toContainText("1 (");
    await expect(share.locator("td").nth(5)).toHaveText("2");
    await share.scrollIntoViewIfNeeded();
    await screenshot(opsTab, "ops-queue-shares", { fullPage: false });
    await opsTab.close();
    for (const id of waiting)
      expect((await request.post(`/v1/generations/${id}/cancel`, { headers: { "x-api-key": key } })).status()).toBe(
        200,
      );
    admin(["workspace", "queue", "--workspace", creatorUser.workspaceId, "--max-running", "none"]);
    await page.getByLabel("USD per unit", { exact: true }).fill("0.03");
    await expect(page.getByTestId("quote-preview")).toContainText("$0.03");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByTestId("save-message")).toContainText(
      `new revision ${today}.2; runs already queued keep theirs (${today})`,
    );
    comfy.release();
    await expect
      .poll(async () => ((await apiRun(request, key, heldId)) as unknown as RunView).status, { timeout: 30_000 })
      .toBe("succeeded");
    expect(await apiRun(request, key, heldId)).toMatchObject({ revision: today, usage: { cost_usd: "0.02" } });
    comfy.setMode("instant");

    await expect(async () => {
      await creator.goto(`/catalog/${ENTRY}`);
      await creator.getByLabel("Prompt", { exact: true }).fill("a tern");
      await expect(creator.getByTestId("quote")).toContainText("$0.03", { timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
    await creator.getByRole("button", { name: /^Run/ }).click();
    await expect(view).not.toHaveAttribute("data-run-id", firstId);
    await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
    const second = (await apiRun(request, key, (await view.getAttribute("data-run-id"))!)) as unknown as RunView;
    expect(second).toMatchObject({ revision: `${today}.2`, usage: { cost_usd: "0.03" } });
  } finally {
    comfy.setMode("instant");
    await other.close();
  }
});
