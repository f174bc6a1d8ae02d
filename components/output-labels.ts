// Words the studio uses for outputs: modality names ("3d" → "3D") and what it says under a 3D
// output (vertices, triangles, extent). Plain functions (no "use client"): server pages use them too.

/** A 3D model's extent in metres, as lib/core/runs/generation-view.ts OutputItem carries it. */
export interface Extent {
  min: readonly [number, number, number] | readonly number[];
  max: readonly [number, number, number] | readonly number[];
}

/** The words for each modality (catalog chips, card badges, the model page), "3d" → "3D". */
export const MODALITY_LABELS: Record<string, string> = { image: "Image", video: "Video", audio: "Audio", "3d": "3D" };

export function modalityLabel(modality: string): string {
  return MODALITY_LABELS[modality] ?? modality.charAt(0).toUpperCase() + modality.slice(1);
}

/** 1234 → "1,234 vertices"; 1 → "1 vertex". */
export function countLabel(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

/** 30 → "30", 1.50 → "1.5", 0.30 → "0.3": zeros go only after a decimal point. */
function trim(value: number, digits: number): string {
  const fixed = value.toFixed(digits);
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/**
 * Width × height × depth (glTF: y is up) in centimetres when the largest side is under a metre,
 * else in metres: "24 × 18 × 24 cm", "1.5 × 0.62 × 1.5 m".
 */
export function extentLabel(box: Extent): string {
  const sides = [0, 1, 2].map((k) => Math.max(0, (box.max[k] ?? 0) - (box.min[k] ?? 0)));
  const largest = Math.max(...sides);
  if (largest < 1) {
    const cm = sides.map((s) => s * 100);
    return `${cm.map((c) => trim(c, largest * 100 < 10 ? 1 : 0)).join(" × ")} cm`;
  }
  return `${sides.map((s) => trim(s, 2)).join(" × ")} m`;
}

/** The facts line of a 3D output, each part only when the output has it. */
export function threeDFacts(output: { vertices?: number; triangles?: number; bounding_box?: Extent }): string[] {
  const facts: string[] = [];
  if (typeof output.vertices === "number") facts.push(countLabel(output.vertices, "vertex", "vertices"));
  if (typeof output.triangles === "number") facts.push(countLabel(output.triangles, "triangle", "triangles"));
  if (output.bounding_box) facts.push(extentLabel(output.bounding_box));
  return facts;
}
