// The ComfyUI kind against a local fake ComfyUI (comfyui-fake.ts, written from ComfyUI's HTTP API):
// the providers file's workflow and bindings checked at start, the run's input bound into the
// graph ComfyUI receives, file inputs uploaded, each output modality fetched and measured,
// refusals, failures, outages and cancels.
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { parseWav } from "../../models/audio/wav";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import { ModelError, type AudioOutput, type ImageOutput, type VideoOutput } from "../../core/catalog/model-definition";
import { runFfmpeg } from "../../media/ffmpeg";
import { startComfyFake, type FakeComfy } from "./testing/comfyui-fake";
import { applyBindings, type ComfyEntryOptions } from "./comfyui-workflow";
import { parseProvidersFile } from "../providers-file";
import { remoteModelDefinition, type RemoteModelDefinition } from "../common/remote-model";
import { failureOf } from "../testing/test-failures";
import { eventually } from "../testing/test-server";
import { ProviderError, type ProviderConfig } from "../common/types";
import { providerKind } from "../kinds";

const FIXTURES = path.resolve(__dirname, "../../../e2e/api/fixtures/comfyui");
const SDXL = JSON.parse(readFileSync(path.join(FIXTURES, "workflows/sdxl.json"), "utf8")) as Record<
  string,
  { class_type: string; inputs: Record<string, unknown> }
>;
const FILE_ID = "file_abcdefghijklmnopqrstuvwx";
const FAST = { firstPollMs: 5, maxPollMs: 20 };

type Json = Record<string, unknown>;

const text = (title: string, extra: Json = {}) => ({ type: "string", title, description: title, ...extra });
const int = (title: string, extra: Json = {}) => ({ type: "integer", title, description: title, ...extra });

function schema(properties: Json, required: string[] = ["prompt"]): Json {
  return { type: "object", additionalProperties: false, required, properties };
}

/** The fixture's SDXL entry (file workflow), reshaped by `change`. */
function sdxlEntry(change: (entry: Json) => void = () => {}): Json {
  const file = JSON.parse(readFileSync(path.join(FIXTURES, "providers.json"), "utf8")) as {
    providers: Array<{ entries: Json[] }>;
  };
  const entry = structuredClone(file.providers[0]!.entries[0]!);
  change(entry);
  return entry;
}

function parse(entries: Json[], provider: Json = {}, env: Record<string, string> = {}): ProviderConfig[] {
  // Generous: a cancel asks ComfyUI where the prompt is, then interrupts it, each call within
  // timeout_ms, and a loaded 2-core CI machine must not turn that into a silent give-up.
  const file = {
    providers: [
      { id: "gpu-box", kind: "comfyui", base_url: "http://127.0.0.1:9", timeout_ms: 10_000, entries, ...provider },
    ],
  };
  return parseProvidersFile(JSON.stringify(file), env, FIXTURES);
}

/** A remote entry of `entry` on the fake (its entries share one adapter, as in the server). */
function models(
  fake: FakeComfy,
  entries: Json[],
  options: { provider?: Json; env?: Record<string, string>; poll?: Json } = {},
): RemoteModelDefinition[] {
  const [config] = parse(entries, { base_url: fake.url, ...options.provider }, options.env);
  const adapter = providerKind("comfyui").createAdapter(config!);
  return config!.entries.map((entry) => remoteModelDefinition(config!, entry, adapter, { ...FAST, ...options.poll }));
}

function parseError(entries: Json[]): string {
  try {
    parse(entries);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("the providers file parsed");
}

/** Duration and size of timed media, decoded by ffmpeg (the check that the bytes are real). */
async function decode(data: Buffer, ext: string): Promise<string> {
  const file = path.join(os.tmpdir(), `comfy-test-${process.pid}-${Date.now()}.${ext}`);
  await writeFile(file, data);
  try {
    const { stderr } = await runFfmpeg(testRunTools().ffmpegPath, ["-v", "info", "-i", file, "-f", "null", "-"]);
    return stderr;
  } finally {
    await rm(file, { force: true });
  }
}

/** The files fetched from the fake with GET /view, in order. */
function viewed(fake: FakeComfy): string[] {
  return fake.requests
    .filter((r) => r.path.startsWith("/view?"))
    .map((r) => new URL(r.path, fake.url).searchParams.get("filename")!);
}

let fake: FakeComfy | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

describe("the comfyui kind in the providers file", () => {
  it("reads a workflow file relative to the providers file, needs no upstream_model, and resolves the bindings", () => {
    const [config] = parse([sdxlEntry()]);
    const entry = config!.entries[0]!;
    expect(entry.upstreamModel).toBe("");
    const options = entry.options as unknown as ComfyEntryOptions;
    expect(options.workflow).toEqual(SDXL);
    expect(options.bindings.seed).toEqual([{ node: "3", input: "seed" }]);
    expect(options.bindings.prompt).toEqual([{ node: "6", input: "text" }]);
    expect(options.randomSeeds).toEqual({ seed: { min: 0, max: 4294967295 } });
    expect(options.outputNodes).toBeNull();
  });

  it("names the field of each mistake", () => {
    const at = "providers[0].entries[0]";
    expect(parseError([sdxlEntry((e) => delete e.workflow)])).toBe(
      `${at}.workflow is required: the path of a workflow file in ComfyUI's API format, or the workflow itself.`,
    );
    expect(parseError([sdxlEntry((e) => (e.workflow = "workflows/missing.json"))])).toMatch(
      new RegExp(
        `^${at.replace(/[[\]]/g, "\\$&")}\\.workflow names .*missing\\.json, which cannot be read \\(ENOENT\\)\\.$`,
      ),
    );
    expect(parseError([sdxlEntry((e) => (e.workflow = { nodes: [], links: [] }))])).toBe(
      `${at}.workflow is a workflow in ComfyUI's UI format; save it with "Export (API)" (ComfyUI's workflow menu) and use that file.`,
    );
    expect(
      parseError([
        sdxlEntry(
          (e) =>
            (e.workflow = { ...SDXL, "8": { class_type: "VAEDecode", inputs: { samples: ["30", 0], vae: ["4", 2] } } }),
        ),
      ]),
    ).toBe(`${at}.workflow node "8" (VAEDecode) input "samples" links to node "30", which the workflow does not have.`);
    expect(parseError([sdxlEntry((e) => (e.workflow = { ...SDXL, "9": { inputs: {} } }))])).toBe(
      `${at}.workflow node "9" must have a class_type (a node class such as "KSampler").`,
    );
    expect(parseError([sdxlEntry((e) => ((e.bindings as Json).prompt = { node: "60", input: "text" }))])).toBe(
      `${at}.bindings.prompt.node names node "60", which the workflow does not have (its nodes: 3, 4, 5, 6, 7, 8, 9).`,
    );
    expect(parseError([sdxlEntry((e) => ((e.bindings as Json).seed = [{ node: "3", input: "noise_seed" }]))])).toBe(
      `${at}.bindings.seed[0].input names "noise_seed", which node "3" (KSampler) does not have (its inputs: seed, steps, cfg, sampler_name, scheduler, denoise, model, positive, negative, latent_image).`,
    );
    expect(parseError([sdxlEntry((e) => ((e.bindings as Json).steps = { node: "3", input: "model" }))])).toBe(
      `${at}.bindings.steps.input names "model" of node "3" (KSampler), which is a link to node "4"; bind a value, not a link.`,
    );
    expect(parseError([sdxlEntry((e) => ((e.bindings as Json).cfg = { node: "3", input: "cfg" }))])).toBe(
      `${at}.bindings.cfg binds "cfg", which is not a field of input_schema (its fields: prompt, negative_prompt, seed, steps, width, height).`,
    );
    expect(parseError([sdxlEntry((e) => delete (e.bindings as Json).height)])).toBe(
      `${at}.bindings has no binding for the input field "height"; bind it to a node input ({"node": "<id>", "input": "<name>"}) or remove it from input_schema.`,
    );
    expect(parseError([sdxlEntry((e) => (e.outputs = ["9", "99"]))])).toBe(
      `${at}.outputs[1] must be a node id of the workflow (its nodes: 3, 4, 5, 6, 7, 8, 9); got "99".`,
    );
    expect(parseError([sdxlEntry((e) => (e.modality = "text"))])).toBe(
      `${at}.modality must be one of "image", "video", "audio", "3d"; got "text".`,
    );
  });

  it("puts the person's values in the bound inputs of a copy, keeps the workflow's where a field is left out, and varies a seed without default", () => {
    const options = parse([sdxlEntry()])[0]!.entries[0]!.options as unknown as ComfyEntryOptions;
    const graph = applyBindings(options, { prompt: "a red fox", seed: 7, width: 512 });
    expect(graph["6"]!.inputs.text).toBe("a red fox");
    expect(graph["3"]!.inputs.seed).toBe(7);
    expect(graph["5"]!.inputs).toEqual({ width: 512, height: 1024, batch_size: 1 });
    expect(graph["7"]!.inputs.text).toBe(SDXL["7"]!.inputs.text);
    expect(options.workflow["6"]!.inputs.text).toBe(SDXL["6"]!.inputs.text);

    const seeds = new Set(
      Array.from({ length: 8 }, () => applyBindings(options, { prompt: "a fox" })["3"]!.inputs.seed as number),
    );
    expect(seeds.size).toBeGreaterThan(1);
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= 0 && seed <= 4294967295).toBe(true);

    // A seed with a default in the schema: the default (filled in by validation) is the seed.
    const fixed = parse([
      sdxlEntry((e) => ((e.input_schema as { properties: Json }).properties.seed = int("Seed", { default: 42 }))),
    ])[0]!.entries[0]!.options as unknown as ComfyEntryOptions;
    expect(fixed.randomSeeds).toEqual({});
  });
});

describe("a comfyui provider", () => {
  it("runs the workflow with the person's input bound in, follows it in /history and returns the image it saved", async () => {
    fake = await startComfyFake();
    const [sdxl] = models(fake, [sdxlEntry()]);
    const tools = testRunTools();
    const [image, ...rest] = (await runModelForTest(
      sdxl!,
      { prompt: "a lighthouse in a storm", seed: 1234, steps: 30, width: 512, height: 768 },
      tools,
    )) as ImageOutput[];
    expect(rest).toEqual([]);

    expect(fake.prompts).toHaveLength(1);
    const { prompt, client_id } = fake.prompts[0]!;
    expect(client_id).toMatch(/^atelier-/);
    expect(prompt["6"]!.inputs.text).toBe("a lighthouse in a storm");
    expect(prompt["7"]!.inputs.text).toBe("blurry, low quality, watermark, text");
    expect(prompt["3"]!.inputs).toMatchObject({ seed: 1234, steps: 30, sampler_name: "dpmpp_2m", model: ["4", 0] });
    expect(prompt["5"]!.inputs).toEqual({ width: 512, height: 768, batch_size: 1 });

    const routes = fake.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`);
    expect(routes[0]).toBe("POST /prompt");
    expect(routes.at(-2)).toMatch(/^GET \/history\/[0-9a-f-]{36}$/);
    expect(routes.at(-1)).toBe("GET /view");
    expect(viewed(fake)).toEqual(["sdxl_00001_.png"]);
    expect(fake.requests.at(-1)!.path).toBe("/view?filename=sdxl_00001_.png&subfolder=atelier&type=output");

    expect(image).toMatchObject({ type: "image", content_type: "image/png", width: 512, height: 768 });
    const meta = await sharp(image!.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 512, 768]);
    expect(tools.uncancelableReasons).toEqual([]);
    expect(tools.providerReports).toEqual([{ providerId: "gpu-box", down: null }]);
  });

  it("uploads a file input to /upload/image and gives the node ComfyUI's name for it", async () => {
    fake = await startComfyFake();
    const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: "#2a6" } })
      .png()
      .toBuffer();
    const workflow = {
      ...SDXL,
      "10": { class_type: "LoadImage", inputs: { image: "example.png" } },
      "11": { class_type: "VAEEncode", inputs: { pixels: ["10", 0], vae: ["4", 2] } },
      "3": { ...SDXL["3"], inputs: { ...SDXL["3"]!.inputs, latent_image: ["11", 0], denoise: 0.6 } },
    };
    delete (workflow as Json)["5"];
    const entry = sdxlEntry((e) => {
      e.id = "gpu-box/sdxl-img2img";
      e.tasks = ["image-to-image"];
      e.workflow = workflow;
      e.bindings = { prompt: { node: "6", input: "text" }, image: { node: "10", input: "image" } };
      e.input_schema = schema(
        {
          prompt: text("Prompt"),
          image: text("Image", { pattern: "^file_[0-9A-Za-z]{24}$", contentMediaType: "image/*" }),
        },
        ["prompt", "image"],
      );
    });
    const [model] = models(fake, [entry]);
    const tools = testRunTools({ files: { [FILE_ID]: { data: png, contentType: "image/png" } } });
    const [image] = (await runModelForTest(
      model!,
      { prompt: "the same, in winter", image: FILE_ID },
      tools,
    )) as ImageOutput[];

    expect(fake.uploads).toHaveLength(1);
    const upload = fake.uploads[0]!;
    expect(upload).toMatchObject({
      name: `${FILE_ID}.png`,
      subfolder: "atelier",
      type: "input",
      overwrite: "true",
      contentType: "image/png",
    });
    expect(upload.data.equals(png)).toBe(true);
    expect(fake.requests[0]!.path).toBe("/upload/image");
    expect(fake.prompts[0]!.prompt["10"]!.inputs.image).toBe(`atelier/${FILE_ID}.png`);
    // The fake's image-to-image keeps the size of the image it loaded: it used the upload.
    expect(image).toMatchObject({ type: "image", width: 96, height: 64 });
  });

  it("returns every image saved (a batch), never the temp previews", async () => {
    fake = await startComfyFake();
    const entry = sdxlEntry((e) => {
      e.workflow = {
        ...SDXL,
        "5": { class_type: "EmptyLatentImage", inputs: { width: 64, height: 48, batch_size: 3 } },
        "12": { class_type: "PreviewImage", inputs: { images: ["8", 0] } },
      };
      e.bindings = { prompt: { node: "6", input: "text" } };
      e.input_schema = schema({ prompt: text("Prompt") });
    });
    const outputs = (await runModelForTest(models(fake, [entry])[0]!, { prompt: "three foxes" })) as ImageOutput[];
    expect(outputs.map((o) => [o.type, o.content_type, o.width, o.height])).toEqual(
      Array(3).fill(["image", "image/png", 64, 48]),
    );
    expect(new Set(outputs.map((o) => o.data.toString("base64"))).size).toBe(3);
    expect(viewed(fake)).toEqual(["sdxl_00001_.png", "sdxl_00002_.png", "sdxl_00003_.png"]);
    expect(fake.requests.filter((r) => r.path.includes("type=temp"))).toEqual([]);
  });

  it("returns the videos a video workflow saved (VHS_VideoCombine's gifs, core SaveVideo's animated images), measured and decodable", async () => {
    fake = await startComfyFake();
    const workflow = {
      ...SDXL,
      "5": { class_type: "EmptyLatentImage", inputs: { width: 96, height: 64, batch_size: 12 } },
      "9": {
        class_type: "VHS_VideoCombine",
        inputs: {
          images: ["8", 0],
          frame_rate: 8,
          loop_count: 0,
          filename_prefix: "clips/vhs",
          format: "video/h264-mp4",
          pingpong: false,
          save_output: true,
        },
      },
      "13": { class_type: "CreateVideo", inputs: { images: ["8", 0], fps: 12 } },
      "14": {
        class_type: "SaveVideo",
        inputs: { video: ["13", 0], filename_prefix: "clips/core", format: "auto", codec: "auto" },
      },
      "15": { class_type: "SaveImage", inputs: { images: ["8", 0], filename_prefix: "frames" } },
    };
    const entry = sdxlEntry((e) => {
      e.id = "gpu-box/clip";
      e.modality = "video";
      e.tasks = ["text-to-video"];
      e.workflow = workflow;
      e.bindings = { prompt: { node: "6", input: "text" }, frames: { node: "5", input: "batch_size" } };
      e.input_schema = schema({
        prompt: text("Prompt"),
        frames: int("Frames", { minimum: 2, maximum: 48, default: 12 }),
      });
    });
    const outputs = (await runModelForTest(models(fake, [entry])[0]!, { prompt: "waves" })) as VideoOutput[];
    expect(outputs).toHaveLength(2);
    // The stills SaveImage wrote are not this entry's modality: not fetched.
    expect(viewed(fake).sort()).toEqual(["core_00001_.mp4", "vhs_00001_.mp4"]);
    for (const [video, seconds] of [
      [outputs.find((o) => o.duration > 1.2)!, 1.5],
      [outputs.find((o) => o.duration <= 1.2)!, 1],
    ] as const) {
      expect(video).toMatchObject({ type: "video", content_type: "video/mp4", width: 96, height: 64 });
      expect(video.duration).toBeCloseTo(seconds, 1);
      expect(video.poster).toMatchObject({ content_type: "image/jpeg", width: 96, height: 64 });
      expect(await decode(video.data, "mp4")).toMatch(/Video: h264.*96x64/);
    }
  });

  it("returns the sound an audio workflow saved (SaveAudio's FLAC), measured and decodable", async () => {
    fake = await startComfyFake();
    const workflow = {
      "4": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "stable-audio-open-1.0.safetensors" } },
      "6": { class_type: "CLIPTextEncode", inputs: { text: "rain", clip: ["4", 1] } },
      "7": { class_type: "CLIPTextEncode", inputs: { text: "", clip: ["4", 1] } },
      "11": { class_type: "EmptyLatentAudio", inputs: { seconds: 47.6, batch_size: 1 } },
      "3": { class_type: "KSampler", inputs: { ...SDXL["3"]!.inputs, latent_image: ["11", 0] } },
      "12": { class_type: "VAEDecodeAudio", inputs: { samples: ["3", 0], vae: ["4", 2] } },
      "19": { class_type: "SaveAudio", inputs: { audio: ["12", 0], filename_prefix: "audio/ComfyUI" } },
    };
    const entry = sdxlEntry((e) => {
      e.id = "gpu-box/stable-audio";
      e.modality = "audio";
      e.tasks = ["text-to-audio"];
      e.workflow = workflow;
      e.bindings = {
        prompt: { node: "6", input: "text" },
        seconds: { node: "11", input: "seconds" },
        seed: { node: "3", input: "seed" },
      };
      e.input_schema = schema({
        prompt: text("Prompt"),
        seconds: { type: "number", title: "Seconds", description: "Length.", minimum: 0.5, maximum: 47, default: 10 },
        seed: int("Seed"),
      });
      e.pricing = { unit: "second", usd: "0.001", drivers: ["seconds"] };
    });
    const [sound] = (await runModelForTest(models(fake, [entry])[0]!, {
      prompt: "soft rain on a roof",
      seconds: 1.5,
    })) as AudioOutput[];
    expect(fake.prompts[0]!.prompt["11"]!.inputs.seconds).toBe(1.5);
    expect(typeof fake.prompts[0]!.prompt["3"]!.inputs.seed).toBe("number");
    expect(viewed(fake)).toEqual(["ComfyUI_00001_.flac"]);
    expect(fake.requests.at(-1)!.path).toBe("/view?filename=ComfyUI_00001_.flac&subfolder=audio&type=output");
    expect(sound).toMatchObject({ type: "audio", content_type: "audio/flac" });
    expect(sound!.duration).toBeCloseTo(1.5, 1);
    expect(await decode(sound!.data, "flac")).toMatch(/Audio: flac, 44100 Hz/);
    expect(() => parseWav(sound!.data)).toThrow(); // FLAC as saved, not re-encoded
  });

  it("fails the run with ComfyUI's words when it refuses the graph (400 node_errors): nothing queued, provider still in service", async () => {
    fake = await startComfyFake();
    const missing = sdxlEntry(
      (e) =>
        (e.workflow = {
          ...SDXL,
          "4": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "sdxl_lightning_4step.safetensors" } },
        }),
    );
    const unknown = sdxlEntry((e) => {
      e.id = "gpu-box/custom";
      e.workflow = {
        ...SDXL,
        "8": { class_type: "VAEDecodeTiled", inputs: { samples: ["3", 0], vae: ["4", 2], tile_size: 512 } },
      };
    });
    const [bad, custom] = models(fake, [missing, unknown]);

    const refused = await failureOf(runModelForTest(bad!, { prompt: "a fox" }));
    expect(refused).toBeInstanceOf(ModelError);
    expect(refused).toMatchObject({ transient: false });
    expect(refused.message).toBe(
      "The provider gpu-box refused the workflow: Prompt outputs failed validation; node 4 (CheckpointLoaderSimple): Value not in list: ckpt_name: 'sdxl_lightning_4step.safetensors' not in ['sd_xl_base_1.0.safetensors', 'v1-5-pruned-emaonly.safetensors', 'stable-audio-open-1.0.safetensors']",
    );
    expect((await failureOf(runModelForTest(custom!, { prompt: "a fox" }))).message).toBe(
      "The provider gpu-box refused the workflow: Cannot execute because node VAEDecodeTiled does not exist. (Node ID '#8')",
    );
    expect(fake.prompts).toEqual([]);
    expect(bad!.unavailableReason!()).toBeNull();
  });

  it("fails the run with ComfyUI's exception when the workflow fails while running (execution_error), provider still in service", async () => {
    fake = await startComfyFake();
    fake.failExecution = { message: "CUDA out of memory. Tried to allocate 2.50 GiB" };
    const [sdxl] = models(fake, [sdxlEntry()]);
    const tools = testRunTools();
    const failure = await failureOf(runModelForTest(sdxl!, { prompt: "a fox" }, tools));
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({
      transient: false,
      message:
        "The workflow on the provider gpu-box failed at node 3 (KSampler): CUDA out of memory. Tried to allocate 2.50 GiB",
    });
    expect(sdxl!.unavailableReason!()).toBeNull();
    expect(tools.providerReports).toEqual([]);
    expect(viewed(fake)).toEqual([]);
  });

  it("fails a workflow that saved nothing of the entry's modality, saying what it saved", async () => {
    fake = await startComfyFake();
    const entry = sdxlEntry((e) => (e.outputs = ["9"]));
    const onlyPreview = sdxlEntry((e) => {
      e.id = "gpu-box/preview";
      e.workflow = { ...SDXL, "9": { class_type: "PreviewImage", inputs: { images: ["8", 0] } } };
    });
    const [video] = models(fake, [
      { ...entry, id: "gpu-box/not-video", modality: "video", tasks: ["text-to-video"] },
      onlyPreview,
    ]);
    const failure = await failureOf(runModelForTest(video!, { prompt: "a fox", width: 512, height: 512 }));
    expect(failure.message).toMatch(
      /^The workflow on the provider gpu-box finished without saving any video output \(it saved 1 image file\); the operators must check the entry's workflow and outputs \(prompt [0-9a-f-]{36}\)\.$/,
    );
    const [, preview] = models(fake, [entry, onlyPreview]);
    expect((await failureOf(runModelForTest(preview!, { prompt: "a fox", width: 512, height: 512 }))).message).toMatch(
      /finished without saving any image output; the operators/,
    );
  });

  it("marks the provider down on a 5xx, an unreachable server or no answer within timeout_ms", async () => {
    fake = await startComfyFake();
    fake.failNext("POST /prompt", { status: 500, body: { error: "Internal Server Error" } });
    const tools = testRunTools();
    const [sdxl] = models(fake, [sdxlEntry()]);
    const failed = await failureOf(runModelForTest(sdxl!, { prompt: "a fox" }, tools));
    expect(failed).toMatchObject({
      transient: true,
      message: "The provider gpu-box failed (HTTP 500: Internal Server Error). Try again later.",
    });
    expect(sdxl!.unavailableReason!()?.message).toMatch(/^its provider gpu-box is failing \(HTTP 500, at /);
    expect(tools.providerReports).toMatchObject([
      { providerId: "gpu-box", down: { reason: expect.stringContaining("HTTP 500") } },
    ]);

    fake.failNext("POST /prompt", "hang");
    const [slow] = models(fake, [sdxlEntry()], { provider: { timeout_ms: 300 } });
    expect(await failureOf(runModelForTest(slow!, { prompt: "a fox" }))).toMatchObject({
      transient: true,
      message: "The provider gpu-box did not answer within 0.3 s. Try again later.",
    });
    expect(slow!.unavailableReason!()?.message).toContain("no answer within 0.3 s");

    const closed = await startComfyFake();
    await closed.close();
    const [gone] = models(closed, [sdxlEntry()]);
    expect(await failureOf(runModelForTest(gone!, { prompt: "a fox" }))).toMatchObject({
      transient: true,
      message: "The provider gpu-box could not be reached (ECONNREFUSED). Try again later.",
    });
    expect(gone!.unavailableReason!()?.message).toContain("unreachable (ECONNREFUSED)");
  });

  it("rides out a passing failure of /history while the workflow runs", async () => {
    fake = await startComfyFake();
    fake.setMode("hold");
    const [sdxl] = models(fake, [sdxlEntry()]);
    const run = runModelForTest(sdxl!, { prompt: "a fox", width: 512, height: 512 });
    await eventually(() => fake!.running() !== null);
    fake.failNext("GET /history/", { status: 502 });
    await eventually(() => fake!.requests.filter((r) => r.path.startsWith("/history/")).length >= 2);
    fake.release();
    expect(await run).toMatchObject([{ type: "image", width: 512 }]);
    expect(sdxl!.unavailableReason!()).toBeNull();
  });

  it("tells the run's progress from ComfyUI's websocket (sampler steps of our own prompt), and closes the socket once the run ends", async () => {
    fake = await startComfyFake();
    fake.setMode("hold");
    const [sdxl] = models(fake, [sdxlEntry()]);
    const tools = testRunTools();
    const run = runModelForTest(sdxl!, { prompt: "a fox", width: 512, height: 512 }, tools);
    await eventually(() => fake!.running() !== null && fake!.sockets().length === 1);
    expect(fake.sockets()[0]).toMatch(/^atelier-/);
    expect(fake.sockets()[0]).toBe(fake.prompts[0]!.client_id);
    fake.step(5, 20);
    await eventually(() => tools.progress.includes(0.25));
    fake.step(15, 20);
    await eventually(() => tools.progress.includes(0.75));
    fake.release();
    expect(await run).toMatchObject([{ type: "image", width: 512 }]);
    // Each poll tells the latest step (the engine passes on only changes).
    expect([...new Set(tools.progress)]).toEqual([0.25, 0.75]);
    await eventually(() => fake!.sockets().length === 0);
  });

  it("fails a run whose prompt vanished from ComfyUI (deleted on the box, or lost in a restart) instead of waiting for it", async () => {
    fake = await startComfyFake();
    fake.setMode("stalled");
    const [sdxl] = models(fake, [sdxlEntry()]);
    const run = runModelForTest(sdxl!, { prompt: "a fox" });
    await eventually(() => fake!.pending().length === 1);
    const id = fake.pending()[0]!;
    await fetch(`${fake.url}/queue`, { method: "POST", body: JSON.stringify({ delete: [id] }) });
    const failure = await failureOf(run);
    expect(failure).toMatchObject({
      transient: true,
      message: `The provider gpu-box lost the workflow (prompt ${id}): it was taken out of ComfyUI's queue, or ComfyUI restarted. Try again.`,
    });
    expect(sdxl!.unavailableReason!()).toBeNull();
  });

  it("sends the key of api_key_env as a Bearer token (a proxy in front of ComfyUI), and never shows it", async () => {
    fake = await startComfyFake({ token: "proxy-secret-77" });
    const [sdxl] = models(fake, [sdxlEntry()], {
      provider: { api_key_env: "GPU_BOX_TOKEN" },
      env: { GPU_BOX_TOKEN: "proxy-secret-77" },
    });
    expect(await runModelForTest(sdxl!, { prompt: "a fox", width: 512, height: 512 })).toHaveLength(1);
    expect(fake.requests.every((r) => r.headers.authorization === "Bearer proxy-secret-77")).toBe(true);

    const [wrong] = models(fake, [sdxlEntry()], {
      provider: { api_key_env: "GPU_BOX_TOKEN" },
      env: { GPU_BOX_TOKEN: "stale-token-00" },
    });
    const refused = await failureOf(runModelForTest(wrong!, { prompt: "a fox" }));
    expect(refused.message).toBe(
      "The provider gpu-box refused this server's credentials (HTTP 401); the operators must check its API key.",
    );
    expect(wrong!.unavailableReason!()).not.toBeNull();
  });
});

describe("canceling a comfyui run", () => {
  it("before submission: nothing reaches ComfyUI", async () => {
    fake = await startComfyFake();
    const controller = new AbortController();
    controller.abort(new Error("run canceled"));
    const failure = await failureOf(
      runModelForTest(
        models(fake, [sdxlEntry()])[0]!,
        { prompt: "a fox" },
        testRunTools({ signal: controller.signal }),
      ),
    );
    expect(failure.message).toBe("run canceled");
    expect(fake.requests).toEqual([]);
  });

  it("while queued: deletes it from ComfyUI's queue (it never runs)", async () => {
    fake = await startComfyFake();
    fake.setMode("stalled");
    const controller = new AbortController();
    const [sdxl] = models(fake, [sdxlEntry()]);
    const run = runModelForTest(sdxl!, { prompt: "a fox" }, testRunTools({ signal: controller.signal }));
    await eventually(() => fake!.pending().length === 1);
    const id = fake.pending()[0]!;
    controller.abort(new Error("run canceled"));
    expect((await failureOf(run)).message).toBe("run canceled");
    await eventually(() => fake!.deleted.length === 1);
    expect(fake.deleted).toEqual([id]);
    expect(fake.pending()).toEqual([]);
    expect(fake.interrupted).toEqual([]);
    const posts = fake.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => r.path)).toEqual(["/prompt", "/queue"]);
    expect(JSON.parse(posts[1]!.body.toString())).toEqual({ delete: [id] });
    expect(sdxl!.unavailableReason!()).toBeNull();
  });

  /** Starts a held prompt (its POST /prompt answered after `answerDelayMs`), cancels it once it runs, and expects it interrupted by id. */
  async function cancelWhileRunning(answerDelayMs: number): Promise<void> {
    fake = await startComfyFake();
    fake.setMode("hold");
    fake.promptAnswerDelayMs = answerDelayMs;
    const controller = new AbortController();
    const run = runModelForTest(
      models(fake, [sdxlEntry()])[0]!,
      { prompt: "a fox" },
      testRunTools({ signal: controller.signal }),
    );
    await eventually(() => fake!.running() !== null);
    const id = fake.running()!;
    controller.abort(new Error("run canceled"));
    expect((await failureOf(run)).message).toBe("run canceled");
    await eventually(() => fake!.interrupted.length === 1);
    expect(fake.interrupted).toEqual([id]);
    expect(fake.deleted).toEqual([]);
    expect(JSON.parse(fake.requests.at(-1)!.body.toString())).toEqual({ prompt_id: id });
    expect(viewed(fake)).toEqual([]);
  }

  it("while running: interrupts that prompt (by its id)", () => cancelWhileRunning(0));

  // The answer to POST /prompt is still on its way when the cancel comes: aborting that request
  // would leave the prompt running on the box with nobody knowing its id.
  it("while the prompt is being submitted and already runs: interrupts it once its id arrives", () =>
    cancelWhileRunning(300));

  it("when the workflow takes longer than allowed: gives up, and interrupts it", async () => {
    fake = await startComfyFake();
    fake.setMode("hold");
    const [sdxl] = models(fake, [sdxlEntry()], { poll: { maxWaitMs: 200 } });
    const failure = await failureOf(runModelForTest(sdxl!, { prompt: "a fox" }));
    expect(failure).toMatchObject({ transient: true, message: "The provider gpu-box did not finish within 0.2 s." });
    await eventually(() => fake!.interrupted.length === 1);
  });
});
