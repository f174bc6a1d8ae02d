// 3D outputs in the studio: the catalog's 3D chip and icon, a run of atelier/shapes-3d from its
// model page shown in <model-viewer> (loaded from the .glb, drawn in WebGL, orbits with the
// mouse), its counts and size, Download .glb, no "Keep as file", the poster in the model page's
// recent runs and in the runs history, and the run page. Headless Chromium draws WebGL with
// SwiftShader (no GPU, no extra flags needed); its first frame takes a few seconds there, so the
// share page (the same viewer component) is left to a look by hand to keep this test short.
import sharp from "sharp";
import { expect, test, type Locator } from "@playwright/test";
import { newUser, screenshot, signIn } from "./helpers";

/** The pixels of an element's screenshot: how many distinct colours (in 4-bit steps), and the raw bytes. */
async function pixelsOf(locator: Locator): Promise<{ colours: number; data: Buffer }> {
  const { data, info } = await sharp(await locator.screenshot())
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += info.channels)
    colours.add(((data[i]! >> 4) << 8) | ((data[i + 1]! >> 4) << 4) | (data[i + 2]! >> 4));
  return { colours: colours.size, data };
}

/** The share of bytes that differ by more than a little between two same-sized screenshots. */
function changed(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i]! - (b[i] ?? 0)) > 24) n++;
  return n / a.length;
}

/** A link's path: signed links differ per read of the run, the blob they name does not. */
const blobPath = (url: string) => new URL(url, "http://localhost").pathname;

test("a 3D run: an interactive viewer that orbits, counts and size, Download .glb, the poster in history", async ({
  page,
  request,
}) => {
  // Software WebGL on a busy 2-core machine: the run and the viewer's load each may take most of a minute.
  test.setTimeout(120_000);
  const user = newUser("owner", "5");
  await signIn(page, user);

  // The catalog: a 3D chip that keeps only 3D models, each card badged "3D". The viewer's code
  // is not part of this page.
  await page.getByRole("button", { name: "3D", exact: true }).click();
  await expect(page).toHaveURL(/\/catalog\?modality=3d$/);
  const card = page.getByTestId("model-card").filter({ hasText: "atelier/shapes-3d" });
  await expect(card).toHaveCount(1);
  await expect(page.locator('[data-testid="model-card"]:not([data-modality="3d"])')).toHaveCount(0);
  await expect(card.getByText("3D", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => customElements.get("model-viewer") === undefined)).toBe(true);

  await card.getByRole("link").click();
  await expect(page).toHaveURL(/\/catalog\/atelier\/shapes-3d$/);
  await page.getByLabel("Prompt", { exact: true }).fill("three red spheres on a stone plinth");
  await page.getByRole("radio", { name: "Low" }).click();
  await expect(page.getByTestId("quote")).toContainText("Cost $0.01");
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  const id = (await view.getAttribute("data-run-id"))!;
  expect(id).toMatch(/^gen_/);
  // The viewer loads the .glb and draws it: not one flat colour.
  const viewer = view.getByTestId("model-viewer");
  await expect(viewer).toHaveAttribute("data-state", "loaded", { timeout: 45_000 });
  expect(await viewer.evaluate((el) => (el as HTMLElement & { loaded: boolean }).loaded)).toBe(true);
  // The element's own properties: React sets a defined custom element's props as properties, and
  // model-viewer does not reflect them to attributes, so the attributes are there only when the
  // element was made before its code had loaded (which depends on how fast the run finished).
  const viewerLink = (name: "src" | "poster") =>
    viewer.evaluate((el, prop) => (el as HTMLElement & Record<"src" | "poster", string | null>)[prop] ?? "", name);
  expect(blobPath(await viewerLink("src"))).toMatch(/^\/v1\/blobs\//);
  const poster = blobPath(await viewerLink("poster"));
  expect(poster).toMatch(/^\/v1\/blobs\//);
  // It draws into one of its canvases (in its shadow root), whichever suits the page at the time.
  await expect(viewer.locator("canvas:visible")).not.toHaveCount(0);
  // Let it fade the poster and its loading bar out.
  await page.waitForTimeout(1_400);
  const before = await pixelsOf(viewer);
  expect(before.colours).toBeGreaterThan(12);
  await screenshot(page, "three-d-model-page");

  // Orbit with the mouse: the camera turns, and so does the picture.
  type Orbit = { theta: number; phi: number; radius: number };
  const orbit = () =>
    viewer
      .evaluate((el) => (el as HTMLElement & { getCameraOrbit(): Orbit }).getCameraOrbit())
      .then((o) => ({ theta: o.theta, phi: o.phi, radius: o.radius }));
  const start = await orbit();
  const box = (await viewer.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  for (let step = 1; step <= 8; step++)
    await page.mouse.move(box.x + box.width / 2 - step * 25, box.y + box.height / 2 + step * 4);
  await page.mouse.up();
  await expect.poll(async () => Math.abs((await orbit()).theta - start.theta), { timeout: 5_000 }).toBeGreaterThan(0.3);
  await expect
    .poll(async () => changed(before.data, (await pixelsOf(viewer)).data), { timeout: 5_000 })
    .toBeGreaterThan(0.02);
  await screenshot(page, "three-d-orbited", { fullPage: false });

  // Its counts and size, the .glb to download, and no "Keep as file" (files are images).
  const facts = view.getByTestId("output-3d-facts");
  await expect(facts).toHaveText(/^[\d,]+ vertices · [\d,]+ triangles · [\d.]+ × [\d.]+ × [\d.]+ c?m$/);
  await expect(view.getByRole("button", { name: "Keep as file" })).toHaveCount(0);
  await expect(view.getByTestId("no-keep")).toContainText("Only images can be kept as files");
  const download = view.getByRole("link", { name: "Download .glb" });
  await expect(download).toHaveAttribute("href", new RegExp(`^/v1/blobs/.*[?&]filename=shapes-3d-${id}-1\\.glb(&|$)`));
  const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
  expect(file.suggestedFilename()).toBe(`shapes-3d-${id}-1.glb`);
  const glb = await request.get((await download.getAttribute("href"))!);
  expect(glb.status()).toBe(200);
  expect((await glb.body()).subarray(0, 4).toString("latin1")).toBe("glTF");

  // The model page's recent runs and the history show the run by its poster.
  await expect(
    page
      .getByTestId("recent-run")
      .filter({ has: page.getByTestId("recent-run-poster") })
      .first(),
  ).toBeVisible();
  expect(blobPath((await page.getByTestId("recent-run-poster").first().getAttribute("src"))!)).toBe(poster);
  await page.goto("/runs");
  const thumb = page.getByTestId("run-thumbnail").filter({ visible: true }).first();
  await expect(thumb).toBeVisible();
  expect(blobPath((await thumb.getAttribute("src"))!)).toBe(poster);
  await expect.poll(() => thumb.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  await screenshot(page, "three-d-history", { fullPage: false });

  // The run page shows it the same way (RunOutputs, as above).
  await page.goto(`/runs/${id}`);
  await expect(
    page.getByTestId("run-view").getByTestId("output-3d").getByRole("link", { name: "Download .glb" }),
  ).toBeVisible();
});
