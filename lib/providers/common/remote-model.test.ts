// The polling side of remote entries, against a real local server speaking a small job protocol
// (POST /jobs → {id}; GET /jobs/:id → pending or done; DELETE /jobs/:id cancels), through an
// adapter written here for it: the image protocol in openai-images.ts answers in one call.
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { testRunTools } from "../../models/testing/test-tools";
import { ModelError, type ImageOutput } from "../../core/catalog/model-definition";
import { createHealth, markDown } from "./health";
import { providerUnavailableReason, remoteModelDefinition } from "./remote-model";
import { imageOutputOf } from "./response-bytes";
import { eventually, sendJson, startTestServer, type TestServer } from "../testing/test-server";
import {
  ProviderError,
  type ProviderAdapter,
  type ProviderConfig,
  type ProviderResult,
  type RemoteEntryConfig,
} from "./types";

const ENTRY: RemoteEntryConfig = {
  id: "slowco/painter",
  upstreamModel: "painter-2",
  name: "Painter",
  creator: "Slowco",
  description: "Paints slowly.",
  modality: "image",
  tasks: ["text-to-image"],
  revision: "2026-11-22",
  status: "beta",
  lifecycle: null,
  inputSchema: {
    type: "object",
    properties: { prompt: { type: "string", title: "Prompt", description: "What to paint." } },
    required: ["prompt"],
    additionalProperties: false,
  },
  pricing: { unit: "image", usd: "0.10", drivers: [], overrides: [] },
  options: {},
};

function configFor(url: string): ProviderConfig {
  return {
    id: "slowco",
    kind: "openai-images",
    baseUrl: url,
    apiKey: null,
    timeoutMs: 2_000,
    jobTimeoutMs: null,
    options: {},
    entries: [ENTRY],
  };
}

function jobsAdapter(
  url: string,
  billsOnSubmit: boolean,
  prepareRequest?: ProviderAdapter["prepareRequest"],
): ProviderAdapter {
  const health = createHealth();
  async function result(response: Response): Promise<ProviderResult> {
    if (response.status >= 500) {
      markDown(health, `HTTP ${response.status}`);
      throw new ProviderError(`The provider slowco failed (HTTP ${response.status}).`, true);
    }
    const body = (await response.json()) as { id: string; status: string; b64?: string; error?: string };
    if (body.status === "failed") throw new ProviderError(`The provider slowco failed the job: ${body.error}`, false);
    if (body.status !== "done") return { kind: "pending", jobId: body.id };
    return { kind: "done", outputs: [(await imageOutputOf(Buffer.from(body.b64!, "base64")))!] };
  }
  return {
    billsOnSubmit,
    health,
    ...(prepareRequest ? { prepareRequest } : {}),
    async submit(request, signal) {
      return result(
        await fetch(`${url}/jobs`, {
          method: "POST",
          body: JSON.stringify({ upstreamModel: request.upstreamModel, input: request.input }),
          signal,
        }),
      );
    },
    async poll(job, signal) {
      return result(await fetch(`${url}/jobs/${job.id}`, { signal }));
    },
    async cancel(job) {
      await fetch(`${url}/jobs/${job.id}`, { method: "DELETE" });
    },
  };
}

/** A job server: each job is done after `pollsNeeded` polls; `script` may answer a poll otherwise. */
async function startJobServer(
  pollsNeeded: number,
  script: (poll: number) => number | null = () => null,
): Promise<TestServer> {
  const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: "#3a6" } })
    .png()
    .toBuffer();
  let polls = 0;
  return startTestServer((request, res) => {
    if (request.method === "POST") return sendJson(res, 202, { id: "job_1", status: "queued" });
    if (request.method === "DELETE") return sendJson(res, 200, { id: "job_1", status: "canceled" });
    polls += 1;
    const status = script(polls);
    if (status !== null) return sendJson(res, status, { error: "scripted" });
    if (polls < pollsNeeded) return sendJson(res, 200, { id: "job_1", status: "running" });
    sendJson(res, 200, { id: "job_1", status: "done", b64: png.toString("base64") });
  });
}

const FAST = { firstPollMs: 10, maxPollMs: 40 };

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("remote entries", () => {
  it("carry the entry's catalog fields and the provider's id", () => {
    const model = remoteModelDefinition(
      configFor("http://127.0.0.1:9"),
      ENTRY,
      jobsAdapter("http://127.0.0.1:9", true),
    );
    expect(model).toMatchObject({
      id: "slowco/painter",
      type: "model",
      name: "Painter",
      creator: "Slowco",
      status: "beta",
      provider: "slowco",
      input_schema: ENTRY.inputSchema,
      pricing: ENTRY.pricing,
    });
    expect(model.unavailableReason!()).toBeNull();
  });

  it("poll a pending job with backoff until it is done", async () => {
    server = await startJobServer(3);
    const tools = testRunTools();
    const model = remoteModelDefinition(configFor(server.url), ENTRY, jobsAdapter(server.url, true), FAST);
    const [image] = (await model.run({ prompt: "a lighthouse" }, tools)) as ImageOutput[];
    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 24, height: 16 });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /jobs",
      "GET /jobs/job_1",
      "GET /jobs/job_1",
      "GET /jobs/job_1",
    ]);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      upstreamModel: "painter-2",
      input: { prompt: "a lighthouse" },
    });
    expect(tools.uncancelableReasons).toEqual(["provider"]);
  });

  it("stay cancelable at a provider that does not bill on submit, and cancel the job when the run is aborted", async () => {
    server = await startJobServer(1_000);
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal });
    const model = remoteModelDefinition(configFor(server.url), ENTRY, jobsAdapter(server.url, false), FAST);
    const run = model.run({ prompt: "a lighthouse" }, tools);
    while (server.requests.filter((r) => r.method === "GET").length < 2)
      await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error("run canceled"));
    await expect(run).rejects.toThrow("run canceled");
    expect(tools.uncancelableReasons).toEqual([]);
    expect(server.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/jobs/job_1" });
  });

  it("prepare the request before the cancel point, and submit what the preparation answered", async () => {
    server = await startJobServer(1);
    const tools = testRunTools();
    let atPreparation: string[] | null = null;
    const adapter = jobsAdapter(server.url, true, async (request) => {
      atPreparation = [...tools.uncancelableReasons];
      return { ...request, input: { ...request.input, prompt: `${String(request.input.prompt)} (prepared)` } };
    });
    const model = remoteModelDefinition(configFor(server.url), ENTRY, adapter, FAST);
    expect(await model.run({ prompt: "a lighthouse" }, tools)).toHaveLength(1);
    expect(atPreparation).toEqual([]);
    expect(tools.uncancelableReasons).toEqual(["provider"]);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      upstreamModel: "painter-2",
      input: { prompt: "a lighthouse (prepared)" },
    });
  });

  it("cancel the run when it is canceled during the preparation: the cancel point is never passed and nothing is submitted", async () => {
    server = await startJobServer(1);
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal });
    let preparing = false;
    // A preparation that ends only with the run's signal, like a hung upload.
    const adapter = jobsAdapter(server.url, true, (_request, signal) => {
      preparing = true;
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
      );
    });
    const model = remoteModelDefinition(configFor(server.url), ENTRY, adapter, FAST);
    const run = model.run({ prompt: "a lighthouse" }, tools);
    await eventually(() => preparing);
    controller.abort(new Error("run canceled"));
    await expect(run).rejects.toThrow("run canceled");
    expect(tools.uncancelableReasons).toEqual([]);
    expect(server.requests).toEqual([]);
    expect(tools.providerReports).toEqual([]);
  });

  it("submit nothing when the run was canceled between the preparation and the cancel point", async () => {
    server = await startJobServer(1);
    const tools = testRunTools();
    let prepared = false;
    tools.markUncancelable = async () => {
      throw new Error("the run was canceled before it passed its cancel point");
    };
    const adapter = jobsAdapter(server.url, true, async (request) => ((prepared = true), request));
    const model = remoteModelDefinition(configFor(server.url), ENTRY, adapter, FAST);
    await expect(model.run({ prompt: "a lighthouse" }, tools)).rejects.toThrow("cancel point");
    expect(prepared).toBe(true);
    expect(server.requests).toEqual([]);
  });

  it("share an outage the preparation found with the other processes, and submit nothing", async () => {
    server = await startJobServer(1);
    const tools = testRunTools();
    const health = createHealth();
    const adapter: ProviderAdapter = {
      ...jobsAdapter(server.url, true, async () => {
        markDown(health, "HTTP 503");
        throw new ProviderError("The provider slowco failed (HTTP 503).", true);
      }),
      health,
    };
    const model = remoteModelDefinition(configFor(server.url), ENTRY, adapter, FAST);
    await expect(model.run({ prompt: "a lighthouse" }, tools)).rejects.toThrow(
      "The provider slowco failed (HTTP 503).",
    );
    expect(tools.uncancelableReasons).toEqual([]);
    expect(tools.providerReports).toEqual([
      { providerId: "slowco", down: { until: expect.any(String), reason: expect.stringContaining("HTTP 503") } },
    ]);
    expect(server.requests).toEqual([]);
  });

  it("ride out a passing failure while polling, but not a lasting one", async () => {
    server = await startJobServer(4, (poll) => (poll === 2 ? 503 : null));
    const model = remoteModelDefinition(configFor(server.url), ENTRY, jobsAdapter(server.url, true), FAST);
    expect(await model.run({ prompt: "a lighthouse" }, testRunTools())).toHaveLength(1);
    await server.close();

    server = await startJobServer(1_000, (poll) => (poll >= 2 ? 503 : null));
    const failing = remoteModelDefinition(configFor(server.url), ENTRY, jobsAdapter(server.url, true), {
      ...FAST,
      maxPollFailures: 3,
    });
    await expect(failing.run({ prompt: "a lighthouse" }, testRunTools())).rejects.toThrow(
      new ProviderError("The provider slowco failed (HTTP 503).", true),
    );
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(4);
    expect(server.requests.at(-1)?.method).toBe("DELETE");
    expect(failing.unavailableReason!()?.message).toContain("HTTP 503");
  });

  it("follow the job under the new id a poll answers (an adapter that moved it), and cancel that one", async () => {
    const polled: string[] = [];
    const canceled: string[] = [];
    const adapter = scriptedAdapter([
      { kind: "pending", jobId: "job_1" },
      { kind: "pending", jobId: "job_2" },
      { kind: "pending", jobId: "job_2" },
    ]);
    const poll = adapter.poll.bind(adapter);
    adapter.poll = async (job, signal) => {
      polled.push(job.id);
      return poll(job, signal);
    };
    const model = remoteModelDefinition(configFor("http://127.0.0.1:9"), ENTRY, adapter, FAST);
    expect(await model.run({ prompt: "a lighthouse" }, testRunTools())).toHaveLength(1);
    expect(polled).toEqual(["job_1", "job_1", "job_2", "job_2"]);

    const controller = new AbortController();
    const moving = scriptedAdapter(Array.from({ length: 1_000 }, () => ({ kind: "pending", jobId: "job_9" }) as const));
    moving.cancel = async (job) => void canceled.push(job.id);
    const run = remoteModelDefinition(configFor("http://127.0.0.1:9"), ENTRY, moving, FAST).run(
      { prompt: "a lighthouse" },
      testRunTools({ signal: controller.signal }),
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    controller.abort(new Error("run canceled"));
    await expect(run).rejects.toThrow("run canceled");
    expect(canceled).toEqual(["job_9"]);
  });

  it("give a job up, and cancel it, once it takes longer than allowed", async () => {
    server = await startJobServer(1_000);
    const model = remoteModelDefinition(configFor(server.url), ENTRY, jobsAdapter(server.url, true), {
      ...FAST,
      maxWaitMs: 200,
    });
    const failure = model.run({ prompt: "a lighthouse" }, testRunTools());
    await expect(failure).rejects.toBeInstanceOf(ModelError);
    await expect(failure).rejects.toThrow("The provider slowco did not finish within 0.2 s.");
    expect(server.requests.at(-1)?.method).toBe("DELETE");
  });
});

/** An adapter whose polls answer `answers` in turn (the last one again), the images done after them. */
function scriptedAdapter(answers: ProviderResult[], billsOnSubmit = false): ProviderAdapter {
  let polls = 0;
  return {
    billsOnSubmit,
    health: createHealth(),
    async submit() {
      return { kind: "pending", jobId: "job_1", started: false };
    },
    async poll() {
      const answer = answers[polls++];
      if (answer) return answer;
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#36a" } })
        .png()
        .toBuffer();
      return { kind: "done", outputs: [(await imageOutputOf(png))!] };
    },
  };
}

describe("remote entries at a provider with its own queue", () => {
  /** Test tools that also log, in one order, the places told and the cancel point passed. */
  function loggingTools() {
    const tools = testRunTools();
    const log: string[] = [];
    return {
      log,
      tools: {
        ...tools,
        reportQueuePosition(position: number | null) {
          log.push(`place ${position}`);
        },
        async markUncancelable(reason: string) {
          log.push(`cancel point ${reason}`);
        },
      },
    };
  }

  it("tell the run its place in the provider's queue on every poll, and clear it once the provider starts the job, before its cancel point", async () => {
    const { tools, log } = loggingTools();
    const model = remoteModelDefinition(
      configFor("http://127.0.0.1:9"),
      ENTRY,
      scriptedAdapter([
        { kind: "pending", jobId: "job_1", started: false, queuePosition: 2 },
        { kind: "pending", jobId: "job_1", started: false, queuePosition: 1 },
        { kind: "pending", jobId: "job_1", started: false, queuePosition: 0 },
        { kind: "pending", jobId: "job_1", started: true, progress: 0.5 },
        { kind: "pending", jobId: "job_1", started: true, progress: 0.9 },
      ]),
      FAST,
    );
    expect(await model.run({ prompt: "a lighthouse" }, tools)).toHaveLength(1);
    expect(log).toEqual([
      "place 2",
      "place 1",
      "place 0",
      "place null",
      "cancel point provider",
      "place null",
      // The job is over: whatever the provider said last, no place is left behind.
      "place null",
    ]);
  });

  it("clear the place when the job is done straight from the provider's queue, or the run fails meanwhile", async () => {
    const done = loggingTools();
    const quick = remoteModelDefinition(
      configFor("http://127.0.0.1:9"),
      ENTRY,
      scriptedAdapter([{ kind: "pending", jobId: "job_1", started: false, queuePosition: 3 }]),
      FAST,
    );
    expect(await quick.run({ prompt: "a lighthouse" }, done.tools)).toHaveLength(1);
    expect(done.log).toEqual(["place 3", "place null"]);

    const failed = loggingTools();
    const adapter = scriptedAdapter([{ kind: "pending", jobId: "job_1", started: false, queuePosition: 1 }]);
    const poll = adapter.poll.bind(adapter);
    let polls = 0;
    adapter.poll = async (job, signal) => {
      if (++polls === 2) throw new ProviderError("The provider slowco failed the job: out of memory", false);
      return poll(job, signal);
    };
    const failing = remoteModelDefinition(configFor("http://127.0.0.1:9"), ENTRY, adapter, FAST);
    await expect(failing.run({ prompt: "a lighthouse" }, failed.tools)).rejects.toThrow("out of memory");
    expect(failed.log).toEqual(["place 1", "place null"]);
  });

  it("tell nothing of a place when the provider gives none", async () => {
    const { tools, log } = loggingTools();
    const model = remoteModelDefinition(
      configFor("http://127.0.0.1:9"),
      ENTRY,
      scriptedAdapter([{ kind: "pending", jobId: "job_1" }]),
      FAST,
    );
    expect(await model.run({ prompt: "a lighthouse" }, tools)).toHaveLength(1);
    // Only the clear at the end, which the engine drops when no place was shown.
    expect(log).toEqual(["place null"]);
  });
});

describe("providerUnavailableReason", () => {
  it("is null while healthy, and says why and until when while down", () => {
    const health = createHealth();
    expect(providerUnavailableReason("acme", health)).toBeNull();
    markDown(health, "HTTP 503", 30_000, Date.parse("2026-11-22T10:00:00Z"));
    expect(providerUnavailableReason("acme", health, Date.parse("2026-11-22T10:00:10Z"))).toEqual({
      message: "its provider acme is failing (HTTP 503, at 2026-11-22T10:00:00.000Z)",
      until: "2026-11-22T10:00:30.000Z",
    });
    expect(providerUnavailableReason("acme", health, Date.parse("2026-11-22T10:00:30Z"))).toBeNull();
  });
});
