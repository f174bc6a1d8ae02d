// The studio as several replicas would run it: its store on PostgreSQL (a fresh database) and its
// files and outputs in a bucket (S3_BUCKET): an s3rver of this file's own and an Atelier server of
// its own on port 3402 (not the config's 3401 server, which is on SQLite), both started and
// stopped here. The studio's code runs from the Next.js bundle, a copy of lib/ beside the
// server's (which opened the store): a run from the model page is the studio's write path on
// PostgreSQL (it once took SQLite's path there and every studio run failed). A direct upload of
// a sound PUTs from the browser straight to the bucket (cross origin) and nothing lands on the
// server's disk; a picture's thumbnail on the Files page, a run's output image and its Download
// link all come from presigned bucket URLs.
// Run: flock /tmp/atelier-e2e.lock flock -s /tmp/atelier-build.lock npx playwright test --config e2e/studio/playwright.config.ts e2e/studio/bucket.spec.ts
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { ListObjectsCommand, S3Client } from "@aws-sdk/client-s3";
import { expect, test } from "@playwright/test";
import { makeWav, stopWorker } from "../api/runs-helpers";
import { spawnRepoProcess, untilAnswers, type RepoProcess } from "../server-processes";
import { pgUrl, resetPgDatabase } from "../api/servers";
import { newUser, signInCookie, type TestUser } from "./helpers";
import { REPO_ROOT } from "./playwright.config";

const PORT = 3402;
const BASE_URL = `http://localhost:${PORT}`;
const DATA_DIR = path.join(REPO_ROOT, ".data-e2e", "studio-bucket");
const DATABASE = "atelier_e2e_studio_bucket";
const PREFIX = "studio/";
const RESULT_SCREENSHOT = path.join(REPO_ROOT, "test-results", "e2e-studio", "bucket-result.png");

/**
 * s3rver as lib/blobs/testing/test-s3-server.ts's program (a fresh bucket that allows CORS from any
 * origin), in a process of its own: the module reads import.meta, so a spec that Playwright
 * compiles to CommonJS cannot import startTestS3Server ("exports is not defined in ES module scope").
 */
const S3 = {
  port: 3495,
  bucket: "atelier-studio-e2e",
  endpoint: "http://127.0.0.1:3495",
  dataDir: path.join(REPO_ROOT, ".data-e2e", "studio-bucket-s3"),
} as const;
const S3_ORIGIN = new URL(S3.endpoint).origin;
/** What test-s3-server.ts's env(prefix) gives a server process. */
const BUCKET_ENV: Record<string, string> = {
  S3_BUCKET: S3.bucket,
  S3_PREFIX: PREFIX,
  S3_ENDPOINT: S3.endpoint,
  S3_REGION: "us-east-1",
  S3_FORCE_PATH_STYLE: "1",
  AWS_ACCESS_KEY_ID: "S3RVER",
  AWS_SECRET_ACCESS_KEY: "S3RVER",
  AWS_EC2_METADATA_DISABLED: "true",
};

let s3Server: RepoProcess | null = null;
let s3Client: S3Client | null = null;
let server: RepoProcess | null = null;
let user: TestUser;
/** The run test 2 makes, whose Download link test 3 follows. */
let runId = "";

function storeEnv(): Record<string, string> {
  return { DATA_DIR, DATABASE_URL: pgUrl(DATABASE), ...BUCKET_ENV };
}

/** Every object key under `prefix`, sorted (ListObjects v1 by Marker, as test-s3-server.ts does: s3rver's V2 tokens need DES). */
async function listKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let marker: string | undefined;
  for (;;) {
    const page = await s3Client!.send(
      new ListObjectsCommand({
        Bucket: S3.bucket,
        MaxKeys: 1000,
        Prefix: prefix,
        ...(marker ? { Marker: marker } : {}),
      }),
    );
    const found = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
    keys.push(...found);
    if (!page.IsTruncated || found.length === 0) break;
    marker = found[found.length - 1];
  }
  return keys.sort();
}

test.describe.configure({ mode: "serial" });
test.use({ baseURL: BASE_URL });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  s3Server = spawnRepoProcess(
    ["lib/blobs/testing/test-s3-server.ts", "--port", String(S3.port), "--dir", S3.dataDir, "--bucket", S3.bucket],
    {},
  );
  await untilAnswers(s3Server, "s3rver", `${S3.endpoint}/`, 30_000);
  s3Client = new S3Client({
    region: "us-east-1",
    endpoint: S3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });

  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  await resetPgDatabase(DATABASE);
  // Tracked before it answers, so afterAll stops it whatever happens.
  server = spawnRepoProcess(["server.ts"], {
    ...storeEnv(),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(PORT),
    PUBLIC_BASE_URL: "",
    LOG_LEVEL: "warn",
    WORKER_CONCURRENCY: "2",
  });
  await untilAnswers(server, "the bucket server", `${BASE_URL}/v1/public/models`, 150_000);
  user = newUser("owner", "5", storeEnv());
});

test.afterAll(async () => {
  test.setTimeout(60_000);
  await stopWorker(server);
  s3Client?.destroy();
  await stopWorker(s3Server);
});

test("a direct upload of a sound goes from the browser straight to the bucket; a picture's thumbnail comes from it", async ({
  page,
}) => {
  await signInCookie(page, user);
  await page.goto("/files");
  await expect(page.getByRole("heading", { name: "Files", exact: true })).toBeVisible();
  const bucketBase = `${S3.endpoint}/${S3.bucket}/${PREFIX}`;

  // The sound: PUT cross-origin to the bucket's presigned URL, then completed by a server action.
  const put = page.waitForRequest((r) => r.method() === "PUT");
  await page
    .getByLabel("Choose a file to upload")
    .setInputFiles({ name: "tone.wav", mimeType: "audio/wav", buffer: makeWav(1.5) });
  const request = await put;
  const putUrl = new URL(request.url());
  expect(putUrl.origin).toBe(S3_ORIGIN);
  expect(putUrl.pathname.startsWith(`/${S3.bucket}/${PREFIX}`), putUrl.pathname).toBe(true);
  expect(putUrl.searchParams.get("X-Amz-Signature")).toBeTruthy();
  const response = await request.response();
  expect(response, `the PUT got no answer: ${request.failure()?.errorText ?? ""}`).not.toBeNull();
  expect(response!.status()).toBe(200);
  await expect(page.getByTestId("upload-message")).toContainText(/Uploaded tone\.wav as file_/);
  const tone = page.getByTestId("file-row").filter({ hasText: "tone.wav" });
  await expect(tone).toContainText("audio/wav");
  await expect(tone.getByTestId("file-measures")).toHaveText("1.5 s");
  // The File is a copy complete made (the presigned PUT outlives complete); the object it wrote is gone.
  const objectKey = decodeURIComponent(putUrl.pathname.slice(`/${S3.bucket}/`.length));
  expect(objectKey.startsWith(PREFIX)).toBe(true);
  expect(await listKeys(PREFIX)).not.toContain(objectKey);

  // A picture (uploaded through the studio) shows its thumbnail straight from the bucket.
  const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  await page
    .getByLabel("Choose a file to upload")
    .setInputFiles({ name: "swatch.png", mimeType: "image/png", buffer: png });
  await expect(page.getByTestId("upload-message")).toContainText(/Uploaded swatch\.png as file_/);
  const thumb = page.getByTestId("file-row").filter({ hasText: "swatch.png" }).getByTestId("file-thumbnail");
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(96);
  const thumbSrc = await thumb.evaluate((img: HTMLImageElement) => img.currentSrc || img.src);
  expect(thumbSrc.startsWith(bucketBase), thumbSrc).toBe(true);
  expect((await listKeys(PREFIX)).length).toBeGreaterThanOrEqual(2);

  // Nothing of either file was stored on the server's disk.
  expect(fs.existsSync(path.join(DATA_DIR, "blobs"))).toBe(false);
});

test("a run from the model page shows its image loaded from the bucket", async ({ page }) => {
  await signInCookie(page, user);
  await page.goto("/catalog/atelier/gradient");
  await expect(page.getByTestId("quote")).toContainText("Cost $");
  const before = new Set(await listKeys(PREFIX));
  await page.getByRole("button", { name: /^Run/ }).click();
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded", { timeout: 45_000 });
  runId = (await view.getAttribute("data-run-id"))!;
  expect(runId).toMatch(/^gen_/);

  const image = view.getByTestId("output-image").first();
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeGreaterThan(0);
  const src = await image.evaluate((img: HTMLImageElement) => img.currentSrc || img.src);
  const srcUrl = new URL(src);
  expect(srcUrl.origin).toBe(S3_ORIGIN);
  expect(srcUrl.pathname.startsWith(`/${S3.bucket}/${PREFIX}`), srcUrl.pathname).toBe(true);
  expect(srcUrl.searchParams.get("X-Amz-Signature")).toBeTruthy();
  // The output is an object of the bucket that was not there before the run.
  const objectKey = decodeURIComponent(srcUrl.pathname.slice(`/${S3.bucket}/`.length));
  expect(before.has(objectKey)).toBe(false);
  expect(await listKeys(PREFIX)).toContain(objectKey);
  expect(fs.existsSync(path.join(DATA_DIR, "blobs"))).toBe(false);

  await image.scrollIntoViewIfNeeded();
  await page.screenshot({ path: RESULT_SCREENSHOT, fullPage: true });
});

test("the run's Download link is a presigned bucket URL that answers with an attachment", async ({ page }) => {
  expect(runId, "test 2 made no run").not.toBe("");
  await signInCookie(page, user);
  await page.goto(`/runs/${runId}`);
  const view = page.getByTestId("run-view");
  await expect(view.getByTestId("status-pill")).toHaveAttribute("data-status", "succeeded");
  const link = view.getByTestId("output-download").first();
  const href = (await link.getAttribute("href"))!;
  const url = new URL(href, page.url());
  expect(url.origin).toBe(S3_ORIGIN);
  expect(url.pathname.startsWith(`/${S3.bucket}/${PREFIX}`), url.pathname).toBe(true);
  expect(url.searchParams.get("X-Amz-Signature")).toBeTruthy();
  const disposition = url.searchParams.get("response-content-disposition");
  expect(disposition, href).toMatch(/^attachment/);

  const answer = await page.request.get(url.toString());
  expect(answer.status(), await answer.text()).toBe(200);
  expect(answer.headers()["content-disposition"]).toMatch(/^attachment/);
  expect(answer.headers()["content-disposition"]).toBe(disposition);
  const bytes = await answer.body();
  // A PNG, and the same bytes the page shows.
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  const shown = await view
    .getByTestId("output-image")
    .first()
    .evaluate((img: HTMLImageElement) => img.currentSrc || img.src);
  const shownBytes = await (await page.request.get(shown)).body();
  expect(bytes.equals(shownBytes)).toBe(true);
});
