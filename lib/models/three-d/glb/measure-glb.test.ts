// readGlbOutput on glb files made here by glTF-Transform (and one laid out byte by byte as
// ComfyUI's SaveGLB writes it): counts over every placed primitive, a world-space box that
// follows rotations and scales, a real poster; and what it refuses, quickly and with the reason.
import { Document, NodeIO, type Buffer as GltfBuffer, type Material, type Mesh } from "@gltf-transform/core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { withGlbJson } from "../testing/glb-test-json";
import { GlbRefusal, readGlbOutput } from "./measure-glb";
import { expectPoster } from "../testing/test-3d";

const SMALL_POSTER = { width: 320, height: 240 };

/** A unit cube (±0.5): 24 vertices with normals and texture coordinates, 12 triangles. */
function cube(doc: Document, buffer: GltfBuffer, material: Material | null = null): Mesh {
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const indices: number[] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const sign of [1, -1]) {
      const [u, v] = [(axis + 1) % 3, (axis + 2) % 3];
      const base = positions.length / 3;
      for (const [a, b] of [
        [-1, -1],
        [1, -1],
        [1, 1],
        [-1, 1],
      ] as const) {
        const p = [0, 0, 0];
        p[axis] = sign * 0.5;
        p[u] = a * 0.5 * sign;
        p[v] = b * 0.5;
        const n = [0, 0, 0];
        n[axis] = sign;
        positions.push(...p);
        normals.push(...n);
        uvs.push((a + 1) / 2, (b + 1) / 2);
      }
      indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  }
  const accessor = (type: "VEC3" | "VEC2" | "SCALAR", array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute("POSITION", accessor("VEC3", Float32Array.from(positions)))
    .setAttribute("NORMAL", accessor("VEC3", Float32Array.from(normals)))
    .setAttribute("TEXCOORD_0", accessor("VEC2", Float32Array.from(uvs)))
    .setIndices(accessor("SCALAR", Uint16Array.from(indices)))
    .setMaterial(material);
  return doc.createMesh("cube").addPrimitive(primitive);
}

/** An unindexed primitive of `mode` over `positions`, without normals. */
function loose(doc: Document, buffer: GltfBuffer, mode: 0 | 5, positions: number[]): Mesh {
  const position = doc.createAccessor().setType("VEC3").setArray(Float32Array.from(positions)).setBuffer(buffer);
  return doc
    .createMesh(mode === 0 ? "points" : "strip")
    .addPrimitive(doc.createPrimitive().setMode(mode).setAttribute("POSITION", position));
}

async function glbOf(doc: Document): Promise<Buffer> {
  return Buffer.from(await new NodeIO().writeBinary(doc));
}

/** The rotated, scaled and parented scene of the first test. */
async function sceneGlb(): Promise<Buffer> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene();
  doc.getRoot().setDefaultScene(scene);
  const paint = doc
    .createMaterial("paint")
    .setBaseColorFactor([0.8, 0.3, 0.1, 1])
    .setMetallicFactor(0)
    .setRoughnessFactor(0.5);
  const half = Math.PI / 8; // a quarter turn about Y is π/2; this is 45°, halved for the quaternion
  const turned = doc
    .createNode("turned")
    .setMesh(cube(doc, buffer, paint))
    .setTranslation([0, 0.5, 0])
    .setRotation([0, Math.sin(half), 0, Math.cos(half)])
    .setScale([2, 1, 1]);
  scene.addChild(doc.createNode("parent").setTranslation([1, 0, 0]).addChild(turned));
  scene.addChild(
    doc
      .createNode("strip")
      .setMesh(loose(doc, buffer, 5, [-0.5, 0, -0.5, 0.5, 0, -0.5, -0.5, 0, 0.5, 0.5, 0, 0.5]))
      .setTranslation([0, 2, 0]),
  );
  scene.addChild(
    doc.createNode("points").setMesh(loose(doc, buffer, 0, [-3, 0, 0, -2.75, 0, 0, -2.5, 0, 0, -2.25, 0, 0, -2, 0, 0])),
  );
  doc.createNode("not in the scene").setMesh(cube(doc, buffer)).setTranslation([50, 0, 0]);
  return glbOf(doc);
}

/** A glb laid out as ComfyUI's SaveGLB writes one (comfy_extras/nodes_hunyuan3d.py save_glb): positions, 32-bit indices, nothing else. */
function comfyStyleGlb(): Buffer {
  // An octahedron: ±X, ±Y, ±Z, one face per octant, wound counter-clockwise seen from outside.
  const vertices = Float32Array.from([1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1]);
  const faces = Uint32Array.from([0, 2, 4, 0, 5, 2, 0, 4, 3, 0, 3, 5, 1, 4, 2, 1, 2, 5, 1, 3, 4, 1, 5, 3]);
  const bin = Buffer.concat([Buffer.from(vertices.buffer), Buffer.from(faces.buffer)]);
  const gltf = {
    asset: { version: "2.0", generator: "ComfyUI", extras: { prompt: "{}" } },
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 72, target: 34962 },
      { buffer: 0, byteOffset: 72, byteLength: 96, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, byteOffset: 0, componentType: 5126, count: 6, type: "VEC3", max: [1, 1, 1], min: [-1, -1, -1] },
      { bufferView: 1, byteOffset: 0, componentType: 5125, count: 24, type: "SCALAR" },
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1, mode: 4 }] }],
    nodes: [{ mesh: 0 }],
    scenes: [{ nodes: [0] }],
    scene: 0,
  };
  let json = Buffer.from(JSON.stringify(gltf));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(12);
  header.write("glTF", 0, "latin1");
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length + 8 + bin.length, 8);
  const chunk = (length: number, type: number) => Buffer.from(Uint32Array.from([length, type]).buffer);
  return Buffer.concat([header, chunk(json.length, 0x4e4f534a), json, chunk(bin.length, 0x004e4942), bin]);
}

describe("a glb made elsewhere, measured and drawn", () => {
  it("counts every placed primitive of the scene and boxes it in world space, rotations and scales included", async () => {
    const glb = await sceneGlb();
    const output = await readGlbOutput(glb);
    expect(output).toMatchObject({ type: "3d", content_type: "model/gltf-binary", data: glb });
    // The cube's 24 vertices and 12 triangles, the strip's 4 and 2, the points' 5 and none; not the node outside the scene.
    expect([output!.vertices, output!.triangles]).toEqual([33, 14]);
    // Scaled ×2 along X then turned 45° about Y, a ±0.5 cube reaches 1.5·cos 45° from its centre in X and Z.
    const reach = 1.5 * Math.SQRT1_2;
    const expected = { min: [-3, 0, -reach], max: [1 + reach, 2, reach] };
    for (let k = 0; k < 3; k++) {
      expect(output!.bounding_box.min[k]).toBeCloseTo(expected.min[k]!, 5);
      expect(output!.bounding_box.max[k]).toBeCloseTo(expected.max[k]!, 5);
    }
    await expectPoster(output!.poster);
    expect([output!.poster.width, output!.poster.height]).toEqual([768, 576]);
  });

  it("counts a mesh again for each node that places it", async () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const mesh = cube(doc, buffer);
    const scene = doc.createScene();
    scene
      .addChild(doc.createNode("a").setMesh(mesh))
      .addChild(doc.createNode("b").setMesh(mesh).setTranslation([2, 0, 0]));
    const output = await readGlbOutput(await glbOf(doc), { poster: SMALL_POSTER });
    expect([output!.vertices, output!.triangles, output!.bounding_box]).toEqual([
      48,
      24,
      { min: [-0.5, -0.5, -0.5], max: [2.5, 0.5, 0.5] },
    ]);
  });

  it("paints the poster with each material's colour and base colour texture", async () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const red = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#e01010" } })
      .png()
      .toBuffer();
    const texture = doc.createTexture("red").setImage(new Uint8Array(red)).setMimeType("image/png");
    const green = doc
      .createMaterial("green")
      .setBaseColorFactor([0.05, 0.6, 0.05, 1])
      .setMetallicFactor(0)
      .setRoughnessFactor(0.7);
    const textured = doc
      .createMaterial("textured")
      .setBaseColorTexture(texture)
      .setMetallicFactor(0)
      .setRoughnessFactor(0.7);
    doc
      .createScene()
      .addChild(
        doc
          .createNode("g")
          .setMesh(cube(doc, buffer, green))
          .setTranslation([-0.8, 0, 0]),
      )
      .addChild(
        doc
          .createNode("r")
          .setMesh(cube(doc, buffer, textured))
          .setTranslation([0.8, 0, 0]),
      );
    const output = await readGlbOutput(await glbOf(doc), { poster: SMALL_POSTER });
    const { data } = await sharp(output!.poster.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let [reds, greens] = [0, 0];
    for (let i = 0; i < data.length; i += 3) {
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      if (r > g + 60 && r > b + 60) reds++;
      if (g > r + 40 && g > b + 40) greens++;
    }
    expect(reds, "pixels of the textured cube").toBeGreaterThan(2000);
    expect(greens, "pixels of the green cube").toBeGreaterThan(2000);
  });

  it("reads a glb as ComfyUI's SaveGLB writes it: no normals (flat ones computed), no material", async () => {
    const output = await readGlbOutput(comfyStyleGlb(), { poster: SMALL_POSTER });
    expect([output!.vertices, output!.triangles, output!.bounding_box]).toEqual([
      6,
      8,
      { min: [-1, -1, -1], max: [1, 1, 1] },
    ]);
    await expectPoster(output!.poster);
  });

  it("draws a scene denser than its poster budget from a clustered stand-in, and counts it exactly", async () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const [rows, cols] = [60, 120];
    const positions: number[] = [];
    const indices: number[] = [];
    for (let r = 0; r <= rows; r++) {
      for (let c = 0; c <= cols; c++) {
        const [t, p] = [(Math.PI * r) / rows, (2 * Math.PI * c) / cols];
        positions.push(Math.sin(t) * Math.cos(p), Math.cos(t), Math.sin(t) * Math.sin(p));
        const [a, b] = [r * (cols + 1) + c, (r + 1) * (cols + 1) + c];
        if (r < rows && c < cols) indices.push(a, a + 1, b, a + 1, b + 1, b);
      }
    }
    const position = doc.createAccessor().setType("VEC3").setArray(Float32Array.from(positions)).setBuffer(buffer);
    const index = doc.createAccessor().setType("SCALAR").setArray(Uint32Array.from(indices)).setBuffer(buffer);
    doc
      .createScene()
      .addChild(
        doc
          .createNode("ball")
          .setMesh(
            doc.createMesh().addPrimitive(doc.createPrimitive().setAttribute("POSITION", position).setIndices(index)),
          ),
      );
    const output = await readGlbOutput(await glbOf(doc), { posterTriangles: 2000, poster: SMALL_POSTER });
    expect([output!.vertices, output!.triangles]).toEqual([61 * 121, 60 * 120 * 2]);
    await expectPoster(output!.poster);
  });

  it("takes a scene of points only: no triangles, a poster all the same", async () => {
    const doc = new Document();
    doc
      .createScene()
      .addChild(doc.createNode().setMesh(loose(doc, doc.createBuffer(), 0, [0, 0, 0, 1, 1, 1, 2, 0, 1])));
    const output = await readGlbOutput(await glbOf(doc), { poster: SMALL_POSTER });
    expect([output!.vertices, output!.triangles]).toEqual([3, 0]);
    expect((await sharp(output!.poster.data).metadata()).format).toBe("webp");
  });

  it("reads a self-contained glb whose data is all in its JSON (a data URI buffer, no BIN chunk)", async () => {
    const glb = await sceneGlb();
    const jsonLength = glb.readUInt32LE(12);
    const bin = glb.subarray(20 + jsonLength + 8, 20 + jsonLength + 8 + glb.readUInt32LE(20 + jsonLength));
    const embedded = withGlbJson(
      glb.subarray(0, 20 + jsonLength),
      (json) => (json.buffers[0].uri = `data:application/octet-stream;base64,${bin.toString("base64")}`),
    );
    const output = await readGlbOutput(embedded, { poster: SMALL_POSTER });
    expect([output!.vertices, output!.triangles, output!.data.length]).toEqual([33, 14, embedded.length]);
  });

  it("is null for what is not a glTF binary: other files, a .gltf JSON, a glTF 1.0 or cut-off binary", async () => {
    const glb = await sceneGlb();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const gltfJson = Buffer.from(
      JSON.stringify({ asset: { version: "2.0" }, buffers: [{ uri: "scene.bin", byteLength: 12 }] }),
    );
    const version1 = Buffer.from(glb);
    version1.writeUInt32LE(1, 4);
    for (const bytes of [
      Buffer.from("<html>not a model</html>"),
      Buffer.alloc(0),
      png,
      gltfJson,
      version1,
      glb.subarray(0, glb.length / 2),
    ]) {
      expect(await readGlbOutput(bytes)).toBeNull();
    }
  });

  it("refuses a glb it cannot serve, with the reason, before decoding anything", async () => {
    const glb = await sceneGlb();
    const refused = async (edit: Parameters<typeof withGlbJson>[1], reason: RegExp) => {
      const started = Date.now();
      const error = await readGlbOutput(withGlbJson(glb, edit)).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error, String(reason)).toBeInstanceOf(GlbRefusal);
      expect((error as Error).message).toMatch(reason);
      expect(Date.now() - started).toBeLessThan(2000);
    };
    await refused(
      (json) => (json.buffers[0].uri = "scene.bin"),
      /refers to another file \("scene\.bin"\); only self-contained \.glb files are served/,
    );
    await refused(
      (json) => (json.extensionsRequired = ["KHR_draco_mesh_compression"]),
      /needs KHR_draco_mesh_compression, which Atelier does not read/,
    );
    await refused((json) => (json.accessors[0].count = 1e9), /damaged glb: accessor 0 reaches past its buffer view/);
    await refused(
      (json) => json.accessors.push({ componentType: 5126, count: 1e9, type: "VEC3" }),
      /accessors without data would take 12,000,000,000 bytes/,
    );
    await refused(
      (json) => (json.bufferViews[0].byteLength = 1e12),
      /damaged glb: buffer view 0 reaches past its buffer/,
    );
    await refused((json) => {
      json.nodes[0].children = [1];
      json.nodes[1].children = [0];
    }, /damaged glb: node \d is reached twice \(its hierarchy loops\)/);
    await refused((json) => (json.nodes[2].children = [0]), /damaged glb: node 0 has two parents/);
    await refused(
      (json) => (json.nodes[0].translation = ["far", 0, 0]),
      /damaged glb: node 0's translation is not 3 finite numbers/,
    );
    await refused((json) => (json.nodes = json.nodes.map(() => ({}))), /its scene shows no mesh/);
    await refused((json) => (json.asset.version = "1.0"), /asset\.version is "1\.0", not 2\.x/);
  });
});
