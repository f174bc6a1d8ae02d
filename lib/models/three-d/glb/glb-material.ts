// A glb's materials as the poster renderer's: the metallic-roughness factors and, where the
// primitive has the texture coordinates it reads, the base colour texture (decoded, at most
// 1024 px on a side); without them, the texture's average colour times the factor. A primitive
// with no material gets a neutral clay (glTF's own default, a rough white metal, reads as grey
// mush in a still). Each glTF material becomes one renderer material, whatever its uses.
import type { Material as GltfMaterial, Texture as GltfTexture } from "@gltf-transform/core";
import sharp from "sharp";
import { SRGB_TO_LINEAR } from "../poster-shade";
import type { Material, Rgba, Texture } from "../scene";

const CLAY: Material = { name: "clay", color: [0.3, 0.31, 0.33, 1], metallic: 0, roughness: 0.6, blend: false };
/** Textures decoded per glb: beyond these, factors alone. */
const MAX_TEXTURES = 32;
const TEXTURE_SIZE = 1024;
/** The renderer numbers materials in 16 bits: past this many, clay. */
const MAX_MATERIALS = 60_000;

interface Decoded {
  texture: Texture;
  /** The average linear colour. */
  mean: [number, number, number];
}

export class PosterMaterials {
  private readonly materials = new Map<GltfMaterial | null, Map<boolean, Material>>();
  private readonly textures = new Map<GltfTexture, Promise<Decoded | null>>();
  private made = 0;

  /** The material `textured` (the primitive has the coordinates its texture reads) or not. */
  async of(gltf: GltfMaterial | null, textured: boolean): Promise<Material> {
    if (!gltf) return CLAY;
    let byUse = this.materials.get(gltf);
    if (!byUse) this.materials.set(gltf, (byUse = new Map()));
    let material = byUse.get(textured);
    if (!material && this.made >= MAX_MATERIALS) return CLAY;
    if (!material) {
      this.made++;
      byUse.set(textured, (material = await this.make(gltf, textured)));
    }
    return material;
  }

  /** The texture coordinate set a material's base colour reads, or null without a texture. */
  static texCoordOf(gltf: GltfMaterial | null): number | null {
    return gltf?.getBaseColorTexture() ? (gltf.getBaseColorTextureInfo()?.getTexCoord() ?? 0) : null;
  }

  private async make(gltf: GltfMaterial, textured: boolean): Promise<Material> {
    const factor = gltf.getBaseColorFactor();
    const color: Rgba = [factor[0], factor[1], factor[2], factor[3]];
    const clamp = (v: number) => Math.min(1, Math.max(0, Number.isFinite(v) ? v : 1));
    const material: Material = {
      name: gltf.getName() || "material",
      color: color.map(clamp) as Rgba,
      metallic: clamp(gltf.getMetallicFactor()),
      roughness: clamp(gltf.getRoughnessFactor()),
      blend: gltf.getAlphaMode() === "BLEND",
    };
    const source = gltf.getBaseColorTexture();
    const decoded = source ? await this.decode(source) : null;
    if (decoded && textured) material.texture = decoded.texture;
    else if (decoded) for (let k = 0; k < 3; k++) material.color[k] = material.color[k]! * decoded.mean[k]!;
    return material;
  }

  private decode(source: GltfTexture): Promise<Decoded | null> {
    let decoded = this.textures.get(source);
    if (!decoded) {
      decoded = this.textures.size >= MAX_TEXTURES ? Promise.resolve(null) : decodeTexture(source.getImage());
      this.textures.set(source, decoded);
    }
    return decoded;
  }
}

async function decodeTexture(image: Uint8Array | null): Promise<Decoded | null> {
  if (!image || image.length === 0) return null;
  try {
    const bytes = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
    const { data, info } = await sharp(bytes, { limitInputPixels: 8192 * 8192 })
      .resize(TEXTURE_SIZE, TEXTURE_SIZE, { fit: "inside", withoutEnlargement: true })
      .toColourspace("srgb")
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) return null;
    let [r, g, b] = [0, 0, 0];
    for (let i = 0; i < data.length; i += 3) {
      r += SRGB_TO_LINEAR[data[i]!]!;
      g += SRGB_TO_LINEAR[data[i + 1]!]!;
      b += SRGB_TO_LINEAR[data[i + 2]!]!;
    }
    const pixels = data.length / 3 || 1;
    return {
      texture: { png: bytes, rgb: data, width: info.width, height: info.height },
      mean: [r / pixels, g / pixels, b / pixels],
    };
  } catch {
    // An image sharp cannot read (or too large): the factor alone colours it.
    return null;
  }
}
