// The 3D modality over HTTP: each built-in 3D entry runs end to end (the price held while it is
// queued, then charged exactly once it succeeds), its output item says what the .glb is, and the
// file behind the signed link is a glTF 2.0 binary that the Khronos validator passes and that
// decodes to the counts and extent the item states, with a poster of the stated size.
import { NodeIO } from "@gltf-transform/core";
import sharp from "sharp";
import { validateBytes } from "gltf-validator";
import { expect, test, type APIRequestContext } from "./fixtures";
import { expectError, expectOk } from "./helpers";
import { call, connect } from "./mcp-client";
import { micros, newTenant, type Api, type Generation, type OutputItem } from "./runs-helpers";
import { SERVERS } from "./servers";

/** A 3D output item: the fields a 3D output always has are there. */
type ThreeDItem = OutputItem & Required<Pick<OutputItem, "vertices" | "triangles" | "bounding_box" | "poster">>;

async function download(request: APIRequestContext, url: string): Promise<Buffer> {
  const res = await request.get(url);
  expect(res.status(), url).toBe(200);
  return res.body();
}

/** What a glTF loader reads from the file: vertices, triangles and the extent over every mesh. */
async function measureGlb(glb: Buffer): Promise<{ vertices: number; triangles: number; min: number[]; max: number[] }> {
  const document = await new NodeIO().readBinary(new Uint8Array(glb));
  let vertices = 0;
  let triangles = 0;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const node of document.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const world = node.getWorldMatrix();
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute("POSITION")!;
      vertices += position.getCount();
      triangles += (primitive.getIndices()?.getCount() ?? position.getCount()) / 3;
      const p: number[] = [0, 0, 0];
      for (let i = 0; i < position.getCount(); i++) {
        position.getElement(i, p);
        for (let axis = 0; axis < 3; axis++) {
          const v = world[axis]! * p[0]! + world[4 + axis]! * p[1]! + world[8 + axis]! * p[2]! + world[12 + axis]!;
          min[axis] = Math.min(min[axis]!, v);
          max[axis] = Math.max(max[axis]!, v);
        }
      }
    }
  }
  return { vertices, triangles, min, max };
}

async function checkThreeD(request: APIRequestContext, item: ThreeDItem): Promise<void> {
  expect(item).toMatchObject({ type: "3d", content_type: "model/gltf-binary" });
  expect(item.vertices).toBeGreaterThan(0);
  expect(item.triangles).toBeGreaterThan(0);
  const glb = await download(request, item.url);
  expect(glb.subarray(0, 4).toString("latin1"), "glTF binary magic").toBe("glTF");
  const report = await validateBytes(new Uint8Array(glb));
  expect(report.issues.numErrors, JSON.stringify(report.issues.messages.slice(0, 5))).toBe(0);
  const measured = await measureGlb(glb);
  expect([measured.vertices, measured.triangles]).toEqual([item.vertices, item.triangles]);
  for (let axis = 0; axis < 3; axis++) {
    expect(measured.min[axis]).toBeCloseTo(item.bounding_box.min[axis]!, 4);
    expect(measured.max[axis]).toBeCloseTo(item.bounding_box.max[axis]!, 4);
  }
  const poster = await download(request, item.poster.url);
  const meta = await sharp(poster).metadata();
  expect([meta.width, meta.height]).toEqual([item.poster.width, item.poster.height]);
  const stats = await sharp(poster).stats();
  expect(Math.max(...stats.channels.slice(0, 3).map((c) => c.stdev)), "not a blank poster").toBeGreaterThan(4);
}

async function uploadPicture(api: Api): Promise<string> {
  const stripes = await sharp({ create: { width: 96, height: 256, channels: 3, background: "#ffffff" } })
    .png()
    .toBuffer();
  const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#223366" } })
    .composite([{ input: stripes, left: 80, top: 0 }])
    .png()
    .toBuffer();
  return (
    await expectOk<{ id: string }>(
      await api.request.post(api.url("/v1/files"), {
        headers: api.headers({ "content-type": "image/png" }),
        data: png,
      }),
      201,
    )
  ).id;
}

test("the catalog lists the 3D entries with modality 3d, and a queued 3D run holds its price with Retry-After 5", async ({
  request,
}) => {
  const api = newTenant(request, SERVERS.runsSqliteIdle, "1.00", "three-d-hold").api;
  const list = await expectOk<{ data: { id: string; modality: string; tasks: string[] }[] }>(
    await api.get("/v1/models"),
  );
  expect(list.data.find((m) => m.id === "atelier/shapes-3d")).toMatchObject({ modality: "3d", tasks: ["text-to-3d"] });
  expect(list.data.find((m) => m.id === "atelier/relief-3d")).toMatchObject({ modality: "3d", tasks: ["image-to-3d"] });

  const input = { prompt: "a gold cube", detail: "high" };
  const cost = await api.quote("atelier/shapes-3d", input);
  const before = await api.credits();
  const { res, gen } = await api.create({ model: "atelier/shapes-3d", input });
  // No worker on this server: it stays queued, its price held, polled every 5 s like video.
  expect(gen).toMatchObject({ status: "queued", modality: "3d", output: [] });
  expect(res.headers()["retry-after"]).toBe("5");
  expect(await api.credits()).toEqual({ available: before.available - cost, held: before.held + cost });
  await expectOk(await api.post(`/v1/generations/${gen.id}/cancel`));
  expect(await api.credits()).toEqual(before);
});

test("each 3D entry runs end to end: charged its quote once, a valid .glb with the counts and extent it states, a poster", async ({
  request,
}) => {
  test.setTimeout(120_000);
  const api = newTenant(request, SERVERS.models, "1.00", "three-d-run").api;
  const picture = await uploadPicture(api);
  const runs = [
    { model: "atelier/shapes-3d", input: { prompt: "three red spheres around a glass tower", detail: "low", seed: 7 } },
    { model: "atelier/relief-3d", input: { image: picture, detail: "low", depth: 0.1 } },
  ];
  const start = await api.credits();
  let spent = 0;
  const done: Generation[] = [];
  for (const body of runs) {
    const cost = await api.quote(body.model, body.input);
    spent += cost;
    const { gen } = await api.create(body);
    const final = await api.waitFinal(gen.id, 90);
    expect(final.status, `${body.model}: ${final.error?.message}`).toBe("succeeded");
    expect(micros(final.usage.cost_usd), "charged its quote").toBe(cost);
    expect(final.output).toHaveLength(1);
    await checkThreeD(request, final.output[0] as ThreeDItem);
    done.push(final);
  }
  expect(await api.credits()).toEqual({ available: start.available - spent, held: 0 });

  // The same seed makes the same model again.
  const again = await api.waitFinal((await api.create(runs[0]!)).gen.id, 90);
  const [first, second] = [done[0]!.output[0] as ThreeDItem, again.output[0] as ThreeDItem];
  expect((await download(request, second.url)).equals(await download(request, first.url))).toBe(true);

  // Keep-as-file stays for images: a 3D output is refused by name.
  await expectError(await api.post(`/v1/generations/${done[0]!.id}/outputs/0/file`), 400, "invalid_parameter", {
    param: "index",
    message: /only image outputs can be kept as files/,
  });

  // History filters by the 3D model like any other.
  const listed = await api.list({ model: "atelier/relief-3d" });
  expect(listed.data.map((g) => g.id)).toEqual([done[1]!.id]);
});

test("the MCP door: list_models filters by modality 3d, and generate answers a 3D run with its poster and a link to the .glb", async ({
  request,
}) => {
  test.setTimeout(90_000);
  const { api } = newTenant(request, SERVERS.models, "1.00", "three-d-mcp");
  const client = await connect(SERVERS.models, api.key);
  try {
    const listed = (await call(client, "list_models", { modality: "3d" })).structuredContent as {
      models: Array<{ id: string; modality: string }>;
    };
    expect(listed.models.map((m) => m.id).sort()).toEqual(["atelier/relief-3d", "atelier/shapes-3d"]);
    const result = await call(client, "generate", {
      model: "atelier/shapes-3d",
      input: { prompt: "a blue torus", detail: "low" },
      wait_seconds: 60,
    });
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const generation = result.structuredContent as unknown as Generation;
    expect(generation.status).toBe("succeeded");
    const item = generation.output[0] as ThreeDItem;
    // The poster inline (an MCP client shows a picture), then the link to the full file.
    const image = result.content.find((c) => c.type === "image") as { data: string; mimeType: string } | undefined;
    expect(image, "the poster as an image").toBeDefined();
    expect((await sharp(Buffer.from(image!.data, "base64")).metadata()).width).toBeGreaterThan(0);
    const link = result.content.find((c) => c.type === "resource_link") as {
      uri: string;
      mimeType: string;
      description: string;
    };
    expect(link).toMatchObject({ uri: item.url, mimeType: "model/gltf-binary" });
    expect(link.description).toMatch(/3d model, [\d,]+ triangles/);
    expect((result.content[0] as { text: string }).text).toMatch(/succeeded: 3d model, [\d,]+ triangles/);
  } finally {
    await client.close();
  }
});
