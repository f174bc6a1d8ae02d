// For tests: local fakes of the provider APIs the AI SDK's packages call, written from the
// providers' public API references: OpenAI images
// (b64_json) and speech (audio bytes), any OpenAI-compatible server (the same images route, no
// key), ElevenLabs text-to-speech, and Google's Gemini API (Imagen `:predict`, and Veo's
// `:predictLongRunning` operation, polled until done, whose video is fetched from the fake's own
// origin with `?key=`). Every answer is real media (fake-media.ts): PNGs from sharp, WAV by hand,
// MP3 and H.264 MP4 from ffmpeg. Each also lists its models, as its API does (GET {base}/models,
// ElevenLabs' GET /v1/models, Gemini's models.list): what a connection check reads. A fake's `mode` makes it refuse (4xx in the provider's own error
// shape), fail (5xx), hang, or refuse the key; it records every request it saw.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeMp3, fakeMp4, fakePng, fakeWav } from "../../testing/fake-media";
import { bodyOf, originOf, sendJson, type Handler, type RecordedRequest } from "../../testing/test-server";

export type FakeMode = "ok" | "refuse" | "down" | "hang" | "unauthorized" | "job-fails";

export interface FakeState {
  mode: FakeMode;
  requests: RecordedRequest[];
}

export function fakeState(): FakeState {
  return { mode: "ok", requests: [] };
}

/** What each fake says when it refuses (its provider's documented shape, words illustrative). */
export const REFUSALS = {
  openai: "Your request was rejected as a result of our safety system.",
  elevenlabs: "This request was flagged by our content moderation.",
  google: "The prompt could not be submitted: it may violate our policies.",
} as const;

// ---------------------------------------------------------------------------------------------
// Plumbing

/** Answers the modes every fake shares (refuse, unauthorized, down, hang); true when it answered (or chose never to). */
export function answeredByMode(
  state: FakeState,
  answers: { refuse(): void; unauthorized(): void; down(): void },
): boolean {
  if (state.mode === "hang") return true;
  if (state.mode === "refuse" || state.mode === "unauthorized" || state.mode === "down")
    return (answers[state.mode](), true);
  return false;
}

// ---------------------------------------------------------------------------------------------
// OpenAI (and any OpenAI-compatible server): POST {base}/images/generations, POST {base}/audio/speech

export interface OpenAiFakeOptions {
  /** The key the fake wants as `Authorization: Bearer …`; null: it takes any (a local server). */
  key: string | null;
  ffmpegPath: string;
}

export function openAiFake(state: FakeState, options: OpenAiFakeOptions): Handler {
  return async (request, res) => {
    state.requests.push(request);
    const error = (status: number, message: string, type: string, code: string | null) =>
      sendJson(res, status, { error: { message, type, param: null, code } });
    if (options.key !== null && request.headers.authorization !== `Bearer ${options.key}`) {
      return error(
        401,
        `Incorrect API key provided: ${String(request.headers.authorization).slice(7)}.`,
        "invalid_request_error",
        "invalid_api_key",
      );
    }
    const handled = answeredByMode(state, {
      refuse: () => error(400, REFUSALS.openai, "image_generation_user_error", "moderation_blocked"),
      unauthorized: () =>
        error(401, `Incorrect API key provided: ${options.key ?? ""}.`, "invalid_request_error", "invalid_api_key"),
      down: () =>
        error(500, "The server had an error while processing your request. Sorry about that!", "server_error", null),
    });
    if (handled) return;
    const body = bodyOf(request);
    if (request.method === "GET" && request.path.endsWith("/models")) {
      // GET {base}/models: the models the key may use (OpenAI's list object).
      return sendJson(res, 200, {
        object: "list",
        data: ["gpt-image-1", "gpt-4o-mini-tts", "dall-e-3"].map((id) => ({
          id,
          object: "model",
          created: 1_700_000_000,
          owned_by: "system",
        })),
      });
    }
    if (request.method === "POST" && request.path.endsWith("/images/generations")) {
      const [width, height] = String(body.size ?? "64x64")
        .split("x")
        .map(Number) as [number, number];
      const n = Number(body.n ?? 1);
      const images = await Promise.all(
        Array.from({ length: n }, (_, i) => fakePng(width || 64, height || 64, `${String(body.prompt)}#${i}`)),
      );
      return sendJson(res, 200, {
        created: Math.floor(Date.now() / 1000),
        data: images.map((png) => ({ b64_json: png.toString("base64") })),
      });
    }
    if (request.method === "POST" && request.path.endsWith("/audio/speech")) {
      const format = String(body.response_format ?? "mp3");
      if (format === "wav") return void res.writeHead(200, { "content-type": "audio/wav" }).end(fakeWav(1));
      if (format === "mp3")
        return void res.writeHead(200, { "content-type": "audio/mpeg" }).end(await fakeMp3(options.ffmpegPath));
      return error(400, `This fake speaks mp3 and wav only, not ${format}.`, "invalid_request_error", null);
    }
    error(404, `Invalid URL (${request.method} ${request.path})`, "invalid_request_error", null);
  };
}

// ---------------------------------------------------------------------------------------------
// ElevenLabs: POST /v1/text-to-speech/{voice_id}?output_format=mp3_44100_128, header xi-api-key

export function elevenLabsFake(state: FakeState, options: { key: string; ffmpegPath: string }): Handler {
  return async (request, res) => {
    state.requests.push(request);
    const error = (status: number, code: string, message: string) =>
      sendJson(res, status, { detail: { status: code, message } });
    if (request.headers["xi-api-key"] !== options.key) return error(401, "invalid_api_key", "Invalid API key");
    const handled = answeredByMode(state, {
      refuse: () => error(400, "content_against_policy", REFUSALS.elevenlabs),
      unauthorized: () => error(401, "quota_exceeded", "This request exceeds your quota."),
      down: () => error(503, "service_unavailable", "The service is temporarily unavailable."),
    });
    if (handled) return;
    const url = new URL(request.path, "http://fake");
    if (request.method === "GET" && url.pathname === "/v1/models") {
      // GET /v1/models: a bare array of the models the key may use.
      return sendJson(
        res,
        200,
        ["eleven_multilingual_v2", "eleven_flash_v2_5"].map((model_id) => ({
          model_id,
          name: model_id,
          can_do_text_to_speech: true,
          token_cost_factor: 1,
        })),
      );
    }
    if (request.method === "POST" && /^\/v1\/text-to-speech\/[^/]+$/.test(url.pathname)) {
      const format = url.searchParams.get("output_format") ?? "mp3_44100_128";
      if (!format.startsWith("mp3_"))
        return error(422, "invalid_output_format", `This fake makes mp3 only, not ${format}.`);
      return void res.writeHead(200, { "content-type": "audio/mpeg" }).end(await fakeMp3(options.ffmpegPath));
    }
    error(404, "not_found", `No route ${request.method} ${url.pathname}`);
  };
}

// ---------------------------------------------------------------------------------------------
// Google Gemini API under {base} = …/v1beta, header x-goog-api-key:
//   POST {base}/models/{m}:predict            Imagen → {predictions: [{bytesBase64Encoded, mimeType}]}
//   POST {base}/models/{m}:predictLongRunning Veo → {name, done: false}; GET {base}/{name} until done
//   GET  {base}/files/{id}:download?alt=media&key=… → the MP4

export function googleFake(state: FakeState, options: { key: string; ffmpegPath: string }): Handler {
  const polls = new Map<string, number>();
  let next = 0;
  return async (request, res) => {
    state.requests.push(request);
    const error = (code: number, status: string, message: string) =>
      sendJson(res, code, { error: { code, message, status } });
    const url = new URL(request.path, "http://fake");
    const key = request.headers["x-goog-api-key"] ?? url.searchParams.get("key");
    if (key !== options.key)
      return error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers. Please use an API Key.");
    const handled = answeredByMode(state, {
      refuse: () => error(400, "INVALID_ARGUMENT", REFUSALS.google),
      unauthorized: () => error(401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key."),
      down: () => error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    });
    if (handled) return;
    const base = url.pathname.replace(/^(.*?\/v1beta)\/.*$/, "$1");
    const body = bodyOf(request) as { instances?: Array<{ prompt?: string }>; parameters?: { sampleCount?: number } };
    let match: RegExpExecArray | null;
    if (request.method === "GET" && url.pathname.endsWith("/v1beta/models")) {
      // models.list: {models: [Model], nextPageToken?}.
      return sendJson(res, 200, {
        models: ["imagen-4.0-generate-001", "veo-3.0-generate-001"].map((id) => ({
          name: `models/${id}`,
          version: "001",
          displayName: id,
          supportedGenerationMethods: [id.startsWith("veo") ? "predictLongRunning" : "predict"],
        })),
      });
    }
    if (request.method === "POST" && (match = /\/models\/([^/:]+):predict$/.exec(url.pathname))) {
      const count = body.parameters?.sampleCount ?? 1;
      const images = await Promise.all(
        Array.from({ length: count }, (_, i) => fakePng(64, 64, `${body.instances?.[0]?.prompt}#${i}`)),
      );
      return sendJson(res, 200, {
        predictions: images.map((png) => ({ bytesBase64Encoded: png.toString("base64"), mimeType: "image/png" })),
      });
    }
    if (request.method === "POST" && (match = /\/models\/([^/:]+):predictLongRunning$/.exec(url.pathname))) {
      const name = `models/${match[1]}/operations/op${++next}`;
      polls.set(name, 0);
      return sendJson(res, 200, { name, done: false });
    }
    if (request.method === "GET" && (match = /\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(url.pathname))) {
      const name = match[1]!;
      const seen = polls.get(name);
      if (seen === undefined) return error(404, "NOT_FOUND", `Operation ${name} not found.`);
      polls.set(name, seen + 1);
      // Running at the first look, done at the second: the SDK must poll.
      if (seen === 0) return sendJson(res, 200, { name, done: false, metadata: {} });
      if (state.mode === "job-fails")
        return sendJson(res, 200, {
          name,
          done: true,
          error: { code: 3, message: "The video could not be generated: it may violate our policies." },
        });
      const uri = `${originOf(request)}${base}/files/${name.split("/").at(-1)}:download?alt=media`;
      return sendJson(res, 200, {
        name,
        done: true,
        response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } },
      });
    }
    if (request.method === "GET" && /\/files\/[^/]+:download$/.test(url.pathname)) {
      return void res
        .writeHead(200, { "content-type": "video/mp4" })
        .end(await fakeMp4({ width: 160, height: 90, fps: 12, seconds: 1, ffmpegPath: options.ffmpegPath }));
    }
    error(404, "NOT_FOUND", `No route ${request.method} ${url.pathname}`);
  };
}

// ---------------------------------------------------------------------------------------------

/** Serves `handle` on 127.0.0.1:`port` (0: any free port), recording nothing itself (the fakes do). */
export async function listenFake(handle: Handler, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      Promise.resolve(handle(request, res)).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(599).end(err.message);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
