// The poster of a 3D output: a software rendering of the scene (no GPU, no browser) from a
// three-quarter view framed on its bounding box: z-buffered triangles, a key light with soft
// shadows (also cast on an invisible floor), a soft studio backdrop and glass over what is
// behind it, drawn at 1.5× the size and scaled down for anti-aliasing (quicker than 2×, and the
// edges look as smooth), encoded as WebP. Deterministic: same scene, same bytes.
import sharp from "sharp";
import { cross, normalize, rasterTriangle, ShadowMap, type Layer } from "./poster-raster";
import { fromByte, sample, shade, toBytes, type Surface } from "./poster-shade";
import { worldTriangles, type Part, type Vec3 } from "./scene";
import type { ThreeDOutput } from "../../core/catalog/model-definition";

export interface PosterOptions {
  width?: number;
  height?: number;
  /** Degrees the camera stands round from the front (+Z) toward +X. */
  azimuth?: number;
  /** Degrees the camera looks down. */
  elevation?: number;
}

/** Renders the scene; `width`×`height` defaults to 768×576. */
export async function renderPoster(
  parts: readonly Part[],
  options: PosterOptions = {},
): Promise<ThreeDOutput["poster"]> {
  const [width, height] = [options.width ?? 768, options.height ?? 576];
  const [W, H] = [Math.round(width * 1.5), Math.round(height * 1.5)];
  const scene = worldTriangles(parts);
  const { positions: P, normals: N, uvs: UV, triangles: T, materials } = scene;
  const lo: Vec3 = [Infinity, Infinity, Infinity];
  const hi: Vec3 = [-Infinity, -Infinity, -Infinity];
  P.forEach((x, i) => ((lo[i % 3] = Math.min(lo[i % 3]!, x)), (hi[i % 3] = Math.max(hi[i % 3]!, x))));
  const centre = lo.map((l, k) => (l + hi[k]!) / 2) as Vec3;
  const radius = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2 || 1;
  const corners: Vec3[] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [
    i & 1 ? hi[0] : lo[0],
    i & 2 ? hi[1] : lo[1],
    i & 4 ? hi[2] : lo[2],
  ]);

  // Camera: three-quarter view from outside the bounding sphere, then framed on the box's corners.
  const az = ((options.azimuth ?? 35) * Math.PI) / 180;
  const el = ((options.elevation ?? 24) * Math.PI) / 180;
  const back: Vec3 = [Math.sin(az) * Math.cos(el), Math.sin(el), Math.cos(az) * Math.cos(el)];
  const eye = centre.map((c, k) => c + back[k]! * radius * 3.4) as Vec3;
  const forward: Vec3 = [-back[0], -back[1], -back[2]];
  const right = normalize(cross(forward, [0, 1, 0]));
  const up = cross(right, forward);
  const view = (x: number, y: number, z: number): Vec3 => {
    const [dx, dy, dz] = [x - eye[0], y - eye[1], z - eye[2]];
    const depth = dx * forward[0] + dy * forward[1] + dz * forward[2];
    return [
      (dx * right[0] + dy * right[1] + dz * right[2]) / depth,
      (dx * up[0] + dy * up[1] + dz * up[2]) / depth,
      1 / depth,
    ];
  };
  const seen = corners.map((c) => view(...c));
  const [sx0, sx1] = [Math.min(...seen.map((s) => s[0])), Math.max(...seen.map((s) => s[0]))];
  const [sy0, sy1] = [Math.min(...seen.map((s) => s[1])), Math.max(...seen.map((s) => s[1]))];
  const zoom = Math.min((W * 0.8) / (sx1 - sx0), (H * 0.76) / (sy1 - sy0));
  const [midX, midY] = [(sx0 + sx1) / 2, (sy0 + sy1) / 2];
  const vertexCount = P.length / 3;
  const screen = new Float32Array(vertexCount * 3);
  for (let i = 0; i < vertexCount; i++) {
    const [sx, sy, iz] = view(P[i * 3]!, P[i * 3 + 1]!, P[i * 3 + 2]!);
    screen[i * 3] = W / 2 + (sx - midX) * zoom;
    screen[i * 3 + 1] = H / 2 - (sy - midY) * zoom;
    screen[i * 3 + 2] = iz;
  }

  // Key light from the upper left of the camera; everything opaque casts shadows.
  const lightAz = az - (55 * Math.PI) / 180;
  const toLight = normalize([Math.sin(lightAz) * 0.62, 0.78, Math.cos(lightAz) * 0.62]);
  const opaque: number[] = [];
  const glass: number[] = [];
  for (let t = 0; t < scene.triangleCount; t++) (materials[scene.materialOf[t]!]!.blend ? glass : opaque).push(t);
  const shadows = new ShadowMap(toLight, corners);
  shadows.draw(P, Uint32Array.from(opaque.flatMap((t) => [T[t * 3]!, T[t * 3 + 1]!, T[t * 3 + 2]!])));

  // The nearest opaque surface of every pixel, then the nearest glass in front of it.
  const gBuffer = (): Required<Omit<Layer, "behind">> => ({
    width: W,
    height: H,
    depth: new Float32Array(W * H),
    id: new Int32Array(W * H).fill(-1),
    l1: new Float32Array(W * H),
    l2: new Float32Array(W * H),
  });
  const solid = gBuffer();
  const clear = glass.length ? { ...gBuffer(), behind: solid.depth } : null;
  const draw = (layer: Layer, t: number) => {
    const [a, b, c] = [T[t * 3]! * 3, T[t * 3 + 1]! * 3, T[t * 3 + 2]! * 3];
    rasterTriangle(
      layer,
      t,
      screen[a]!,
      screen[a + 1]!,
      screen[a + 2]!,
      screen[b]!,
      screen[b + 1]!,
      screen[b + 2]!,
      screen[c]!,
      screen[c + 1]!,
      screen[c + 2]!,
      true,
    );
  };
  for (const t of opaque) draw(solid, t);
  if (clear) for (const t of glass) draw(clear, t);
  const id = solid.id;

  // Shading at a pixel of triangle t: perspective-correct weights, then the material's look.
  const surface: Surface = { r: 0, g: 0, b: 0, metallic: 0, roughness: 0, lit: 0, diffuseWeight: 1 };
  const p: Vec3 = [0, 0, 0];
  const n: Vec3 = [0, 0, 0];
  const v: Vec3 = [0, 0, 0];
  const texel: Vec3 = [0, 0, 0];
  const shadeAt = (layer: Required<Omit<Layer, "behind">>, pixel: number, out: Float32Array, o: number): number => {
    const t = layer.id[pixel]!;
    const l1 = layer.l1[pixel]!;
    const l2 = layer.l2[pixel]!;
    const a = T[t * 3]! * 3;
    const b = T[t * 3 + 1]! * 3;
    const c = T[t * 3 + 2]! * 3;
    let w0 = (1 - l1 - l2) * screen[a + 2]!;
    let w1 = l1 * screen[b + 2]!;
    let w2 = l2 * screen[c + 2]!;
    const sum = w0 + w1 + w2;
    w0 /= sum;
    w1 /= sum;
    w2 /= sum;
    for (let k = 0; k < 3; k++) {
      p[k] = w0 * P[a + k]! + w1 * P[b + k]! + w2 * P[c + k]!;
      n[k] = w0 * N[a + k]! + w1 * N[b + k]! + w2 * N[c + k]!;
      v[k] = eye[k]! - p[k]!;
    }
    const nl = Math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) || 1;
    const vl = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) || 1;
    n[0] /= nl;
    n[1] /= nl;
    n[2] /= nl;
    v[0] /= vl;
    v[1] /= vl;
    v[2] /= vl;
    const m = materials[scene.materialOf[t]!]!;
    surface.r = m.color[0];
    surface.g = m.color[1];
    surface.b = m.color[2];
    surface.metallic = m.metallic;
    surface.roughness = m.roughness;
    if (m.texture) {
      const ua = (a / 3) * 2;
      const ub = (b / 3) * 2;
      const uc = (c / 3) * 2;
      const u = w0 * UV[ua]! + w1 * UV[ub]! + w2 * UV[uc]!;
      const vv = w0 * UV[ua + 1]! + w1 * UV[ub + 1]! + w2 * UV[uc + 1]!;
      sample(m.texture, u, vv, texel);
      surface.r *= texel[0];
      surface.g *= texel[1];
      surface.b *= texel[2];
    }
    const facing = n[0] * toLight[0] + n[1] * toLight[1] + n[2] * toLight[2];
    surface.lit = facing > 0 ? shadows.lit(p[0], p[1], p[2], n[0], n[1], n[2]) : 0;
    surface.diffuseWeight = 1;
    if (!m.blend) {
      shade(out, o, surface, n, v, toLight);
      return 1;
    }
    // Glass: more opaque toward its edges, as a real one reflects more at grazing angles.
    const edge = 1 - Math.max(0, n[0] * v[0] + n[1] * v[1] + n[2] * v[2]);
    const alpha = m.color[3] + (1 - m.color[3]) * edge * edge * edge * 0.8;
    surface.diffuseWeight = alpha;
    shade(out, o, surface, n, v, toLight);
    return alpha;
  };

  // Backdrop: a soft vertical gradient, and a floor (invisible but for its shadows) under the scene.
  const top = Float32Array.from([0xf4, 0xf1, 0xec], fromByte);
  const bottom = Float32Array.from([0xd9, 0xd3, 0xca], fromByte);
  const colour = new Float32Array(W * H * 3);
  const floorY = lo[1];
  // The floor's shadow and contact darkening are soft, so they are worked out every 4 pixels and blended.
  const step = 4;
  const [gw, gh] = [Math.ceil(W / step) + 1, Math.ceil(H / step) + 1];
  const floor = new Float32Array(gw * gh);
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) floor[gy * gw + gx] = floorShade(gx * step, gy * step);
  }
  function floorShade(x: number, y: number): number {
    const sx = midX + (x + 0.5 - W / 2) / zoom;
    const sy = midY - (y + 0.5 - H / 2) / zoom;
    const ry = forward[1] + right[1] * sx + up[1] * sy;
    const t = (floorY - eye[1]) / ry;
    if (ry >= 0 || t <= 0) return 1;
    const qx = eye[0] + (forward[0] + right[0] * sx + up[0] * sy) * t - centre[0];
    const qz = eye[2] + (forward[2] + right[2] * sx + up[2] * sy) * t - centre[2];
    const fade = Math.exp(-Math.sqrt(qx * qx + qz * qz) / (2.5 * radius));
    if (fade < 0.03) return 1;
    // Darker close to the footprint, taken as the ellipse inside the box's floor.
    const [ex, ez] = [(hi[0] - lo[0]) / 2 || 1e-6, (hi[2] - lo[2]) / 2 || 1e-6];
    const outside = Math.max(0, Math.sqrt((qx / ex) ** 2 + (qz / ez) ** 2) - 1) * Math.min(ex, ez);
    const contact = Math.exp(-outside / (0.06 * radius)) * 0.3;
    const lit = shadows.lit(qx + centre[0], floorY, qz + centre[2], 0, 1, 0);
    return 1 - fade * Math.min(0.6, 0.3 * (1 - lit) + contact);
  }
  for (let y = 0; y < H; y++) {
    const g = y / (H - 1);
    const [gy, fy] = [Math.floor(y / step), (y % step) / step];
    const [r0, g0, b0] = [0, 1, 2].map((k) => top[k]! + (bottom[k]! - top[k]!) * g) as Vec3;
    const vignetteY = (g - 0.45) ** 2;
    for (let x = 0; x < W; x++) {
      const pixel = y * W + x;
      const o = pixel * 3;
      if (id[pixel]! >= 0) {
        shadeAt(solid, pixel, colour, o);
        continue;
      }
      const gx = (x / step) | 0;
      const fx = (x % step) / step;
      const i = gy * gw + gx;
      const onFloor =
        (floor[i]! * (1 - fx) + floor[i + 1]! * fx) * (1 - fy) +
        (floor[i + gw]! * (1 - fx) + floor[i + gw + 1]! * fx) * fy;
      const across = x / W - 0.5;
      const shading = onFloor * (1 - 0.2 * (across * across + vignetteY));
      colour[o] = r0 * shading;
      colour[o + 1] = g0 * shading;
      colour[o + 2] = b0 * shading;
    }
  }

  // Glass over what is behind it (one layer, the nearest): the view through it tinted by its
  // colour, plus its own highlights and reflections.
  if (clear) {
    const layer = new Float32Array(3);
    for (let pixel = 0; pixel < W * H; pixel++) {
      const t = clear.id[pixel]!;
      if (t < 0) continue;
      const alpha = shadeAt(clear, pixel, layer, 0);
      const c = materials[scene.materialOf[t]!]!.color;
      const brightest = Math.max(c[0], c[1], c[2], 1e-3);
      for (let k = 0; k < 3; k++)
        colour[pixel * 3 + k] = colour[pixel * 3 + k]! * (1 - alpha) * (0.3 + (0.7 * c[k]!) / brightest) + layer[k]!;
    }
  }

  const bytes = Buffer.alloc(W * H * 3);
  toBytes(colour, bytes);
  const data = await sharp(bytes, { raw: { width: W, height: H, channels: 3 } })
    .resize(width, height, { kernel: "lanczos3" })
    .webp({ quality: 90, effort: 2 })
    .toBuffer();
  return { content_type: "image/webp", data, width, height };
}
