// The import command's core against the Replicate and fal fakes: an entry made from the provider's
// own schema and the operator's price, written into a providers file without losing the rest, that
// the server loads and runs as it is.
import { afterEach, describe, expect, it } from "vitest";
import { runModelForTest, testRunTools } from "../models/testing/test-tools";
import type { ImageOutput, ThreeDOutput, VideoOutput } from "../core/catalog/model-definition";
import { FAKE_GLB, fakePng } from "./testing/fake-media";
import { startFalFake, type FalFake } from "./fal/testing/fal-fake";
import { addEntryToProvidersFile, importEntry, SchemaImportError } from "./import-entry";
import { remoteModels } from "./index";
import { parseProvidersFile } from "./providers-file";
import { FAKE_REPLICATE_MODELS, startReplicateFake, type ReplicateFake } from "./replicate/testing/replicate-fake";

const EXISTING = `{
  "$comment": "hand-written, keep me",
  "providers": [
    {
      "id": "acme",
      "kind": "openai-images",
      "base_url": "https://api.acme.example",
      "api_key_env": "ACME_API_KEY",
      "entries": [
        {
          "id": "acme/image-1",
          "upstream_model": "image-1",
          "name": "Acme Image 1",
          "description": "Acme's first image model.",
          "modality": "image",
          "tasks": ["text-to-image"],
          "input_schema": { "type": "object", "properties": { "prompt": { "type": "string" } }, "required": ["prompt"], "additionalProperties": false },
          "pricing": { "unit": "image", "usd": "0.04" }
        }
      ]
    }
  ]
}`;

let replicate: ReplicateFake | null = null;
let fal: FalFake | null = null;
afterEach(async () => {
  await replicate?.close();
  await fal?.close();
  replicate = fal = null;
});

describe("importing a Replicate model", () => {
  it("makes a ready entry from the model's latest version, writes it beside the rest, and it runs", async () => {
    replicate = await startReplicateFake();
    const imported = await importEntry({
      source: { kind: "replicate", model: "black-forest-labs/flux-schnell" },
      id: "bfl/flux-schnell",
      usd: "0.003",
      unit: "image",
      apiKey: replicate.token,
      baseUrl: replicate.url,
      today: "2026-11-30",
    });
    expect(imported.entry).toMatchObject({
      id: "bfl/flux-schnell",
      upstream_model: "black-forest-labs/flux-schnell",
      name: "Flux schnell",
      creator: "black-forest-labs",
      description: FAKE_REPLICATE_MODELS[0]!.description,
      modality: "image",
      tasks: ["text-to-image"],
      revision: "2026-11-30",
      pricing: { unit: "image", usd: "0.003", drivers: ["num_outputs"], overrides: [] },
      examples: [{ title: "Default example", input: FAKE_REPLICATE_MODELS[0]!.defaultExample }],
    });
    expect(imported.notes).toEqual(expect.arrayContaining([expect.stringContaining("num_outputs")]));
    expect(replicate.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/models/black-forest-labs/flux-schnell",
    ]);

    const text = addEntryToProvidersFile(
      EXISTING,
      { id: "replicate", kind: "replicate", apiKeyEnv: "REPLICATE_API_TOKEN", baseUrl: replicate.url },
      imported.entry,
    );
    const written = JSON.parse(text);
    expect(written.$comment).toBe("hand-written, keep me");
    expect(written.providers.map((p: { id: string }) => p.id)).toEqual(["acme", "replicate"]);
    expect(written.providers[0]).toEqual(JSON.parse(EXISTING).providers[0]);

    const models = remoteModels(parseProvidersFile(text, { ACME_API_KEY: "k", REPLICATE_API_TOKEN: replicate.token }));
    const flux = models.find((m) => m.id === "bfl/flux-schnell")!;
    expect(flux.examples).toEqual([{ title: "Default example", input: FAKE_REPLICATE_MODELS[0]!.defaultExample }]);
    const [image] = (await runModelForTest(flux, { prompt: "imported", num_outputs: 1 })) as ImageOutput[];
    expect(image!.data.equals(await fakePng(64, 48, "imported#0"))).toBe(true);
  });

  it("writes the upstream cost asked for: per unit with the price's unit and drivers, or per second", async () => {
    replicate = await startReplicateFake();
    const base = {
      source: { kind: "replicate" as const, model: "black-forest-labs/flux-schnell" },
      id: "bfl/flux-schnell",
      usd: "0.003",
      unit: "image",
      apiKey: replicate.token,
      baseUrl: replicate.url,
    };
    const provider = { id: "replicate", kind: "replicate" as const, apiKeyEnv: "REPLICATE_API_TOKEN" };
    const env = { REPLICATE_API_TOKEN: replicate.token };
    const perImage = await importEntry({ ...base, cost: { usd: "0.002" } });
    expect(perImage.entry.cost).toEqual({ unit: "image", usd: "0.002", drivers: ["num_outputs"], overrides: [] });
    const [read] = parseProvidersFile(addEntryToProvidersFile(null, provider, perImage.entry), env);
    expect(read!.entries[0]!.cost).toEqual({
      per: "unit",
      pricing: { unit: "image", usd: "0.002", drivers: ["num_outputs"], overrides: [] },
    });
    const perSecond = await importEntry({ ...base, cost: { perSecondUsd: "0.000225" } });
    expect(perSecond.entry.cost).toEqual({ per_second_usd: "0.000225" });
    expect(
      parseProvidersFile(addEntryToProvidersFile(null, provider, perSecond.entry), env)[0]!.entries[0]!.cost,
    ).toEqual({ per: "second", usd: "0.000225" });
    expect((await importEntry(base)).entry).not.toHaveProperty("cost");
    // A bad amount is refused when the entry is written, naming the field, as the server would.
    const bad = await importEntry({ ...base, cost: { perSecondUsd: "0.0000001" } });
    expect(() => addEntryToProvidersFile(null, provider, bad.entry)).toThrow(
      /entries\[0\]\.cost\.per_second_usd must be a decimal string of at most 6 places/,
    );
  });

  it("pins a community model to its latest version, or to the version asked for", async () => {
    replicate = await startReplicateFake();
    const clip = FAKE_REPLICATE_MODELS[1]!;
    const base = { id: "acme/clipmaker", usd: "0.20", unit: "video", apiKey: replicate.token, baseUrl: replicate.url };
    const latest = await importEntry({ ...base, source: { kind: "replicate", model: "acme-video/clipmaker" } });
    expect(latest.entry).toMatchObject({
      upstream_model: `acme-video/clipmaker:${clip.versionId}`,
      modality: "video",
      tasks: ["text-to-video", "image-to-video"],
    });
    expect(latest.notes.join(" ")).toContain(`pinned to version ${clip.versionId}`);
    const pinned = await importEntry({
      ...base,
      source: { kind: "replicate", model: `acme-video/clipmaker:${clip.versionId}` },
    });
    expect(pinned.entry.upstream_model).toBe(`acme-video/clipmaker:${clip.versionId}`);
    expect(replicate.requests.at(-1)!.path).toBe(`/v1/models/acme-video/clipmaker/versions/${clip.versionId}`);
  });

  it("leaves out a default example the entry would refuse (a file by URL), saying why", async () => {
    replicate = await startReplicateFake();
    const { entry, notes } = await importEntry({
      source: { kind: "replicate", model: "acme-video/clipmaker" },
      id: "acme/clipmaker",
      usd: "0.20",
      unit: "video",
      apiKey: replicate.token,
      baseUrl: replicate.url,
    });
    expect(entry.examples).toBeUndefined();
    expect(notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Replicate's default example was left out: input\.start_image /)]),
    );
  });

  it("guesses a 3D model from its words, and takes its list of images as a one-item file list", async () => {
    replicate = await startReplicateFake();
    const trellis = FAKE_REPLICATE_MODELS.find((m) => m.name === "trellis")!;
    const { entry, notes } = await importEntry({
      source: { kind: "replicate", model: "firtoz/trellis" },
      id: "firtoz/trellis",
      usd: "0.04",
      unit: "model",
      apiKey: replicate.token,
      baseUrl: replicate.url,
    });
    expect(entry).toMatchObject({
      upstream_model: `firtoz/trellis:${trellis.versionId}`,
      modality: "3d",
      tasks: ["image-to-3d"],
      file_list_inputs: ["images"],
    });
    expect(notes.join(" ")).toContain('modality "3d" guessed');
  });

  it("says what Replicate said when the model is unknown or the token refused", async () => {
    replicate = await startReplicateFake();
    const base = { id: "x/y", usd: "0.01", unit: "image", baseUrl: replicate.url };
    await expect(
      importEntry({ ...base, apiKey: replicate.token, source: { kind: "replicate", model: "nobody/nothing" } }),
    ).rejects.toThrow(
      new SchemaImportError("Replicate answered 404 for nobody/nothing: The requested resource could not be found."),
    );
    await expect(
      importEntry({ ...base, apiKey: "wrong", source: { kind: "replicate", model: "black-forest-labs/flux-schnell" } }),
    ).rejects.toThrow(/answered 401 .*check the API token/);
  });
});

describe("importing a fal endpoint", () => {
  it("reads fal's OpenAPI document: its request body, category and description, and a list of image URLs as a file", async () => {
    fal = await startFalFake();
    const imported = await importEntry({
      source: { kind: "fal", endpoint: "fal-ai/kling-video/v2/image-to-video" },
      id: "kling/v2-image-to-video",
      usd: "0.25",
      unit: "video",
      baseUrl: fal.url,
    });
    expect(imported.entry).toMatchObject({
      upstream_model: "fal-ai/kling-video/v2/image-to-video",
      creator: "fal-ai",
      description: "Animates an image into a short clip.",
      modality: "video",
      tasks: ["image-to-video"],
      file_list_inputs: ["image_urls"],
      pricing: { unit: "video", usd: "0.25", drivers: [], overrides: [] },
    });
    expect(fal.requests[0]!.path).toBe(
      "/api/openapi/queue/openapi.json?endpoint_id=fal-ai%2Fkling-video%2Fv2%2Fimage-to-video",
    );
    expect(fal.requests[0]!.headers.authorization).toBeUndefined();

    const text = addEntryToProvidersFile(
      null,
      { id: "fal", kind: "fal", apiKeyEnv: "FAL_KEY", baseUrl: fal.url },
      imported.entry,
    );
    const [model] = remoteModels(parseProvidersFile(text, { FAL_KEY: fal.key }));
    const still = await fakePng(32, 24, "still");
    const tools = testRunTools({ files: { file_aaaaaaaaaaaaaaaaaaaaaaaa: { data: still, contentType: "image/png" } } });
    const [video] = (await runModelForTest(
      model!,
      { prompt: "waves", image_url: "file_aaaaaaaaaaaaaaaaaaaaaaaa" },
      tools,
    )) as VideoOutput[];
    expect(video).toMatchObject({ type: "video", width: 64, height: 48 });
  }, 20_000);

  it("makes a 3D entry of an image-to-3d endpoint (its category), taking the image as a file, that runs", async () => {
    fal = await startFalFake();
    const imported = await importEntry({
      source: { kind: "fal", endpoint: "fal-ai/trellis" },
      id: "microsoft/trellis",
      usd: "0.02",
      unit: "model",
      baseUrl: fal.url,
    });
    expect(imported.entry).toMatchObject({
      modality: "3d",
      tasks: ["image-to-3d"],
      input_schema: { required: ["image_url"], properties: { image_url: { contentMediaType: "image/*" } } },
    });
    const [model] = remoteModels(
      parseProvidersFile(
        addEntryToProvidersFile(
          null,
          { id: "fal", kind: "fal", apiKeyEnv: "FAL_KEY", baseUrl: fal.url },
          imported.entry,
        ),
        { FAL_KEY: fal.key },
      ),
    );
    const tools = testRunTools({
      files: { file_aaaaaaaaaaaaaaaaaaaaaaaa: { data: await fakePng(32, 24, "still"), contentType: "image/png" } },
    });
    const [mesh] = (await runModelForTest(
      model!,
      { image_url: "file_aaaaaaaaaaaaaaaaaaaaaaaa" },
      tools,
    )) as ThreeDOutput[];
    expect(mesh).toMatchObject({
      type: "3d",
      content_type: "model/gltf-binary",
      vertices: FAKE_GLB.vertices,
      triangles: FAKE_GLB.triangles,
    });
  });

  it("refuses to add an entry twice unless asked to replace it", async () => {
    fal = await startFalFake();
    const { entry } = await importEntry({
      source: { kind: "fal", endpoint: "fal-ai/flux/dev" },
      id: "bfl/flux-dev",
      usd: "0.025",
      unit: "image",
      baseUrl: fal.url,
    });
    expect(entry).toMatchObject({ modality: "image", tasks: ["text-to-image"], pricing: { drivers: ["num_images"] } });
    const provider = { id: "fal", kind: "fal" as const, apiKeyEnv: "FAL_KEY" };
    const once = addEntryToProvidersFile(EXISTING, provider, entry);
    expect(() => addEntryToProvidersFile(once, provider, entry)).toThrow(
      "already has the entry bfl/flux-dev (pass --replace to overwrite it)",
    );
    const twice = addEntryToProvidersFile(
      once,
      provider,
      { ...entry, pricing: { unit: "image", usd: "0.03", drivers: ["num_images"] } },
      { replace: true },
    );
    expect(JSON.parse(twice).providers[1].entries).toHaveLength(1);
    expect(JSON.parse(twice).providers[1].entries[0].pricing.usd).toBe("0.03");
    expect(() => addEntryToProvidersFile(EXISTING, { ...provider, id: "acme" }, entry)).toThrow(
      'is of kind "openai-images", not "fal"',
    );
  });
});
