// Schema fields the 3D models share.
import type { JsonSchemaObject } from "../../primitives/json-schema";
import type { ModelPricing } from "../../core/catalog/model-definition";

export const DETAIL_FIELD: JsonSchemaObject = {
  type: "string",
  title: "Detail",
  description: "How finely surfaces are cut into triangles: more detail is smoother and a larger file.",
  enum: ["low", "medium", "high"],
  default: "medium",
};

export type DetailLevel = "low" | "medium" | "high";

export const DETAIL_LABELS = { low: "Low", medium: "Medium", high: "High" } as const;

/** Per run, dearer with detail (the triangles to build, write and draw). */
export const DETAIL_PRICING: ModelPricing = {
  unit: "run",
  usd: "0.02",
  drivers: [],
  overrides: [
    { when: { detail: "low" }, usd: "0.01" },
    { when: { detail: "high" }, usd: "0.04" },
  ],
};
