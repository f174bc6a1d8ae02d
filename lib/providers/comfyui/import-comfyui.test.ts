// `admin provider import --comfyui`'s core: the SDXL fixture workflow and the operator's bindings
// make an entry whose schema validates like a built-in's, written into a providers file the server
// loads; ComfyUI's own node descriptions (the fake's GET /object_info) refine it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../primitives/errors";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { validateModelInput } from "../../core/catalog/input-validation";
import { startComfyFake, type FakeComfy } from "./testing/comfyui-fake";
import { addEntryToProvidersFile, SchemaImportError } from "../import-entry";
import { importComfyEntry, parseBindArguments } from "./import-comfyui";
import { parseProvidersFile } from "../providers-file";

/** An imported schema, its properties there. */
type Schema = JsonSchemaObject & { properties: Record<string, JsonSchemaObject> };

const FIXTURES = path.resolve(__dirname, "../../../e2e/api/fixtures/comfyui");
const BINDS = [
  "prompt=6.text",
  "negative_prompt=7.text",
  "seed=3.seed",
  "steps=3.steps",
  "width=5.width",
  "height=5.height",
];
const BASE = {
  workflow: "workflows/sdxl.json",
  baseDir: FIXTURES,
  cwd: FIXTURES,
  id: "gpu-box/sdxl-imported",
  usd: "0.01",
  unit: "image",
  today: "2026-11-30",
};

let comfy: FakeComfy | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await comfy?.close();
  comfy = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("importing a ComfyUI workflow", () => {
  it("makes an entry from the workflow's values whose schema validates like a built-in, and the server loads it", async () => {
    const { entry, notes } = await importComfyEntry({ ...BASE, bindings: BINDS });
    expect(entry).toMatchObject({
      id: "gpu-box/sdxl-imported",
      name: "Sdxl",
      modality: "image",
      tasks: ["text-to-image"],
      workflow: "workflows/sdxl.json",
      bindings: {
        prompt: { node: "6", input: "text" },
        seed: { node: "3", input: "seed" },
        width: { node: "5", input: "width" },
      },
      pricing: { unit: "image", usd: "0.01", drivers: [], overrides: [] },
    });
    expect(notes).toEqual(expect.arrayContaining([expect.stringContaining("modality")]));
    const schema = entry.input_schema as Schema;
    expect(schema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      additionalProperties: false,
      required: ["prompt"],
    });
    expect(schema.properties.prompt).toMatchObject({ type: "string", title: "Prompt", minLength: 1 });
    expect(schema.properties.prompt!.default).toBeUndefined();
    expect(schema.properties.negative_prompt).toMatchObject({
      type: "string",
      default: "blurry, low quality, watermark, text",
    });
    expect(schema.properties.seed).toMatchObject({ type: "integer", minimum: 0, maximum: 2 ** 32 - 1 });
    expect(schema.properties.seed!.default).toBeUndefined();
    expect(schema.properties.steps).toMatchObject({ type: "integer", minimum: 1, maximum: 150, default: 25 });
    expect(schema.properties.width).toMatchObject({
      type: "integer",
      minimum: 64,
      maximum: 4096,
      multipleOf: 8,
      default: 1024,
    });

    const input = validateModelInput(schema, { prompt: "a harbour at dawn" }, { modelId: "gpu-box/sdxl-imported" });
    expect(input).toEqual({
      prompt: "a harbour at dawn",
      negative_prompt: "blurry, low quality, watermark, text",
      steps: 25,
      width: 1024,
      height: 1024,
    });
    expect(() => validateModelInput(schema, { prompt: "x", width: 1000 + 1 }, { modelId: "m" })).toThrow(ApiError);
    expect(() => validateModelInput(schema, { prompt: "x", steps: 500 }, { modelId: "m" })).toThrow(/input\.steps/);
    expect(() => validateModelInput(schema, { steps: 20 }, { modelId: "m" })).toThrow(/prompt/);
    expect(() => validateModelInput(schema, { prompt: "x", cfg: 3 }, { modelId: "m" })).toThrow(/not an input/);

    const text = addEntryToProvidersFile(
      null,
      { id: "gpu-box", kind: "comfyui", baseUrl: "http://127.0.0.1:8188" },
      entry,
      { baseDir: FIXTURES },
    );
    const [provider] = parseProvidersFile(text, {}, FIXTURES);
    expect(provider).toMatchObject({ id: "gpu-box", kind: "comfyui", baseUrl: "http://127.0.0.1:8188" });
    expect(provider!.entries.map((e) => e.id)).toEqual(["gpu-box/sdxl-imported"]);
    const options = provider!.entries[0]!.options as {
      randomSeeds: Record<string, unknown>;
      bindings: Record<string, unknown>;
    };
    expect(options.randomSeeds).toEqual({ seed: { min: 0, max: 2 ** 32 - 1 } });
    expect(Object.keys(options.bindings)).toEqual(BINDS.map((b) => b.split("=")[0]));
    expect(JSON.parse(text).providers[0].api_key_env).toBeUndefined();
  });

  it("writes the workflow's path relative to the providers file's folder", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "atelier-comfy-import-"));
    dirs.push(dir);
    const { entry } = await importComfyEntry({
      ...BASE,
      cwd: path.resolve(FIXTURES, ".."),
      workflow: "comfyui/workflows/sdxl.json",
      baseDir: FIXTURES,
      bindings: ["prompt=6.text"],
    });
    expect(entry.workflow).toBe("workflows/sdxl.json");
    const file = path.join(dir, "providers.json");
    const { entry: elsewhere } = await importComfyEntry({ ...BASE, baseDir: dir, bindings: ["prompt=6.text"] });
    expect(elsewhere.workflow).toBe(
      path.relative(dir, path.join(FIXTURES, "workflows/sdxl.json")).split(path.sep).join("/"),
    );
    writeFileSync(
      file,
      addEntryToProvidersFile(null, { id: "box", kind: "comfyui", baseUrl: "http://127.0.0.1:8188" }, elsewhere, {
        baseDir: dir,
      }),
    );
  });

  it("takes the workflow itself (the studio's upload) and holds it inline in the entry", async () => {
    const workflow = JSON.parse(readFileSync(path.join(FIXTURES, "workflows/sdxl.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const { entry } = await importComfyEntry({
      ...BASE,
      workflow,
      bindings: { prompt: [{ node: "6", input: "text" }] },
    });
    expect(entry).toMatchObject({ name: "Sdxl imported", description: "A ComfyUI workflow.", workflow });
    const [provider] = parseProvidersFile(
      JSON.stringify({
        providers: [{ id: "gpu-box", kind: "comfyui", base_url: "http://127.0.0.1:8188", entries: [entry] }],
      }),
      {},
      FIXTURES,
    );
    expect(provider!.entries.map((e) => e.id)).toEqual(["gpu-box/sdxl-imported"]);
    // A UI-format export and a binding to a node it lacks are told, not thrown as something else.
    await expect(
      importComfyEntry({ ...BASE, workflow: { nodes: [], links: [] }, bindings: ["prompt=6.text"] }),
    ).rejects.toThrow(/UI format/);
    await expect(importComfyEntry({ ...BASE, workflow, bindings: ["prompt=99.text"] })).rejects.toThrow(
      SchemaImportError,
    );
  });

  it("makes a LoadImage input a file input", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "atelier-comfy-import-"));
    dirs.push(dir);
    const workflow = {
      "1": { class_type: "LoadImage", inputs: { image: "example.png" } },
      "2": { class_type: "CLIPTextEncode", inputs: { text: "make it snow", clip: ["3", 1] } },
      "3": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "sd_xl_base_1.0.safetensors" } },
      "4": { class_type: "SaveImage", inputs: { images: ["1", 0], filename_prefix: "x" } },
    };
    writeFileSync(path.join(dir, "img2img.json"), JSON.stringify(workflow));
    const { entry } = await importComfyEntry({
      ...BASE,
      workflow: "img2img.json",
      baseDir: dir,
      cwd: dir,
      bindings: ["image=1.image", "prompt=2.text"],
    });
    const schema = entry.input_schema as Schema;
    expect(schema.properties.image).toMatchObject({ type: "string", contentMediaType: "image/*" });
    expect(schema.required).toEqual(["image", "prompt"]);
    expect(entry.tasks).toEqual(["image-to-image"]);
    const [provider] = parseProvidersFile(
      addEntryToProvidersFile(null, { id: "box", kind: "comfyui", baseUrl: "http://127.0.0.1:8188" }, entry, {
        baseDir: dir,
      }),
      {},
      dir,
    );
    expect((provider!.entries[0]!.options as { fileFields: string[] }).fileFields).toEqual(["image"]);
  });

  it("reads a workflow whose SaveGLB writes a mesh as a 3D entry, image to 3D from its LoadImage", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "atelier-comfy-import-"));
    dirs.push(dir);
    const workflow = {
      "1": { class_type: "ImageOnlyCheckpointLoader", inputs: { ckpt_name: "hunyuan3d-dit-v2.safetensors" } },
      "2": { class_type: "LoadImage", inputs: { image: "example.png" } },
      "3": { class_type: "CLIPVisionEncode", inputs: { clip_vision: ["1", 1], image: ["2", 0], crop: "center" } },
      "9": { class_type: "SaveGLB", inputs: { mesh: ["3", 0], filename_prefix: "mesh/ComfyUI" } },
    };
    writeFileSync(path.join(dir, "hunyuan3d.json"), JSON.stringify(workflow));
    const { entry, notes } = await importComfyEntry({
      ...BASE,
      unit: "model",
      workflow: "hunyuan3d.json",
      baseDir: dir,
      cwd: dir,
      bindings: ["image=2.image"],
    });
    expect(entry).toMatchObject({ modality: "3d", tasks: ["image-to-3d"] });
    expect(notes.join(" ")).toContain('modality "3d" read from the workflow\'s nodes');
  });

  it("refines types, choices and bounds from ComfyUI's GET /object_info", async () => {
    comfy = await startComfyFake();
    const { entry } = await importComfyEntry({
      ...BASE,
      baseUrl: comfy.url,
      bindings: [...BINDS, "cfg=3.cfg", "sampler_name=3.sampler_name", "denoise=3.denoise"],
    });
    const props = (entry.input_schema as Schema).properties;
    expect(props.cfg).toMatchObject({ type: "number", minimum: 0, maximum: 100, default: 7 });
    expect(props.denoise).toMatchObject({ type: "number", minimum: 0, maximum: 1, default: 1 });
    expect(props.sampler_name).toMatchObject({ type: "string", default: "dpmpp_2m" });
    expect(props.sampler_name!.enum).toContain("euler");
    expect(props.seed).toMatchObject({ minimum: 0, maximum: 2 ** 32 - 1 });
    expect(props.steps).toMatchObject({ minimum: 1, maximum: 150 });
    expect(() =>
      validateModelInput(entry.input_schema as Schema, { prompt: "x", sampler_name: "magic" }, { modelId: "m" }),
    ).toThrow(/sampler_name/);
    parseProvidersFile(
      addEntryToProvidersFile(null, { id: "gpu-box", kind: "comfyui", baseUrl: comfy.url }, entry, {
        baseDir: FIXTURES,
      }),
      {},
      FIXTURES,
    );
  });

  it("refuses a binding to a missing node or input, or a link, saying which", async () => {
    await expect(importComfyEntry({ ...BASE, bindings: ["prompt=99.text"] })).rejects.toThrow(
      /node "99", which the workflow does not have \(its nodes: 3, 4, 5, 6, 7, 8, 9\)/,
    );
    await expect(importComfyEntry({ ...BASE, bindings: ["prompt=6.words"] })).rejects.toThrow(
      /"words", which node "6" \(CLIPTextEncode\) does not have \(its inputs: text, clip\)/,
    );
    await expect(importComfyEntry({ ...BASE, bindings: ["prompt=6.clip"] })).rejects.toThrow(
      /a link to node "4"; bind a value/,
    );
    await expect(importComfyEntry({ ...BASE, bindings: ["prompt"] })).rejects.toThrow(/field=node\.input/);
    await expect(importComfyEntry({ ...BASE, bindings: [] })).rejects.toThrow(SchemaImportError);
    await expect(
      importComfyEntry({ ...BASE, workflow: "workflows/missing.json", bindings: ["prompt=6.text"] }),
    ).rejects.toThrow(/cannot be found/);
  });

  it("needs a base URL for a new comfyui provider", async () => {
    const { entry } = await importComfyEntry({ ...BASE, bindings: ["prompt=6.text"] });
    expect(() =>
      addEntryToProvidersFile(null, { id: "gpu-box", kind: "comfyui" }, entry, { baseDir: FIXTURES }),
    ).toThrow(/--base-url/);
  });

  it("parses repeated --bind for one field into several node inputs", () => {
    expect(parseBindArguments(["seed=3.seed", "seed=10.noise_seed"])).toEqual({
      seed: [
        { node: "3", input: "seed" },
        { node: "10", input: "noise_seed" },
      ],
    });
  });
});
