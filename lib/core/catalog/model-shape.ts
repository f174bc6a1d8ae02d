// The catalog's public shapes (GET /v1/models and /v1/public/models): the one source of their
// types and of the document's components (lib/primitives/api-shape.ts).
import { z } from "zod";
import { anyObject, closed, timestamp, usd } from "../../primitives/api-shape";
import { LIMITS } from "../../primitives/limits";
import { MODALITIES } from "./model-definition";

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const PricingShape = closed({
  unit: z.string().meta({ description: 'What one `usd` buys: "image", "second", "character", "run".' }),
  /** Price per unit, a decimal string of at most 6 places. */
  usd: usd,
  drivers: z.array(z.string()).meta({
    description: "Input fields whose values multiply the price (a number as itself, a string or array as its length).",
  }),
  overrides: z
    .array(
      closed({
        /** Input values that must all match (a list means "any of these"). */
        when: z.record(z.string(), z.union([scalar, z.array(scalar)])),
        /** The price per unit that replaces `usd` when this override matches. */
        usd: usd,
      }),
    )
    .meta({ description: "The first whose every field matches the input (after defaults) replaces `usd`." }),
});

export const DeprecationShape = closed({
  deprecated_at: timestamp,
  sunset_at: timestamp.meta({ description: "After it the entry, its quotes and runs answer 410 gone." }),
  /** The catalog ID to move to, or null when there is none. */
  replaced_by: z.string().nullable(),
});

export const AvailabilityShape = closed({
  status: z.enum(["available", "out_of_service", "not_installed"]),
  message: z
    .string()
    .nullable()
    .meta({ description: "Why it is out of service or what is missing and the fix; null when available." }),
  until: timestamp
    .nullable()
    .meta({ description: "When it is expected back; null when available, not installed or not known." }),
});

export const ModelShape = closed({
  id: z
    .string()
    .max(LIMITS.modelIdLength)
    .meta({ description: "`<creator>/<name>`, a preset with `@<version>`.", examples: ["atelier/gradient"] }),
  object: z.literal("model"),
  type: z.enum(["model", "preset"]),
  name: z.string(),
  creator: z.string(),
  modality: z.enum(MODALITIES),
  tasks: z.array(z.string()),
  description: z.string(),
  revision: z.string().regex(/^\d{4}-\d{2}-\d{2}(\.\d+)?$/),
  version: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/)
    .nullable(),
  latest: z.boolean(),
  status: z.enum(["stable", "beta"]),
  deprecation: DeprecationShape.nullable(),
  pricing: PricingShape,
  /** Whether it takes runs now; when out of service, quotes and runs answer 503. */
  availability: AvailabilityShape,
});

/** A model entry with the JSON Schema of its input. */
export const ModelWithSchemaShape = ModelShape.extend({
  input_schema: anyObject().meta({
    description: "JSON Schema 2020-12 of `input`; unknown fields are refused.",
  }),
});

export const ModelListShape = closed({ object: z.literal("list"), data: z.array(ModelShape) });

export type ModelPricing = z.infer<typeof PricingShape>;
export type PriceOverride = ModelPricing["overrides"][number];
export type ModelLifecycle = z.infer<typeof DeprecationShape>;
export type Availability = z.infer<typeof AvailabilityShape>;
export type Model = z.infer<typeof ModelShape>;
export type ModelWithSchema = z.infer<typeof ModelWithSchemaShape>;
export type ModelList = z.infer<typeof ModelListShape>;
