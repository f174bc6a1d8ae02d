// Remote 3D entries end to end against the local fakes, through the real client libraries and
// remoteModelDefinition (as the engine runs them): fal's `model_mesh` File (content_type
// model/gltf-binary), a Replicate model's object of file URLs (the .glb among a PNG), and a
// ComfyUI Hunyuan3D graph whose SaveGLB reports the file under `3d`. Each run ends with the
// ThreeDOutput the engine stores: the provider's own glb, its counts and box, a rendered poster.
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { expectPoster } from "../../models/three-d/testing/test-3d";
import { runModelForTest, testRunTools } from "../../models/testing/test-tools";
import type { ThreeDOutput } from "../../core/catalog/model-definition";
import { comfySavedGlb, startComfyFake, type FakeComfy } from "../comfyui/testing/comfyui-fake";
import { FAKE_GLB, fakeGlb } from "../testing/fake-media";
import { FAKE_FAL_ENDPOINTS, startFalFake, type FalFake } from "../fal/testing/fal-fake";
import { providerKind } from "../kinds";
import { convertOpenApiInput } from "./openapi-schema";
import { parseProvidersFile } from "../providers-file";
import { remoteModelDefinition, type RemoteModelDefinition } from "./remote-model";
import { FAKE_REPLICATE_MODELS, startReplicateFake, type ReplicateFake } from "../replicate/testing/replicate-fake";

const FAST = { firstPollMs: 10, maxPollMs: 30 };
const FILE_ID = "file_aaaaaaaaaaaaaaaaaaaaaaaa";

type Json = Record<string, unknown>;

function modelsOf(
  kind: string,
  provider: Json,
  entries: Json[],
  env: Record<string, string> = {},
): RemoteModelDefinition[] {
  const [config] = parseProvidersFile(
    JSON.stringify({ providers: [{ ...provider, kind, timeout_ms: 10_000, entries }] }),
    env,
  );
  const adapter = providerKind(kind).createAdapter(config!);
  return config!.entries.map((entry) => remoteModelDefinition(config!, entry, adapter, FAST));
}

async function photo(): Promise<{ [id: string]: { data: Buffer; contentType: string } }> {
  return {
    [FILE_ID]: {
      data: await sharp({ create: { width: 48, height: 48, channels: 3, background: "#c84" } })
        .png()
        .toBuffer(),
      contentType: "image/png",
    },
  };
}

function expectBox(output: ThreeDOutput, box: { min: number[]; max: number[] }): void {
  for (let k = 0; k < 3; k++) {
    expect(output.bounding_box.min[k]).toBeCloseTo(box.min[k]!, 5);
    expect(output.bounding_box.max[k]).toBeCloseTo(box.max[k]!, 5);
  }
}

let fal: FalFake | null = null;
let replicate: ReplicateFake | null = null;
let comfy: FakeComfy | null = null;
afterEach(async () => {
  await Promise.all([fal?.close(), replicate?.close(), comfy?.close()]);
  [fal, replicate, comfy] = [null, null, null];
});

describe("remote 3D entries", () => {
  it("fal: stores the model_mesh glb an image-to-3d endpoint answers, measured and with a poster", async () => {
    fal = await startFalFake();
    const endpoint = FAKE_FAL_ENDPOINTS.find((e) => e.id === "fal-ai/trellis")!;
    const doc = endpoint.openapi as { components: { schemas: Record<string, Json> } };
    const { schema } = convertOpenApiInput(doc.components.schemas.InputModel!, doc);
    const provider = {
      id: "fal",
      base_url: fal.url,
      run_base_url: fal.runUrl,
      rest_base_url: fal.restUrl,
      api_key_env: "FAL_KEY",
    };
    const entry = {
      id: "microsoft/trellis",
      upstream_model: "fal-ai/trellis",
      name: "TRELLIS",
      description: "Image to 3D on fal.",
      modality: "3d",
      tasks: ["image-to-3d"],
      input_schema: schema,
      pricing: { unit: "model", usd: "0.02" },
    };
    const [trellis] = modelsOf("fal", provider, [entry], { FAL_KEY: fal.key });
    const outputs = (await runModelForTest(
      trellis!,
      { image_url: FILE_ID },
      testRunTools({ files: await photo() }),
    )) as ThreeDOutput[];

    expect(outputs).toHaveLength(1);
    const [model] = outputs as [ThreeDOutput];
    const request = [...fal.queue.values()][0]!;
    expect(String(request.input.image_url)).toMatch(/^data:image\/png;base64,/);
    expect(model).toMatchObject({
      type: "3d",
      content_type: "model/gltf-binary",
      vertices: FAKE_GLB.vertices,
      triangles: FAKE_GLB.triangles,
    });
    expect(model.data.equals(await fakeGlb(String(request.input.image_url)))).toBe(true);
    expectBox(model, FAKE_GLB.bounding_box);
    await expectPoster(model.poster);
    // Fetched from fal's media host, without the key.
    expect(fal.media.requests.map((r) => [r.path.endsWith(".glb"), r.headers.authorization])).toEqual([
      [true, undefined],
    ]);
  });

  it("replicate: keeps the .glb of a model's output object (not its PNG), and fails the run when the model made none", async () => {
    replicate = await startReplicateFake();
    const model = FAKE_REPLICATE_MODELS.find((m) => m.name === "trellis")!;
    const doc = model.openapiSchema as { components: { schemas: { Input: Json } } };
    const converted = convertOpenApiInput(doc.components.schemas.Input, doc);
    const entry = (id: string, makeGlb: boolean) => ({
      id,
      upstream_model: `${model.owner}/${model.name}:${model.versionId}`,
      name: "TRELLIS",
      description: model.description,
      modality: "3d",
      tasks: ["image-to-3d"],
      input_schema: {
        ...converted.schema,
        properties: { ...converted.schema.properties, generate_model: { type: "boolean", default: makeGlb } },
      },
      file_list_inputs: converted.fileListFields,
      pricing: { unit: "model", usd: "0.04" },
    });
    const provider = { id: "rep", base_url: replicate.url, api_key_env: "REPLICATE_API_TOKEN" };
    const [glb, none] = modelsOf(
      "replicate",
      provider,
      [entry("firtoz/trellis", true), entry("firtoz/trellis-preview", false)],
      { REPLICATE_API_TOKEN: replicate.token },
    );
    expect(converted.fileListFields).toEqual(["images"]);

    const outputs = (await runModelForTest(
      glb!,
      { images: FILE_ID, seed: 7 },
      testRunTools({ files: await photo() }),
    )) as ThreeDOutput[];
    expect(outputs.map((o) => [o.type, o.vertices, o.triangles])).toEqual([
      ["3d", FAKE_GLB.vertices, FAKE_GLB.triangles],
    ]);
    const prediction = [...replicate.predictions.values()][0]!;
    expect(prediction.output).toMatchObject({
      model_file: expect.stringMatching(/\.glb$/) as unknown,
      no_background_images: [expect.stringMatching(/\.png$/) as unknown],
    });
    expect(outputs[0]!.data.equals(await fakeGlb(`${String((prediction.input.images as string[])[0])}#7`))).toBe(true);
    expectBox(outputs[0]!, FAKE_GLB.bounding_box);
    await expectPoster(outputs[0]!.poster);
    expect(replicate.media.requests.map((r) => r.path.split("/").at(-1))).toEqual(["output.glb"]);

    await expect(runModelForTest(none!, { images: FILE_ID }, testRunTools({ files: await photo() }))).rejects.toThrow(
      "The provider rep finished the prediction without any 3d output.",
    );
  });

  it("comfyui: stores the .glb a Hunyuan3D workflow's SaveGLB wrote (its `3d` files), not the image it also saved", async () => {
    comfy = await startComfyFake();
    const workflow = {
      "1": { class_type: "ImageOnlyCheckpointLoader", inputs: { ckpt_name: "hunyuan3d-dit-v2.safetensors" } },
      "2": { class_type: "LoadImage", inputs: { image: "example.png" } },
      "3": { class_type: "CLIPVisionEncode", inputs: { clip_vision: ["1", 1], image: ["2", 0], crop: "center" } },
      "4": { class_type: "Hunyuan3Dv2Conditioning", inputs: { clip_vision_output: ["3", 0] } },
      "5": { class_type: "EmptyLatentHunyuan3Dv2", inputs: { resolution: 3072, batch_size: 1 } },
      "6": {
        class_type: "KSampler",
        inputs: {
          model: ["1", 0],
          seed: 0,
          steps: 30,
          cfg: 5,
          sampler_name: "euler",
          scheduler: "normal",
          positive: ["4", 0],
          negative: ["4", 1],
          latent_image: ["5", 0],
          denoise: 1,
        },
      },
      "7": {
        class_type: "VAEDecodeHunyuan3D",
        inputs: { samples: ["6", 0], vae: ["1", 2], num_chunks: 8000, octree_resolution: 256 },
      },
      "8": { class_type: "VoxelToMeshBasic", inputs: { voxel: ["7", 0], threshold: 0.6 } },
      "9": { class_type: "SaveGLB", inputs: { mesh: ["8", 0], filename_prefix: "mesh/ComfyUI" } },
      "10": { class_type: "SaveImage", inputs: { images: ["2", 0], filename_prefix: "inputs/seen" } },
    };
    const entry = {
      id: "gpu-box/hunyuan3d",
      name: "Hunyuan3D 2 on the GPU box",
      description: "A mesh from a photo.",
      modality: "3d",
      tasks: ["image-to-3d"],
      workflow,
      bindings: { image: { node: "2", input: "image" }, seed: { node: "6", input: "seed" } },
      input_schema: {
        type: "object",
        additionalProperties: false,
        required: ["image"],
        properties: {
          image: { type: "string", title: "Image", contentMediaType: "image/*", pattern: "^file_[0-9A-Za-z]{24}$" },
          seed: { type: "integer", title: "Seed", minimum: 0, maximum: 4294967295 },
        },
      },
      pricing: { unit: "model", usd: "0.01" },
    };
    const [hunyuan] = modelsOf("comfyui", { id: "gpu-box", base_url: comfy.url }, [entry]);
    const outputs = (await runModelForTest(
      hunyuan!,
      { image: FILE_ID, seed: 3 },
      testRunTools({ files: await photo() }),
    )) as ThreeDOutput[];

    expect(
      comfy.requests
        .filter((r) => r.path.startsWith("/view?"))
        .map((r) => new URL(r.path, comfy!.url).searchParams.get("subfolder")),
    ).toEqual(["mesh"]);
    expect(outputs).toHaveLength(1);
    const [model] = outputs as [ThreeDOutput];
    const written = comfySavedGlb(1, comfy.prompts[0]!.prompt);
    expect(model.data.equals(written)).toBe(true);
    const json = JSON.parse(written.toString("utf8", 20, 20 + written.readUInt32LE(12))) as {
      accessors: Array<{ count: number; min: number[]; max: number[] }>;
    };
    expect([model.type, model.vertices, model.triangles]).toEqual([
      "3d",
      json.accessors[0]!.count,
      json.accessors[1]!.count / 3,
    ]);
    expectBox(model, { min: json.accessors[0]!.min, max: json.accessors[0]!.max });
    await expectPoster(model.poster);
  });
});
