// The Files page: the workspace's files with thumbnails and measures, uploads of an image and a
// sound from the page, outputs kept as files, and cursor paging.
import sharp from "sharp";
import { expect, test } from "@playwright/test";
import { makeWav } from "../api/runs-helpers";
import { newKey, newUser, screenshot, signIn } from "./helpers";

test("an empty Files page says how to make a file; uploads and API files list newest first, paged", async ({
  page,
  request,
}) => {
  const user = newUser("owner", "5");
  await signIn(page, user);
  const nav = page.getByRole("navigation", { name: "Studio" });
  // Files sits between Runs and API keys.
  const labels = await nav.getByRole("link").allTextContents();
  expect(labels.slice(labels.indexOf("Runs"), labels.indexOf("API keys") + 1)).toEqual(["Runs", "Files", "API keys"]);
  await nav.getByRole("link", { name: "Files" }).click();
  await expect(page).toHaveURL(/\/files$/);
  await expect(page.getByRole("heading", { name: "Files", exact: true })).toBeVisible();
  await expect(page.getByText("No files yet.")).toBeVisible();
  await expect(page.getByText("Keep as file", { exact: false })).toBeVisible();
  await screenshot(page, "files-empty");

  // An image goes up through the studio; a sound as a direct upload.
  const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  await page
    .getByLabel("Choose a file to upload")
    .setInputFiles({ name: "swatch.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("upload-message")).toContainText(/Uploaded swatch\.png as file_/);
  const swatch = page.getByTestId("file-row").filter({ hasText: "swatch.png" });
  await expect(swatch).toContainText("image/png");
  await expect(swatch.getByTestId("file-measures")).toHaveText("96×64");
  const thumb = swatch.getByTestId("file-thumbnail");
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(96);

  await page
    .getByLabel("Choose a file to upload")
    .setInputFiles({ name: "tone.wav", mimeType: "audio/wav", buffer: makeWav(1.5) });
  await expect(page.getByTestId("upload-message")).toContainText(/Uploaded tone\.wav as file_/);
  const tone = page.getByTestId("file-row").filter({ hasText: "tone.wav" });
  await expect(tone).toContainText("audio/wav");
  await expect(tone.getByTestId("file-measures")).toHaveText("1.5 s");
  await expect(page.getByTestId("file-row").first()).toContainText("tone.wav");

  // Something that is neither is refused with the API's reason, and nothing is added.
  await page
    .getByLabel("Choose a file to upload")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await expect(page.getByRole("alert").filter({ hasText: "content_type" })).toBeVisible();
  await expect(page.getByTestId("file-row")).toHaveCount(2);
  await screenshot(page, "files");

  // 20 more images over the API: the newest 20 on page one, the two uploads on page two.
  const key = newKey(user.workspaceId);
  for (let i = 0; i < 20; i++) {
    const image = await sharp({
      create: { width: 32 + i, height: 32, channels: 3, background: { r: 10 * i, g: 90, b: 60 } },
    })
      .png()
      .toBuffer();
    const res = await request.post("/v1/files", {
      headers: { "x-api-key": key },
      multipart: { file: { name: `api-${i}.png`, mimeType: "image/png", buffer: image } },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  await page.reload();
  const rows = page.getByTestId("file-row");
  await expect(rows).toHaveCount(20);
  await expect(rows.first()).toContainText("api-19.png");
  await expect(page.getByTestId("page-number")).toHaveText("Page 1 · 20 files");
  await page.getByRole("link", { name: "Next →" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 2 · 2 files");
  await expect(rows.nth(0)).toContainText("tone.wav");
  await expect(rows.nth(1)).toContainText("swatch.png");
  await expect(page.getByRole("link", { name: "Next →" })).toHaveCount(0);
  await page.getByRole("link", { name: "← Previous" }).click();
  await expect(page.getByTestId("page-number")).toHaveText("Page 1 · 20 files");
});
