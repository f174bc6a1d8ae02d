// The status stream (GET /v1/generations/{id} with Accept: text/event-stream, and the studio's
// live run view): run finished → final event, in-process and across processes; many open
// streams on queued runs (RSS, store queries); run finished → the output image painted in
// Chromium. Every latency is the wall clock of its arrival against the run's completed_at,
// which the store sets inside the finish transaction just before commit and signal (same
// machine, same clock; millisecond resolution).
import { existsSync } from "node:fs";
import http from "node:http";
import { chromium } from "playwright-core";
import type { Generation } from "../../lib/core/runs/generation-view";
import { isFinal } from "../../lib/core/runs/run-states";
import type { BenchSettings } from "../lib/context";
import { holdIdleReaders, idleReaderRows } from "../lib/idle-readers";
import type { Row } from "../lib/results";
import type { ServerHandle } from "../lib/server";
import { percentile, sleep } from "../lib/stats";
import type { FastestModel } from "./runs";
import { signIn, studioUser } from "./studio";

/** One Server-Sent Event as the client parsed it, with the wall clock of the chunk that completed it. */
export interface ReceivedEvent {
  id: string | null;
  event: string;
  data: string;
  at: number;
}

/** Parses an event stream chunk by chunk (WHATWG format: fields, blank line ends an event, `:` a comment). */
export function eventParser(onEvent: (event: ReceivedEvent) => void): (chunk: Buffer) => void {
  let buffer = "";
  let id: string | null = null;
  let event = "";
  let data: string[] = [];
  return (chunk) => {
    const at = Date.now();
    buffer += chunk.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (line === "") {
        if (data.length > 0) onEvent({ id, event: event || "message", data: data.join("\n"), at });
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
      else if (field === "id") id = value;
    }
  };
}

interface FollowedRun {
  events: { generation: Generation; at: number }[];
  /** The server ended the response (it does right after the final state). */
  ended: boolean;
}

/** Follows one run's status stream until the server ends it (or `timeoutMs`). */
function followStream(
  server: ServerHandle,
  key: string,
  id: string,
  agent: http.Agent,
  timeoutMs = 30_000,
): Promise<FollowedRun> {
  return new Promise((resolve, reject) => {
    const out: FollowedRun = { events: [], ended: false };
    const req = http.get(
      `${server.api}/v1/generations/${id}`,
      { agent, headers: { "x-api-key": key, accept: "text/event-stream" } },
      (res) => {
        if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
          res.resume();
          reject(
            new Error(
              `GET /v1/generations/${id} (event stream) answered ${res.statusCode} ${res.headers["content-type"]}`,
            ),
          );
          return;
        }
        res.on(
          "data",
          eventParser((e) => {
            if (e.event === "generation") out.events.push({ generation: JSON.parse(e.data) as Generation, at: e.at });
          }),
        );
        res.on("end", () => {
          clearTimeout(timer);
          out.ended = true;
          resolve(out);
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve(out);
    }, timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

export interface StreamLatency {
  /** completed_at → arrival of the final event, ms. */
  finished: number[];
  /** Runs that had already finished when their stream opened (its first event was final): not samples. */
  missed: number;
  problems: string[];
}

/**
 * One run of the fastest image model at a time: POST /v1/generations, then at once its status
 * stream; the final event's arrival against the run's completed_at. A run that finished before
 * its stream was open (the first event already final) measures the opening, not the signal: it
 * is counted as missed and another run is made.
 */
export async function streamLatency(
  settings: BenchSettings,
  server: ServerHandle,
  key: string,
  model: FastestModel,
): Promise<StreamLatency> {
  const n = settings.smoke ? 5 : 200;
  const warmup = settings.smoke ? 1 : 5;
  const body = JSON.stringify({ model: model.id, input: model.input });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const out: StreamLatency = { finished: [], missed: 0, problems: [] };
  let notClosed = 0;
  try {
    for (let attempt = 0; out.finished.length < n && attempt < warmup + n * 3; attempt++) {
      const res = await fetch(`${server.api}/v1/generations`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body,
      });
      const created = (await res.json()) as Generation;
      if (res.status !== 201)
        throw new Error(`POST /v1/generations answered ${res.status}: ${JSON.stringify(created)}`);
      const followed = await followStream(server, key, created.id, agent);
      const first = followed.events[0];
      const last = followed.events.at(-1);
      if (!first || !last || !isFinal(last.generation.status))
        throw new Error(`the stream of ${created.id} ended without a final event (${followed.events.length} events)`);
      if (last.generation.status !== "succeeded" || !last.generation.completed_at)
        throw new Error(`run ${created.id} ended ${last.generation.status}`);
      if (!followed.ended) notClosed += 1;
      if (attempt < warmup) continue;
      if (isFinal(first.generation.status)) out.missed += 1;
      else out.finished.push(last.at - Date.parse(last.generation.completed_at));
      await sleep(30); // every worker slot asleep again
    }
  } finally {
    agent.destroy();
  }
  if (out.finished.length < n)
    out.problems.push(
      `only ${out.finished.length} of ${n} samples (${out.missed} runs finished before their stream opened)`,
    );
  if (notClosed > 0) out.problems.push(`${notClosed} streams not closed after the final event`);
  return out;
}

/** p50 (information) and p99 (the target) of streamLatency. */
export function streamLatencyRows(where: string, latency: StreamLatency, p99Target: number): Row[] {
  const scenario = `status stream: run finished → final event, ${where}`;
  const samples = `${latency.finished.length} runs${latency.missed ? `, ${latency.missed} finished before their stream opened (not counted)` : ""}`;
  const p50 = percentile(latency.finished, 50);
  const p99 = percentile(latency.finished, 99);
  return [
    {
      scenario,
      figure: "p50",
      unit: "ms",
      value: p50,
      baseline: null,
      ratio: null,
      target: "–",
      pass: null,
      note: p50 === null ? "no sample" : samples,
    },
    {
      scenario,
      figure: "p99",
      unit: "ms",
      value: p99,
      baseline: null,
      ratio: null,
      target: `≤ ${p99Target} ms`,
      pass: p99 !== null && p99 <= p99Target && latency.problems.length === 0,
      note: latency.problems.join("; ") || undefined,
    },
  ];
}

/**
 * Many open status streams of queued runs (the server's workers paused): RSS growth and store
 * queries per second with few and with many streams. Every stream must get its first event
 * (status queued) and none may fail or end.
 */
export async function openStreamsScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
): Promise<Row[]> {
  const scenario = `${settings.smoke ? "50" : "5,000"} open status streams (text/event-stream)`;
  let firstQueued = 0;
  let firstOther = 0;
  let refused = 0;
  let ended = 0;
  let failed = 0;
  const measured = await holdIdleReaders(settings, server, ws, {
    open: (id, agent) => {
      const req = http.get(
        `${server.api}/v1/generations/${id}`,
        { agent, headers: { "x-api-key": ws.key, accept: "text/event-stream" } },
        (res) => {
          if (res.statusCode !== 200) {
            refused += 1;
            res.resume();
            return;
          }
          let first = true;
          const parse = eventParser((e) => {
            if (!first || e.event !== "generation") return;
            first = false;
            if ((JSON.parse(e.data) as Generation).status === "queued") firstQueued += 1;
            else firstOther += 1;
          });
          // Only the first event is parsed; keep-alive comments after it are read and dropped.
          res.on("data", (chunk: Buffer) => (first ? parse(chunk) : undefined));
          res.on("end", () => {
            ended += 1;
          });
        },
      );
      req.on("error", () => {
        failed += 1;
      });
      return req;
    },
    ready: (opened) => firstQueued + firstOther + refused + failed >= opened,
    problems: () => {
      const opened = settings.smoke ? 50 : 5000;
      return [
        firstQueued < opened ? `${opened - firstQueued} of ${opened} streams without a first "queued" event` : "",
        firstOther > 0 ? `${firstOther} first events not queued` : "",
        refused > 0 ? `${refused} refused` : "",
        failed > 0 ? `${failed} failed` : "",
        ended > 0 ? `${ended} ended early` : "",
      ].filter(Boolean);
    },
  });
  return idleReaderRows(scenario, "streams", measured);
}

const CHROMIUM = "/usr/bin/chromium";
const ms = (n: number | null) => (n === null ? "–" : `${Math.round(n)} ms`);

/**
 * Installed in the page before its scripts: the wall clock at which each run's first output
 * image was painted (window.__painted by run ID), and at which the studio's event stream brought
 * its final state (window.__finalEvent; the page's EventSource is wrapped to listen first).
 * Plain JavaScript text, not a function: tsx would wrap a function's inner functions in a helper
 * the page does not have.
 */
const PAINT_PROBE = `(() => {
  const painted = (window.__painted = {});
  const errors = (window.__paintErrors = {});
  const finalEvent = (window.__finalEvent = {});
  const fetched = (window.__imageFetched = {});
  const firstStatus = (window.__firstStatus = {});
  const Source = window.EventSource;
  if (Source) {
    window.EventSource = class extends Source {
      constructor(...args) {
        super(...args);
        this.addEventListener("run", (e) => {
          const at = Date.now();
          try {
            const g = JSON.parse(e.data).generation;
            if (!(g.id in firstStatus)) firstStatus[g.id] = g.status;
            if (["succeeded", "failed", "canceled"].includes(g.status) && !(g.id in finalEvent)) finalEvent[g.id] = at;
          } catch {}
        });
      }
    };
  }
  const seen = new Set();
  const look = () => {
    for (const view of document.querySelectorAll("[data-testid=run-view]")) {
      const id = view.getAttribute("data-run-id");
      const img = view.querySelector("img[data-testid=output-image]");
      if (!id || !img || seen.has(id)) continue;
      seen.add(id);
      // Decoded, then the next frame; the task after that frame's callbacks runs once it is painted.
      const done = () =>
        requestAnimationFrame(() =>
          setTimeout(() => {
            painted[id] = Date.now();
            // When the image's bytes were asked for and had arrived (Resource Timing), for the breakdown.
            const entry = performance.getEntriesByName(img.currentSrc || img.src).at(-1);
            if (entry) fetched[id] = [performance.timeOrigin + entry.startTime, performance.timeOrigin + entry.responseEnd];
          }, 0),
        );
      img.decode().then(done, (err) => {
        errors[id] = String(err);
        done();
      });
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-run-id", "src"] });
})();`;

/**
 * In Chromium, signed in to the studio: the fastest image model's page, Run pressed again and
 * again; for each run, the wall clock (in the page) when its output image was painted against
 * the run's completed_at read through the API.
 */
export async function studioPaintScenario(
  settings: BenchSettings,
  server: ServerHandle,
  ws: { workspaceId: string; key: string },
  model: FastestModel,
): Promise<Row[]> {
  const scenario = `studio: run finished → result painted in Chromium (${model.id})`;
  if (!existsSync(CHROMIUM)) {
    return [
      {
        scenario,
        figure: "p50",
        unit: "ms",
        value: null,
        baseline: null,
        ratio: null,
        target: "≤ 100 ms",
        pass: null,
        note: `skipped: no Chromium at ${CHROMIUM}`,
      },
    ];
  }
  const n = settings.smoke ? 2 : 20;
  const user = studioUser(server, ws.workspaceId);
  const cookie = await signIn(server, user.email, user.password);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
    ],
  });
  const painted: number[] = [];
  /** completed_at → the final state's event reached the page (when the page follows the stream). */
  const eventInPage: number[] = [];
  /** completed_at → the output image's request started, and its last byte arrived (Resource Timing). */
  const imageRequested: number[] = [];
  const imageLoaded: number[] = [];
  /** Runs already final in the first event of the page's stream (it opened after they ended). */
  let endedBeforeStream = 0;
  const problems: string[] = [];
  let streamRequests = 0;
  let pollRequests = 0;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies(
      cookie.split("; ").map((pair) => {
        const eq = pair.indexOf("=");
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), url: server.studio };
      }),
    );
    const page = await context.newPage();
    page.on("request", (req) => {
      if (new URL(req.url()).pathname === "/api/runs/events") streamRequests += 1;
      else if (req.method() === "POST" && req.headers()["next-action"]) pollRequests += 1;
    });
    await page.addInitScript({ content: PAINT_PROBE });
    const [creator, name] = model.id.split("/");
    await page.goto(`${server.studio}/catalog/${creator}/${name}`, { waitUntil: "load" });
    const run = page.getByRole("button", { name: /^Run/ });
    const view = page.getByTestId("run-view");
    let previous = (await view.count()) > 0 ? await view.getAttribute("data-run-id") : null;
    for (let i = 0; i < n + 1; i++) {
      await run.click(); // waits until enabled (the quote is in)
      await page.waitForFunction(
        (before) => {
          const id = document.querySelector("[data-testid=run-view]")?.getAttribute("data-run-id");
          return id !== null && id !== undefined && id !== before;
        },
        previous,
        { timeout: 15_000, polling: 20 },
      );
      const id = (await view.getAttribute("data-run-id"))!;
      previous = id;
      const paintedAt = await page.waitForFunction(
        (runId) => (window as unknown as { __painted: Record<string, number> }).__painted[runId],
        id,
        { timeout: 30_000, polling: 20 },
      );
      const at = (await paintedAt.jsonValue()) as number;
      const probe = await page.evaluate((runId) => {
        const w = window as unknown as {
          __paintErrors: Record<string, string>;
          __finalEvent: Record<string, number>;
          __imageFetched: Record<string, [number, number]>;
          __firstStatus: Record<string, string>;
        };
        return {
          paintError: w.__paintErrors[runId],
          finalEventAt: w.__finalEvent[runId],
          imageFetched: w.__imageFetched[runId],
          firstStatus: w.__firstStatus[runId],
        };
      }, id);
      const paintError = probe.paintError;
      if (paintError) problems.push(`run ${id}: the image did not decode (${paintError})`);
      const res = await fetch(`${server.api}/v1/generations/${id}`, { headers: { "x-api-key": ws.key } });
      const generation = (await res.json()) as Generation;
      if (generation.status !== "succeeded" || !generation.completed_at)
        throw new Error(`run ${id} ended ${generation.status}`);
      if (i > 0) {
        // The first run warms the page up.
        painted.push(at - Date.parse(generation.completed_at));
        const completed = Date.parse(generation.completed_at);
        if (probe.finalEventAt !== undefined) eventInPage.push(probe.finalEventAt - completed);
        if (probe.firstStatus !== undefined && isFinal(probe.firstStatus)) endedBeforeStream += 1;
        if (probe.imageFetched) {
          imageRequested.push(probe.imageFetched[0] - completed);
          imageLoaded.push(probe.imageFetched[1] - completed);
        }
      }
      await sleep(100);
    }
    await context.close();
  } finally {
    await browser.close();
  }
  const p50 = percentile(painted, 50)!;
  const how =
    streamRequests > 0
      ? `${n} runs; the page followed /api/runs/events`
      : `${n} runs; the page polled (${pollRequests} server-action calls, no /api/runs/events stream)`;
  return [
    {
      scenario,
      figure: "p50",
      unit: "ms",
      value: p50,
      baseline: null,
      ratio: null,
      target: "≤ 100 ms",
      pass: p50 <= 100 && problems.length === 0,
      note: [how, ...problems].join("; "),
    },
    {
      scenario,
      figure: "p99",
      unit: "ms",
      value: percentile(painted, 99)!,
      baseline: null,
      ratio: null,
      target: "–",
      pass: null,
    },
    {
      scenario,
      figure: "of which: final event in the page, p50",
      unit: "ms",
      value: percentile(eventInPage, 50),
      baseline: null,
      ratio: null,
      target: "–",
      pass: null,
      note:
        eventInPage.length === 0
          ? "skipped: no run event reached the page (it does not follow /api/runs/events)"
          : imageLoaded.length > 0
            ? `then the image requested at ${ms(percentile(imageRequested, 50))}, loaded at ${ms(percentile(imageLoaded, 50))}, painted at ${ms(p50)} (p50s from completed_at); ${endedBeforeStream} of ${n} runs had ended before the page's stream opened`
            : undefined,
    },
  ];
}
