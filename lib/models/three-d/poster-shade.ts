// The poster's look: one warm key light with soft shadows, a sky-and-floor ambient, Blinn-Phong
// highlights sized by roughness, a studio environment that metals and glass reflect (so chrome
// is not black), a faint rim, and a filmic tone curve. All in linear light.
import type { Texture, Vec3 } from "./scene";

const KEY: Vec3 = [2.6, 2.45, 2.25];
const SKY: Vec3 = [0.62, 0.66, 0.74];
const FLOOR: Vec3 = [0.3, 0.27, 0.24];
/** What reflections see: a bright ceiling light, grey studio walls, a darker floor. */
const CEILING: Vec3 = [1.9, 1.9, 1.95];
const WALL: Vec3 = [0.42, 0.43, 0.46];
const GROUND: Vec3 = [0.16, 0.15, 0.14];

export interface Surface {
  /** Linear base colour. */
  r: number;
  g: number;
  b: number;
  metallic: number;
  roughness: number;
  /** 0–1: how much of the key light reaches the point (shadows). */
  lit: number;
  /** Below 1 for glass, whose highlights and reflections stay whole while its body is see-through. */
  diffuseWeight: number;
}

/** x^n for x in [0, 1] by Schlick's rational approximation: a highlight's shape without Math.pow's cost. */
function power(x: number, n: number): number {
  return x / (n - n * x + x);
}

const smooth = (edge0: number, edge1: number, x: number) => {
  const t = Math.min(1, Math.max(0, (x - edge0) / (edge1 - edge0)));
  return t * t * (3 - 2 * t);
};

/** The studio as a reflection sees it, blurred by roughness; a softbox sits at the key light. */
function environment(rx: number, ry: number, rz: number, roughness: number, toLight: Vec3, out: Vec3): void {
  const blur = 0.04 + roughness * 0.6;
  const above = smooth(-blur, blur, ry);
  const ceiling = smooth(0.45 - blur, 0.8 + blur, ry);
  const toBox = rx * toLight[0] + ry * toLight[1] + rz * toLight[2];
  const sharpness = 4 + 60 * (1 - roughness);
  const box = toBox > 0 ? power(toBox, sharpness) * (1.5 - roughness) : 0;
  for (let k = 0; k < 3; k++) {
    const sky = WALL[k]! + (CEILING[k]! - WALL[k]!) * ceiling;
    out[k] = GROUND[k]! + (sky - GROUND[k]!) * above + box * KEY[k]!;
  }
}

const env: Vec3 = [0, 0, 0];

/**
 * The colour leaving a surface point toward the eye, written to `out` at `o`.
 * n: unit normal; v: unit vector to the eye; toLight: unit vector to the key light.
 */
export function shade(out: Float32Array, o: number, s: Surface, n: Vec3, v: Vec3, toLight: Vec3): void {
  const lit = s.lit;
  const ndl = Math.max(0, n[0] * toLight[0] + n[1] * toLight[1] + n[2] * toLight[2]);
  const ndv = Math.max(1e-3, n[0] * v[0] + n[1] * v[1] + n[2] * v[2]);
  let hx = toLight[0] + v[0];
  let hy = toLight[1] + v[1];
  let hz = toLight[2] + v[2];
  const hl = Math.sqrt(hx * hx + hy * hy + hz * hz) || 1;
  hx /= hl;
  hy /= hl;
  hz /= hl;
  const ndh = Math.max(0, n[0] * hx + n[1] * hy + n[2] * hz);
  const alpha = Math.max(0.002, s.roughness * s.roughness);
  const exponent = Math.min(4096, 2 / (alpha * alpha) - 2);
  const highlight = ndl * lit > 0 ? ((exponent + 8) / (8 * Math.PI)) * power(ndh, exponent) * ndl * lit : 0;
  const vdh = Math.max(0, v[0] * hx + v[1] * hy + v[2] * hz);
  const edge = 1 - ndv;
  const grazing = edge * edge * edge * edge * edge;
  const hemisphere = 0.5 + 0.5 * n[1];
  // A reflection of the studio, fading with roughness for plastics, full for metals.
  const rx = 2 * ndv * n[0] - v[0];
  const ry = 2 * ndv * n[1] - v[1];
  const rz = 2 * ndv * n[2] - v[2];
  environment(rx, ry, rz, s.roughness, toLight, env);
  const turned = 1 - vdh;
  const schlick = turned * turned * turned * turned * turned;
  const m = s.metallic;
  const r = s.roughness;
  const envWeight = 1 - 0.55 * r * (1 - m);
  const rim = grazing * 0.25 * (1 - 0.5 * m);
  for (let k = 0; k < 3; k++) {
    const c = k === 0 ? s.r : k === 1 ? s.g : s.b;
    const f0 = 0.04 + (c - 0.04) * m;
    const fresnel = f0 + (1 - f0) * schlick;
    const fEnv = f0 + (Math.max(1 - r, f0) - f0) * grazing;
    const ambient = FLOOR[k]! + (SKY[k]! - FLOOR[k]!) * hemisphere;
    const diffuse = c * (1 - m) * (ambient * 0.55 + KEY[k]! * ndl * lit * 0.42) * s.diffuseWeight;
    out[o + k] = diffuse + fresnel * highlight * KEY[k]! * 0.5 + fEnv * env[k]! * envWeight + rim * SKY[k]!;
  }
}

/** Filmic tone curve (Narkowicz's ACES fit) and sRGB encoding, as a lookup over linear 0–16. */
const LUT_SIZE = 8192;
const LUT_MAX = 16;
const LUT = new Uint8Array(LUT_SIZE);
for (let i = 0; i < LUT_SIZE; i++) {
  const x = (i / (LUT_SIZE - 1)) * LUT_MAX;
  const t = Math.min(1, (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14));
  const srgb = t <= 0.0031308 ? 12.92 * t : 1.055 * t ** (1 / 2.4) - 0.055;
  LUT[i] = Math.round(Math.min(1, Math.max(0, srgb)) * 255);
}

/** Linear values as tone-mapped 8-bit sRGB ones. */
export function toBytes(linear: Float32Array, out: Uint8Array): void {
  const scale = (LUT_SIZE - 1) / LUT_MAX;
  for (let i = 0; i < linear.length; i++) {
    const index = (linear[i]! * scale + 0.5) | 0;
    out[i] = LUT[index < 0 ? 0 : index >= LUT_SIZE ? LUT_SIZE - 1 : index]!;
  }
}

/** The inverse of the tone curve, so the background's sRGB colours come out as picked. */
export function fromByte(byte: number): number {
  let lo = 0;
  let hi = LUT_SIZE - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (LUT[mid]! < byte) lo = mid + 1;
    else hi = mid;
  }
  return (lo / (LUT_SIZE - 1)) * LUT_MAX;
}

/** An sRGB 8-bit value as linear (texture pixels). */
export const SRGB_TO_LINEAR = Float32Array.from({ length: 256 }, (_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

/** Bilinear texture lookup (glTF: u right, v down), as linear RGB into `out`. */
export function sample(texture: Texture, u: number, v: number, out: Vec3): void {
  const { rgb, width, height } = texture;
  const x = Math.min(width - 1, Math.max(0, u * width - 0.5));
  const y = Math.min(height - 1, Math.max(0, v * height - 0.5));
  const x0 = x | 0;
  const y0 = y | 0;
  const x1 = Math.min(width - 1, x0 + 1);
  const y1 = Math.min(height - 1, y0 + 1);
  const fx = x - x0;
  const fy = y - y0;
  const i00 = (y0 * width + x0) * 3;
  const i10 = (y0 * width + x1) * 3;
  const i01 = (y1 * width + x0) * 3;
  const i11 = (y1 * width + x1) * 3;
  for (let k = 0; k < 3; k++) {
    const top = SRGB_TO_LINEAR[rgb[i00 + k]!]! * (1 - fx) + SRGB_TO_LINEAR[rgb[i10 + k]!]! * fx;
    const bottom = SRGB_TO_LINEAR[rgb[i01 + k]!]! * (1 - fx) + SRGB_TO_LINEAR[rgb[i11 + k]!]! * fx;
    out[k] = top * (1 - fy) + bottom * fy;
  }
}
