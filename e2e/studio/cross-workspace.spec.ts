// One workspace's things never reach another's user: workspace A gets a run with an output, a
// file, an upload, a batch, a share link, a webhook endpoint (with a delivered event) and a key;
// then a creator of workspace B asks for every page that takes an ID with A's IDs, as a document
// and as the client router's RSC fetch (which renders the page even when a layout answers 404),
// and calls every server action that takes an ID with A's IDs. Each answer is a 404 or the
// action's refusal, and no body holds A's workspace name or ID, the run's prompt or a blob link.
// An operator of B still sees A's run on the ops pages (read-only, across workspaces by design).
import { expect, test, type APIRequestContext, type APIResponse, type Browser, type Page } from "@playwright/test";
import {
  admin,
  callAction,
  newUser,
  screenshot,
  serverActions,
  signIn,
  signInCookie,
  startRun,
  waitFinal,
  type TestUser,
} from "./helpers";
import { STUDIO_URL } from "./playwright.config";

interface WorkspaceA {
  user: TestUser;
  key: string;
  keyId: string;
  /** A word only A's run prompt holds. */
  secret: string;
  runId: string;
  /** The storage key of the run's output (the part after /v1/blobs/). */
  blobKey: string;
  fileId: string;
  uploadId: string;
  batchId: string;
  webhookId: string;
  eventId: string;
  shareUrl: string;
}

const api = (key: string) => ({ headers: { "x-api-key": key } });

async function json<T>(res: APIResponse, status: number): Promise<T> {
  expect(res.status(), await res.text()).toBe(status);
  return (await res.json()) as T;
}

async function setUpWorkspaceA(request: APIRequestContext, browser: Browser): Promise<WorkspaceA> {
  const user = newUser("owner", "5");
  const { id: keyId, key } = admin<{ id: string; key: string }>([
    "key",
    "create",
    "--workspace",
    user.workspaceId,
    "--name",
    "cross workspace",
  ]);
  const secret = `pangolin${Date.now().toString(36)}`;
  const webhook = await json<{ id: string }>(
    await request.post("/v1/webhooks", {
      ...api(key),
      data: { url: "http://127.0.0.1:9/cross-workspace-hook", description: `hook of ${secret}` },
    }),
    201,
  );
  const runId = await startRun(request, key, "atelier/gradient", { prompt: `a ${secret} at dusk` });
  expect(await waitFinal(request, key, runId)).toBe("succeeded");
  const run = await json<{ output: { url: string }[] }>(await request.get(`/v1/generations/${runId}`, api(key)), 200);
  const blobKey = /\/v1\/blobs\/([^?]+)/.exec(run.output[0]!.url)![1]!;
  const file = await json<{ id: string }>(await request.post(`/v1/generations/${runId}/outputs/0/file`, api(key)), 201);
  const upload = await json<{ id: string }>(
    await request.post("/v1/uploads", {
      ...api(key),
      data: { filename: "a.mp3", content_type: "audio/mpeg", bytes: 1000 },
    }),
    201,
  );
  const batch = await json<{ id: string }>(
    await request.post("/v1/batches", {
      ...api(key),
      data: { requests: [{ model: "atelier/gradient", input: { prompt: `batch ${secret}` } }] },
    }),
    201,
  );
  // The run's ending event, sent to the endpoint above.
  let eventId = "";
  await expect
    .poll(async () => {
      const events = await json<{ data: { id: string; data: { id?: string } }[] }>(
        await request.get("/v1/events", api(key)),
        200,
      );
      eventId = events.data.find((e) => JSON.stringify(e).includes(runId))?.id ?? "";
      return eventId;
    })
    .not.toBe("");

  // The share link, made on the run page by A's user (prompt not shown).
  const context = await browser.newContext({ baseURL: STUDIO_URL });
  const page = await context.newPage();
  await signInCookie(page, user);
  await page.goto(`/runs/${runId}`);
  const panel = page.getByTestId("share-panel");
  await panel.getByRole("checkbox", { name: "Show the prompt and settings" }).uncheck();
  await panel.getByRole("button", { name: "Create link" }).click();
  await expect(panel.getByTestId("share-url")).toHaveValue(/\/s\/[0-9A-Za-z]{24}\.[0-9A-Za-z_-]{22}$/);
  const shareUrl = await panel.getByTestId("share-url").inputValue();
  await context.close();
  return {
    user,
    key,
    keyId,
    secret,
    runId,
    blobKey,
    fileId: file.id,
    uploadId: upload.id,
    batchId: batch.id,
    webhookId: webhook.id,
    eventId,
    shareUrl,
  };
}

/** What no answer to B may hold (besides what B's own request named: an address echoes its query). */
function expectNothingOf(a: WorkspaceA, body: string, what: string, asked = ""): void {
  for (const [name, value] of [
    ["A's workspace name", a.user.workspaceName],
    ["A's workspace ID", a.user.workspaceId],
    ["A's prompt", a.secret],
    ["a blob link", "/v1/blobs/"],
    ["A's output blob", a.blobKey],
  ] as const) {
    if (!asked.includes(value)) expect(body.includes(value), `${what} holds ${name}`).toBe(false);
  }
}

/** A page as a browser's document request (HTML wanted, so the server hands it to the studio), and as the client router's RSC fetch. */
const AS_DOCUMENT = { Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };
const AS_RSC = { RSC: "1" };

/**
 * What a notFound() leaves in an RSC payload. An RSC fetch of a refused page answers 200 (Next
 * has begun the stream) with this error in it, which the client router turns into the 404 page.
 */
const NOT_FOUND_MARK = "NEXT_HTTP_ERROR_FALLBACK;404";

/** A form action with a FormData argument, encoded as React does (`$K1` names the form's fields `1_…`). */
async function callFormAction(
  page: Page,
  pagePath: string,
  id: string,
  fields: Record<string, string>,
): Promise<APIResponse> {
  const multipart: Record<string, string> = { "0": JSON.stringify([null, "$K1"]) };
  for (const [k, v] of Object.entries(fields)) multipart[`1_${k}`] = v;
  return page.request.post(pagePath, {
    headers: { "Next-Action": id, Accept: "text/x-component" },
    multipart,
    maxRedirects: 0,
  });
}

test("a creator of another workspace gets 404s and refusals, and nothing of the workspace, for every ID-taking page and action", async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const a = await setUpWorkspaceA(request, browser);
  const b = newUser("owner", "5");
  const bOps = { email: `ops-of-b-${Date.now().toString(36)}@example.com`, password: "studio-pass-1" };
  admin([
    "user",
    "create",
    "--email",
    bOps.email,
    "--password",
    bOps.password,
    "--workspace",
    b.workspaceId,
    "--role",
    "creator",
    "--ops",
  ]);

  // An operator of B reads A's run on the ops pages (read-only, across workspaces).
  const opsContext = await browser.newContext({ baseURL: STUDIO_URL });
  const opsPage = await opsContext.newPage();
  await signIn(opsPage, bOps);
  expect((await opsPage.goto("/ops"))?.status()).toBe(200);
  await expect(opsPage.getByTestId("ops-run").filter({ hasText: a.runId })).toContainText(a.user.workspaceName);
  const shareRow = opsPage.getByTestId("ops-share").filter({ hasText: a.runId });
  await expect(shareRow).toContainText(a.user.workspaceName);
  const shareId = (await shareRow.getAttribute("data-share-id"))!;
  expect(shareId).toMatch(/^shr_/);
  expect((await opsPage.goto(`/ops/runs/${a.runId}`))?.status()).toBe(200);
  await expect(opsPage.getByTestId("ops-run-workspace")).toContainText(a.user.workspaceName);
  await expect(opsPage.getByTestId("run-prompt")).toContainText(a.secret);
  await expect(opsPage.getByTestId("output-image")).toBeVisible();
  await screenshot(opsPage, "cross-workspace-ops-run");
  const opsRsc = await opsPage.request.get(`/ops/runs/${a.runId}`, { headers: AS_RSC });
  expect(opsRsc.status()).toBe(200);
  expect(await opsRsc.text()).toContain(a.secret);
  await opsContext.close();

  await signIn(page, b);
  const pages = [`/runs/${a.runId}`, `/ops/runs/${a.runId}`, "/ops", `/ops?workspace=${a.user.workspaceId}`];
  for (const url of pages) {
    const document = await page.request.get(url, { headers: AS_DOCUMENT });
    expect(document.status(), `GET ${url}`).toBe(404);
    expectNothingOf(a, await document.text(), `GET ${url}`, url);
    const rsc = await page.request.get(url, { headers: AS_RSC });
    const body = await rsc.text();
    expect([200, 404], `RSC ${url}`).toContain(rsc.status());
    expect(body, `RSC ${url}`).toContain(NOT_FOUND_MARK);
    expectNothingOf(a, body, `RSC ${url}`, url);
  }
  // Pages of B's own that take an ID or a filter in the query: they answer, with nothing of A.
  const ownPages = [
    `/catalog/atelier/gradient?from=${a.runId}`,
    `/runs?batch=${a.batchId}`,
    `/runs?q=${a.secret}`,
    "/runs",
    "/files",
    "/keys",
    "/webhooks",
  ];
  for (const url of ownPages) {
    for (const headers of [AS_DOCUMENT, AS_RSC]) {
      const res = await page.request.get(url, { headers });
      const what = `GET ${url} ${JSON.stringify(headers)}`;
      expect(res.status(), what).toBe(200);
      const body = await res.text();
      expect(body, what).not.toContain(NOT_FOUND_MARK);
      expectNothingOf(a, body, what, url);
      expect(body.includes(a.runId), `${what} holds A's run ID`).toBe(url.includes(a.runId));
      for (const id of [a.fileId, a.webhookId, a.keyId]) expect(body.includes(id), `${what} holds ${id}`).toBe(false);
    }
  }
  const alias = await page.request.get(`/models/atelier/gradient?from=${a.runId}`, {
    headers: AS_DOCUMENT,
    maxRedirects: 0,
  });
  expect(alias.status()).toBe(307);
  expectNothingOf(a, await alias.text(), "the /models alias");

  // Route handlers: the live runs stream refuses A's run before streaming; the examples route
  // serves catalog pictures only, never a run's output.
  const events = await page.request.get(`/api/runs/events?ids=${a.runId}`);
  expect(events.status()).toBe(404);
  expectNothingOf(a, await events.text(), "the runs stream");
  const example = await page.request.get(`/api/examples/${a.blobKey.replace(/\..*$/, "")}.webp`);
  expect(example.status()).toBe(404);

  // The public share page shows what A chose to share, and nothing of A's workspace.
  const shared = await page.request.get(a.shareUrl, { headers: AS_DOCUMENT });
  expect(shared.status()).toBe(200);
  const sharedBody = await shared.text();
  for (const value of [a.user.workspaceName, a.user.workspaceId, a.secret, a.runId])
    expect(sharedBody.includes(value)).toBe(false);
  expect(
    (
      await page.request.get(`${a.shareUrl.slice(0, -1)}${a.shareUrl.endsWith("A") ? "B" : "A"}`, {
        headers: AS_DOCUMENT,
      })
    ).status(),
  ).toBe(404);

  // Server actions with A's IDs: each refuses (not found), and answers nothing of A.
  const actions = serverActions();
  const action = (file: string, name: string) => {
    const id = actions.get(`${file}#${name}`);
    expect(id, `${file}#${name} in the build's server actions`).toBeTruthy();
    return id!;
  };
  const endpointInput = { url: "http://127.0.0.1:9/taken-over", description: "taken over", event_types: [] };
  const calls: { page: string; file: string; name: string; args: unknown[] }[] = [
    { page: "/runs", file: "app/_studio/actions/runs.ts", name: "getRunAction", args: [a.runId] },
    { page: "/runs", file: "app/_studio/actions/runs.ts", name: "cancelRunAction", args: [a.runId] },
    { page: "/runs", file: "app/_studio/actions/runs.ts", name: "keepOutputAction", args: [a.runId, 0] },
    { page: "/runs", file: "app/_studio/actions/runs.ts", name: "completeUploadAction", args: [a.uploadId] },
    {
      page: "/runs",
      file: "app/_studio/actions/shares.ts",
      name: "createShareLinkAction",
      args: [a.runId, { expires: "7d", showInput: true }],
    },
    { page: "/runs", file: "app/_studio/actions/shares.ts", name: "revokeShareLinkAction", args: [shareId] },
    {
      page: "/webhooks",
      file: "app/_studio/actions/webhooks.ts",
      name: "updateEndpointAction",
      args: [a.webhookId, endpointInput],
    },
    {
      page: "/webhooks",
      file: "app/_studio/actions/webhooks.ts",
      name: "setEndpointEnabledAction",
      args: [a.webhookId, false],
    },
    { page: "/webhooks", file: "app/_studio/actions/webhooks.ts", name: "deleteEndpointAction", args: [a.webhookId] },
    {
      page: "/webhooks",
      file: "app/_studio/actions/webhooks.ts",
      name: "resendEventAction",
      args: [a.eventId, a.webhookId],
    },
    { page: "/webhooks", file: "app/_studio/actions/webhooks.ts", name: "resendEventAction", args: [a.eventId, null] },
    { page: "/keys", file: "app/_studio/actions/keys.ts", name: "revokeKeyAction", args: [a.keyId] },
  ];
  for (const call of calls) {
    const res = await callAction(page, call.page, action(call.file, call.name), call.args);
    const what = `${call.name}(${JSON.stringify(call.args)})`;
    const body = await res.text();
    expect(res.status(), what).toBe(200);
    expect(body, what).toMatch(/"ok":false/);
    // Every not-found message of the core starts so ("No generation gen_… in this workspace.").
    expect(body, what).toMatch(/"message":"No /);
    expectNothingOf(a, body, what);
  }
  // The ops actions: a creator gets the not-found answer, and nothing changes.
  const opsActions = [
    callFormAction(page, "/ops", action("app/_studio/actions/ops.ts", "grantCreditAction"), {
      workspace: a.user.workspaceId,
      amount: "100",
      note: "",
    }),
    callAction(page, "/ops", action("app/_studio/actions/ops.ts", "pauseModelAction"), [
      "atelier/gradient",
      { reason: "taken over", hours: null },
    ]),
    callAction(page, "/ops", action("app/_studio/actions/ops.ts", "resumeModelAction"), ["atelier/gradient"]),
  ];
  for (const res of await Promise.all(opsActions)) {
    const body = await res.text();
    expect(res.status(), body.slice(0, 300)).toBe(404);
    expect(body).not.toMatch(/"ok":(true|false)/);
    expectNothingOf(a, body, "an ops action");
  }

  // A's things are as they were.
  expect(
    (await json<{ status: string }>(await request.get(`/v1/generations/${a.runId}`, api(a.key)), 200)).status,
  ).toBe("succeeded");
  expect(
    await json<{ enabled: boolean; url: string }>(await request.get(`/v1/webhooks/${a.webhookId}`, api(a.key)), 200),
  ).toMatchObject({
    enabled: true,
    url: "http://127.0.0.1:9/cross-workspace-hook",
  });
  expect((await request.get(`/v1/files/${a.fileId}`, api(a.key))).status()).toBe(200);
  expect(
    Number((await json<{ available_usd: string }>(await request.get("/v1/credits", api(a.key)), 200)).available_usd),
  ).toBeLessThan(5);
  expect((await request.get(a.shareUrl, { headers: AS_DOCUMENT })).status()).toBe(200);
  expect(
    (await json<{ data: { status: string }[] }>(await request.get("/v1/public/models", {}), 200)).data.length,
  ).toBeGreaterThan(0);
  const model = await json<{ availability: { status: string } }>(
    await request.get("/v1/models/atelier/gradient", api(a.key)),
    200,
  );
  expect(model.availability.status).toBe("available");
});
