// The studio's security headers in a real browser: the Content-Security-Policy on its pages
// (no site may frame them; scripts run only with the answer's own nonce, and the studio's own
// scripts all run, with no violation reported), a frame of /keys from another origin refused,
// and a share page's output links that stop answering the moment the share link is revoked (a
// run's ordinary output links unaffected).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { newKey, newUser, signIn, signInCookie, startRun, waitFinal } from "./helpers";
import { STUDIO_URL } from "./playwright.config";

/** Records what the page's CSP refuses: console errors naming it and `securitypolicyviolation` events. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const console: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply|frame|connect)/i.test(message.text()))
      console.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return async () => [
    ...console,
    ...(await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])),
  ];
}

/** The policy's script-src directive, as sent. */
function scriptSrc(policy: string | undefined): string {
  return (
    (policy ?? "")
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith("script-src ")) ?? ""
  );
}

/** The nonce a policy's script-src names. */
function nonceOf(policy: string | undefined): string {
  return /'nonce-([^']+)'/.exec(scriptSrc(policy))?.[1] ?? "";
}

test("every page answer has a nonce of its own, on every script of the page, and no inline scripts without it", async ({
  request,
}) => {
  const seen = new Set<string>();
  // /sign-in twice: one page, two answers, two nonces. /docs/* would be prerendered without the nonce; a 404 too.
  for (const path of ["/sign-in", "/sign-in", "/docs/api", "/docs/errors", "/no-such-page"]) {
    const res = await request.get(path, { maxRedirects: 0 });
    const policy = res.headers()["content-security-policy"];
    expect(scriptSrc(policy), path).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/]{22}==' 'strict-dynamic'$/);
    expect(policy, path).not.toMatch(/unsafe-eval/);
    const nonce = nonceOf(policy);
    expect(seen.has(nonce), `${path}: a nonce seen before`).toBe(false);
    seen.add(nonce);
    // Next's inline payload and hydration scripts, its chunk tags and the early-input script: all with this nonce.
    const tags = (await res.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(tags.length, path).toBeGreaterThan(2);
    for (const tag of tags) expect(tag, path).toContain(` nonce="${nonce}"`);
  }

  // A policy the client sends names no nonce the page then uses: the server's replaces it.
  const forged = "script-src 'nonce-AAAAAAAAAAAAAAAAAAAAAA=='";
  const res = await request.get("/sign-in", { headers: { "content-security-policy": forged } });
  const html = await res.text();
  expect(html).not.toContain("AAAAAAAAAAAAAAAAAAAAAA==");
  expect(html).toContain(` nonce="${nonceOf(res.headers()["content-security-policy"])}"`);

  // A script file is not a page: same-origin scripts only, no nonce spent on it.
  const chunk = /<script\b[^>]*\bsrc="(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
  expect(chunk).toBeDefined();
  const file = await request.get(chunk!);
  expect(file.status()).toBe(200);
  expect(scriptSrc(file.headers()["content-security-policy"])).toBe("script-src 'self'");
  expect(file.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
});

test("studio pages send a CSP no site may frame, and run every script of their own under it", async ({
  page,
  request,
}) => {
  for (const path of ["/keys", "/catalog", "/sign-in"]) {
    const res = await request.get(path, { maxRedirects: 0 });
    const headers = res.headers();
    expect(headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"], path).toMatch(/script-src 'self'/);
    expect(headers["x-frame-options"], path).toBe("DENY");
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
  }

  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  const runId = await startRun(request, key, "atelier/gradient", { prompt: "csp check" });
  expect(await waitFinal(request, key, runId)).toBe("succeeded");
  const violations = await watchViolations(page);
  await page.goto("/sign-in");
  await page.waitForLoadState("networkidle");
  expect(await violations(), "/sign-in").toEqual([]);
  // The root layout's inline early-input script ran: it carries the nonce.
  expect(await page.evaluate(() => typeof window.__atelierEarlyInput)).toBe("object");
  // Signed out: the API reference (Scalar loads its own chunks) and a 404 page.
  await page.goto("/docs/api");
  await expect(page.getByRole("heading", { name: "Atelier API" })).toBeVisible({ timeout: 30_000 });
  // Scalar's Zod tries `Function("")` once to see whether it may compile validators and, refused,
  // validates without: the one refusal expected here (eval stays off). No script is refused.
  expect(
    (await violations()).filter((v) => v !== "script-src eval"),
    "/docs/api",
  ).toEqual([]);
  expect((await page.goto("/no-such-page"))!.status()).toBe(404);
  await page.getByRole("link", { name: "Back to the catalog" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  expect(await violations(), "404").toEqual([]);
  // Signing in is the client-side form (hydrated), not a plain form post.
  await signIn(page, user);
  for (const path of ["/catalog", "/keys", `/runs/${runId}`, "/models/atelier/gradient"]) {
    const res = await page.goto(path);
    expect(res!.status(), path).toBe(200);
    await page.waitForLoadState("networkidle");
    // Hydrated: React answers a click (the early-input script and Next's inline scripts ran).
    expect(await page.evaluate(() => document.readyState)).toBe("complete");
    expect(await violations(), path).toEqual([]);
  }
  // The studio's interactive parts work: the catalog's filters, a client-side navigation from a link.
  await page.goto("/catalog");
  const cards = page.getByTestId("model-card");
  await expect(cards.first()).toBeVisible();
  await page.getByPlaceholder("Search models").fill("qr");
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText("atelier/qr-code");
  await page
    .getByRole("link", { name: /API keys/i })
    .first()
    .click();
  await expect(page).toHaveURL(/\/keys$/);
  expect(await violations()).toEqual([]);
});

test("another origin cannot frame /keys", async ({ page }) => {
  // A page on another origin (127.0.0.1 on its own port, the studio is localhost:3401) that frames /keys.
  const framer: Server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(
      `<!doctype html><title>framer</title><iframe id="f" src="${STUDIO_URL}/keys" width="800" height="600"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => framer.listen(0, "127.0.0.1", resolve));
  try {
    const messages: string[] = [];
    page.on("console", (m) => messages.push(m.text()));
    const studioAnswers: number[] = [];
    page.on("response", (r) => {
      if (r.url().startsWith(STUDIO_URL)) studioAnswers.push(r.status());
    });
    await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
    // The studio answered the frame's request, and the browser refused to show it.
    await expect.poll(() => studioAnswers.length).toBeGreaterThan(0);
    await expect.poll(() => messages.some((m) => /frame-ancestors 'none'/.test(m))).toBe(true);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // Nothing of the studio inside: the frame holds the browser's error page, not a studio document.
    const title = await frame!.evaluate(() => document.title).catch(() => "");
    expect(title).not.toMatch(/Atelier/);
    expect(frame!.url().startsWith(STUDIO_URL)).toBe(false);
  } finally {
    await new Promise<void>((resolve) => framer.close(() => resolve()));
  }
});

test("a share page's output links stop answering when the share link is revoked; the run's own links do not", async ({
  page,
  request,
  browser,
}) => {
  const user = newUser("owner", "5");
  const key = newKey(user.workspaceId);
  const runId = await startRun(request, key, "atelier/gradient", { prompt: "revoked share bytes" });
  expect(await waitFinal(request, key, runId)).toBe("succeeded");

  await signInCookie(page, user);
  await page.goto(`/runs/${runId}`);
  const panel = page.getByTestId("share-panel");
  await panel.getByRole("button", { name: "Create link" }).click();
  const url = panel.getByTestId("share-url");
  await expect(url).toHaveValue(/\/s\/[0-9A-Za-z]{24}\.[0-9A-Za-z_-]{22}$/);
  const shareUrl = await url.inputValue();

  const guest = await browser.newContext({ baseURL: STUDIO_URL });
  const shared = await guest.newPage();
  expect((await shared.goto(shareUrl))!.status()).toBe(200);
  const shareHeaders = (await shared.request.get(shareUrl)).headers();
  expect(shareHeaders["content-security-policy"]).toContain("frame-ancestors 'none'");
  const links = [
    await shared.getByTestId("shared-image").first().getAttribute("src"),
    await shared.getByTestId("shared-download").first().getAttribute("href"),
  ].map((l) => new URL(l!, STUDIO_URL).href);
  for (const link of links) {
    expect(new URL(link).searchParams.get("share")).toMatch(/^shr_/);
    const res = await shared.request.get(link);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-security-policy"]).toBe("sandbox");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
  }
  // The run's ordinary output link, as the API answers it.
  const run = (await (await request.get(`/v1/generations/${runId}`, { headers: { "x-api-key": key } })).json()) as {
    output: { url: string }[];
  };
  const ownLink = run.output[0]!.url;
  expect(new URL(ownLink).searchParams.get("share")).toBeNull();

  await page
    .getByTestId("share-link")
    .first()
    .getByRole("button", { name: /^Revoke link/ })
    .click();
  await expect(page.getByTestId("share-link").first()).toHaveAttribute("data-state", "revoked");
  for (const link of links) {
    const res = await shared.request.get(link);
    expect(res.status(), link).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("resource_not_found");
  }
  // A link changed to name another share, or to drop its share, no longer matches its signature.
  const stripped = new URL(links[0]!);
  stripped.searchParams.delete("share");
  expect((await shared.request.get(stripped.href)).status()).toBe(403);
  expect((await request.get(ownLink)).status()).toBe(200);
  await guest.close();
});
