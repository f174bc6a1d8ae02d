// The container and JSON of a glTF binary someone else wrote (a provider's output), checked
// before glTF-Transform decodes it: the GLB header and chunks (glTF 2.0 §4.4), then every buffer,
// buffer view and accessor against the bytes really there, so a hostile file cannot make the
// reader allocate gigabytes for an accessor its buffer does not hold, nor point outside it.
// Only self-contained files are served: a buffer or image naming another file is refused.

/** Why a glb is not served, in words for the run's error (glTF binary all the same). */
export class GlbRefusal extends Error {
  override name = "GlbRefusal";
}

/** The most a glb may weigh: what a provider's output may (replicate-fal-shared MAX_OUTPUT_BYTES). */
export const MAX_GLB_BYTES = 1024 * 1024 * 1024;
/** The most its JSON chunk may: scene descriptions are small, their data is in the BIN chunk. */
export const MAX_GLB_JSON_BYTES = 64 * 1024 * 1024;
/** Accessors without a buffer view are zeros the reader allocates: at most this much of them. */
const MAX_ZERO_ACCESSOR_BYTES = 256 * 1024 * 1024;

const JSON_CHUNK = 0x4e4f534a;
const BIN_CHUNK = 0x004e4942;
const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };

export interface GltfJson {
  asset?: { version?: unknown };
  scene?: unknown;
  scenes?: Array<{ nodes?: unknown }>;
  nodes?: Array<{
    mesh?: unknown;
    children?: unknown;
    matrix?: unknown;
    translation?: unknown;
    rotation?: unknown;
    scale?: unknown;
  }>;
  meshes?: Array<{ primitives?: Array<{ attributes?: Record<string, unknown>; indices?: unknown; mode?: unknown }> }>;
  accessors?: Array<{
    bufferView?: unknown;
    byteOffset?: unknown;
    componentType?: unknown;
    count?: unknown;
    type?: unknown;
    sparse?: { count?: unknown };
  }>;
  bufferViews?: Array<{ buffer?: unknown; byteOffset?: unknown; byteLength?: unknown; byteStride?: unknown }>;
  buffers?: Array<{ uri?: unknown; byteLength?: unknown }>;
  images?: Array<{ uri?: unknown; bufferView?: unknown }>;
  extensionsRequired?: unknown;
}

export interface GlbContainer {
  json: GltfJson;
  /** The glb's own bytes (its header's length), 4-byte aligned as glTF-Transform reads them. */
  glb: Uint8Array;
  binLength: number;
}

const count = (n: number) => n.toLocaleString("en-US");

/** The GLB's JSON and bytes; null when the bytes are not a glTF 2.0 binary at all. */
export function readGlbContainer(bytes: Buffer): GlbContainer | null {
  if (bytes.length < 20 || bytes.toString("latin1", 0, 4) !== "glTF" || bytes.readUInt32LE(4) !== 2) return null;
  const length = bytes.readUInt32LE(8);
  if (length > MAX_GLB_BYTES)
    throw new GlbRefusal(`it weighs ${count(length)} bytes; at most ${count(MAX_GLB_BYTES)} are served`);
  const jsonLength = bytes.readUInt32LE(12);
  if (length < 20 || length > bytes.length || bytes.readUInt32LE(16) !== JSON_CHUNK || 20 + jsonLength > length)
    return null;
  if (jsonLength > MAX_GLB_JSON_BYTES)
    throw new GlbRefusal(
      `its JSON chunk holds ${count(jsonLength)} bytes; at most ${count(MAX_GLB_JSON_BYTES)} are read`,
    );
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8", 20, 20 + jsonLength));
  } catch {
    return null;
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) return null;
  const binAt = 20 + jsonLength;
  const binLength =
    binAt + 8 <= length && bytes.readUInt32LE(binAt + 4) === BIN_CHUNK
      ? Math.min(bytes.readUInt32LE(binAt), length - binAt - 8)
      : 0;
  const glb =
    bytes.byteOffset % 4 === 0
      ? new Uint8Array(bytes.buffer, bytes.byteOffset, length)
      : new Uint8Array(bytes.subarray(0, length));
  return { json: json as GltfJson, glb, binLength };
}

const isIndex = (v: unknown, length: number): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) < length;
const natural = (v: unknown, fallback = 0): number =>
  v === undefined ? fallback : Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : NaN;

/** Checks the JSON against the bytes it describes; throws a GlbRefusal naming what is wrong. */
export function checkGlbJson(json: GltfJson, binLength: number): void {
  const broken = (what: string) => new GlbRefusal(`it is a damaged glb: ${what}`);
  const version = typeof json.asset?.version === "string" ? json.asset.version : "";
  if (!/^2\.\d+$/.test(version))
    throw broken(`its asset.version is ${JSON.stringify(json.asset?.version ?? null)}, not 2.x`);
  const required = Array.isArray(json.extensionsRequired) ? json.extensionsRequired.map(String) : [];
  if (required.length > 0)
    throw new GlbRefusal(`it needs ${required.join(", ")}, which Atelier does not read (compressed or extended glTF)`);
  const arrays = ["scenes", "nodes", "meshes", "accessors", "bufferViews", "buffers", "images"] as const;
  for (const key of arrays)
    if (json[key] !== undefined && !Array.isArray(json[key])) throw broken(`its ${key} is not a list`);
  const external = [...(json.buffers ?? []), ...(json.images ?? [])].find(
    (r) => typeof r?.uri === "string" && !/^data:/i.test(r.uri),
  );
  if (external)
    throw new GlbRefusal(
      `it refers to another file (${JSON.stringify(String(external.uri).slice(0, 80))}); only self-contained .glb files are served`,
    );

  // What each buffer really holds: buffer 0 without a uri is the BIN chunk; a data URI, its decoded bytes.
  const held = (json.buffers ?? []).map((buffer, i) => {
    const declared = natural(buffer?.byteLength, -1);
    const there =
      typeof buffer?.uri === "string"
        ? Math.floor(((buffer.uri.length - buffer.uri.indexOf(",") - 1) * 3) / 4)
        : i === 0
          ? binLength
          : 0;
    if (!(declared >= 0) || declared > there)
      throw broken(`buffer ${i} claims ${String(buffer?.byteLength)} bytes and holds ${there}`);
    return declared;
  });
  const views = (json.bufferViews ?? []).map((view, i) => {
    const [offset, length] = [natural(view?.byteOffset), natural(view?.byteLength, -1)];
    if (!isIndex(view?.buffer, held.length) || !(length >= 0) || !(offset + length <= held[view.buffer as number]!))
      throw broken(`buffer view ${i} reaches past its buffer`);
    return { length, stride: natural(view?.byteStride) };
  });
  let zeros = 0;
  (json.accessors ?? []).forEach((accessor, i) => {
    const components = COMPONENTS[String(accessor?.type)];
    const size = COMPONENT_BYTES[Number(accessor?.componentType)];
    const n = natural(accessor?.count, -1);
    if (!components || !size || !(n >= 0)) throw broken(`accessor ${i} has no known type, component type or count`);
    const element = components * size;
    if (accessor.bufferView === undefined) {
      zeros += n * element;
      if (zeros > MAX_ZERO_ACCESSOR_BYTES)
        throw new GlbRefusal(
          `its accessors without data would take ${count(zeros)} bytes; at most ${count(MAX_ZERO_ACCESSOR_BYTES)} are made`,
        );
    } else {
      const view = isIndex(accessor.bufferView, views.length) ? views[accessor.bufferView] : undefined;
      const need = natural(accessor.byteOffset) + (n > 0 ? (n - 1) * (view?.stride || element) + element : 0);
      if (!view || !(need <= view.length)) throw broken(`accessor ${i} reaches past its buffer view`);
    }
    const sparse = accessor.sparse === undefined ? 0 : natural(accessor.sparse.count, -1);
    if (!(sparse >= 0 && sparse <= n)) throw broken(`accessor ${i} has a sparse count beyond its own`);
  });
}
