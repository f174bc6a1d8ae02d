// File name extensions of media that providers produce or take, with their type and family: how
// a provider's output is told apart when it says nothing else (ComfyUI's /view, a result URL),
// and how an uploaded input is named. The one 3D format served is the glTF binary (.glb).
export const EXTENSIONS: Record<string, { type: string; family: "image" | "video" | "audio" | "3d" }> = {
  png: { type: "image/png", family: "image" },
  jpg: { type: "image/jpeg", family: "image" },
  jpeg: { type: "image/jpeg", family: "image" },
  webp: { type: "image/webp", family: "image" },
  gif: { type: "image/gif", family: "image" },
  avif: { type: "image/avif", family: "image" },
  mp4: { type: "video/mp4", family: "video" },
  m4v: { type: "video/mp4", family: "video" },
  mov: { type: "video/quicktime", family: "video" },
  webm: { type: "video/webm", family: "video" },
  mkv: { type: "video/x-matroska", family: "video" },
  flac: { type: "audio/flac", family: "audio" },
  wav: { type: "audio/wav", family: "audio" },
  mp3: { type: "audio/mpeg", family: "audio" },
  ogg: { type: "audio/ogg", family: "audio" },
  opus: { type: "audio/ogg", family: "audio" },
  m4a: { type: "audio/mp4", family: "audio" },
  aac: { type: "audio/aac", family: "audio" },
  glb: { type: "model/gltf-binary", family: "3d" },
};

/** Other names of the same types. */
const TYPE_ALIASES: Record<string, string> = {
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/mp3": "audio/mpeg",
  "audio/x-flac": "audio/flac",
};

/** The usual extension of a type; else its subtype when that is a plain word; else "bin". */
export function extensionFor(contentType: string): string {
  const given = contentType.split(";")[0]!.trim().toLowerCase();
  const base = (Object.hasOwn(TYPE_ALIASES, given) ? TYPE_ALIASES[given] : undefined) ?? given;
  const known = Object.entries(EXTENSIONS).find(([, entry]) => entry.type === base)?.[0];
  if (known) return known;
  const subtype = base.split("/")[1] ?? "";
  return /^[a-z0-9]{1,10}$/.test(subtype) ? subtype : "bin";
}
