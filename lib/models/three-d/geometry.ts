// Building and placing triangle meshes. Triangles wind themselves to face their vertices'
// normals, so the shape generators never reason about winding, and degenerate (zero-area)
// triangles, such as a sphere's pole caps would make, are dropped as they are added.
import type { Geometry, Vec3 } from "./scene";

export class GeometryBuilder {
  private readonly p: number[] = [];
  private readonly n: number[] = [];
  private readonly uv: number[] = [];
  private readonly idx: number[] = [];

  /** Adds a vertex; the normal is normalised here. Returns its index. */
  vertex(position: Vec3, normal: Vec3, u = 0, v = 0): number {
    const length = Math.hypot(normal[0], normal[1], normal[2]) || 1;
    this.p.push(position[0], position[1], position[2]);
    this.n.push(normal[0] / length, normal[1] / length, normal[2] / length);
    this.uv.push(u, v);
    return this.p.length / 3 - 1;
  }

  /** A triangle, wound so its face looks the way its vertex normals do; zero-area ones are skipped. */
  triangle(a: number, b: number, c: number): void {
    const p = this.p;
    const e1 = [p[b * 3]! - p[a * 3]!, p[b * 3 + 1]! - p[a * 3 + 1]!, p[b * 3 + 2]! - p[a * 3 + 2]!];
    const e2 = [p[c * 3]! - p[a * 3]!, p[c * 3 + 1]! - p[a * 3 + 1]!, p[c * 3 + 2]! - p[a * 3 + 2]!];
    const cx = e1[1]! * e2[2]! - e1[2]! * e2[1]!;
    const cy = e1[2]! * e2[0]! - e1[0]! * e2[2]!;
    const cz = e1[0]! * e2[1]! - e1[1]! * e2[0]!;
    const area = Math.hypot(cx, cy, cz);
    if (area < 1e-12) return;
    let facing = 0;
    for (const i of [a, b, c]) facing += cx * this.n[i * 3]! + cy * this.n[i * 3 + 1]! + cz * this.n[i * 3 + 2]!;
    if (facing >= 0) this.idx.push(a, b, c);
    else this.idx.push(a, c, b);
  }

  /** Two triangles over the quad a-b-c-d (corners in order around it). */
  quad(a: number, b: number, c: number, d: number): void {
    this.triangle(a, b, c);
    this.triangle(a, c, d);
  }

  build(): Geometry {
    return {
      positions: Float32Array.from(this.p),
      normals: Float32Array.from(this.n),
      uvs: Float32Array.from(this.uv),
      indices: Uint32Array.from(this.idx),
    };
  }
}

export interface Placement {
  /** Per-axis scale, applied first. */
  scale?: Vec3;
  /** Radians about X, applied after scaling. */
  tilt?: number;
  /** Radians about Y (vertical), applied after the tilt. */
  yaw?: number;
  /** Added last. */
  offset?: Vec3;
}

/** A copy of the geometry scaled, rotated and moved; normals follow (inverse scale, same rotation). */
export function placed(g: Geometry, how: Placement): Geometry {
  const [sx, sy, sz] = how.scale ?? [1, 1, 1];
  const [ox, oy, oz] = how.offset ?? [0, 0, 0];
  const ct = Math.cos(how.tilt ?? 0);
  const st = Math.sin(how.tilt ?? 0);
  const cy = Math.cos(how.yaw ?? 0);
  const sy2 = Math.sin(how.yaw ?? 0);
  const rotate = (x: number, y: number, z: number): Vec3 => {
    const y1 = y * ct - z * st;
    const z1 = y * st + z * ct;
    return [x * cy + z1 * sy2, y1, -x * sy2 + z1 * cy];
  };
  const positions = new Float32Array(g.positions.length);
  const normals = new Float32Array(g.normals.length);
  for (let i = 0; i < g.positions.length; i += 3) {
    const [x, y, z] = rotate(g.positions[i]! * sx, g.positions[i + 1]! * sy, g.positions[i + 2]! * sz);
    positions[i] = x + ox;
    positions[i + 1] = y + oy;
    positions[i + 2] = z + oz;
    const [nx, ny, nz] = rotate(g.normals[i]! / sx, g.normals[i + 1]! / sy, g.normals[i + 2]! / sz);
    const length = Math.hypot(nx, ny, nz) || 1;
    normals[i] = nx / length;
    normals[i + 1] = ny / length;
    normals[i + 2] = nz / length;
  }
  return { positions, normals, uvs: g.uvs, indices: g.indices };
}

/** One geometry holding all of them (a shape made of pieces is one primitive in the file). */
export function merged(parts: readonly Geometry[]): Geometry {
  const total = (key: keyof Geometry) => parts.reduce((sum, g) => sum + g[key].length, 0);
  const out: Geometry = {
    positions: new Float32Array(total("positions")),
    normals: new Float32Array(total("normals")),
    uvs: new Float32Array(total("uvs")),
    indices: new Uint32Array(total("indices")),
  };
  let vertices = 0;
  let indices = 0;
  for (const g of parts) {
    out.positions.set(g.positions, vertices * 3);
    out.normals.set(g.normals, vertices * 3);
    out.uvs.set(g.uvs, vertices * 2);
    for (let i = 0; i < g.indices.length; i++) out.indices[indices + i] = g.indices[i]! + vertices;
    vertices += g.positions.length / 3;
    indices += g.indices.length;
  }
  return out;
}

/** Lowest and highest corner of the geometry. */
export function extent(g: Geometry): { min: Vec3; max: Vec3 } {
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < g.positions.length; i++) {
    const k = i % 3;
    min[k] = Math.min(min[k]!, g.positions[i]!);
    max[k] = Math.max(max[k]!, g.positions[i]!);
  }
  return { min, max };
}
