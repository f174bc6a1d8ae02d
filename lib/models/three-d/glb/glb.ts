// Writes a scene as a glTF 2.0 binary with glTF-Transform: one node per part, one mesh
// primitive per geometry, metallic-roughness materials (shared where the scene shares them),
// indices as 16-bit when they fit. glTF-Transform writes POSITION's min/max itself, and nothing
// in the file depends on the time or the machine, so the same scene gives the same bytes.
import type { Document, Buffer as GltfBuffer, Material as GltfMaterial } from "@gltf-transform/core";
import { gltfTransform } from "./gltf-package";
import type { Geometry, Material, Part } from "../scene";

function vertexAccessor(doc: Document, buffer: GltfBuffer, type: "VEC2" | "VEC3", array: Float32Array) {
  return doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
}

function indexAccessor(doc: Document, buffer: GltfBuffer, geometry: Geometry) {
  // 65535 itself is the restart value glTF forbids in 16-bit indices.
  const small = geometry.positions.length / 3 <= 65535;
  return doc
    .createAccessor()
    .setType("SCALAR")
    .setArray(small ? Uint16Array.from(geometry.indices) : geometry.indices)
    .setBuffer(buffer);
}

function gltfMaterial(doc: Document, material: Material): GltfMaterial {
  const out = doc
    .createMaterial(material.name)
    .setBaseColorFactor(material.color)
    .setMetallicFactor(material.metallic)
    .setRoughnessFactor(material.roughness)
    .setAlphaMode(material.blend ? "BLEND" : "OPAQUE");
  if (material.texture) {
    out.setBaseColorTexture(
      doc.createTexture(material.name).setImage(new Uint8Array(material.texture.png)).setMimeType("image/png"),
    );
  }
  return out;
}

export async function writeGlb(parts: readonly Part[]): Promise<Buffer> {
  const { Document, NodeIO } = gltfTransform();
  const doc = new Document();
  doc.getRoot().getAsset().generator = "Atelier";
  const buffer = doc.createBuffer();
  const scene = doc.createScene("Scene");
  doc.getRoot().setDefaultScene(scene);
  const materials = new Map<Material, GltfMaterial>();
  for (const part of parts) {
    const mesh = doc.createMesh(part.name);
    for (const { geometry, material } of part.primitives) {
      let gltf = materials.get(material);
      if (!gltf) materials.set(material, (gltf = gltfMaterial(doc, material)));
      const primitive = doc
        .createPrimitive()
        .setAttribute("POSITION", vertexAccessor(doc, buffer, "VEC3", geometry.positions))
        .setAttribute("NORMAL", vertexAccessor(doc, buffer, "VEC3", geometry.normals))
        .setIndices(indexAccessor(doc, buffer, geometry))
        .setMaterial(gltf);
      // Texture coordinates only where a texture reads them: unused ones are flagged by validators.
      if (material.texture) primitive.setAttribute("TEXCOORD_0", vertexAccessor(doc, buffer, "VEC2", geometry.uvs));
      mesh.addPrimitive(primitive);
    }
    scene.addChild(doc.createNode(part.name).setMesh(mesh).setTranslation(part.translation));
  }
  return Buffer.from(await new NodeIO().writeBinary(doc));
}
