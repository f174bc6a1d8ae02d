// The runs' public shapes (generations, batches, quotes) and the bodies that ask for them: the one
// source of their types and of the document's components (lib/primitives/api-shape.ts).
import { z } from "zod";
import { anyObject, closed, pagedList, prefixedId, signedLink, timestamp, usd } from "../../primitives/api-shape";
import { LIMITS } from "../../primitives/limits";
import { MODALITIES } from "../catalog/model-definition";
import { SOURCES } from "../context";
import { GENERATION_STATUSES } from "./run-states";

/** An x, y, z triple (the TypeScript type says number[]; the document says exactly three). */
const xyz = (description: string) => z.array(z.number()).length(3).meta({ description });

export const OutputItemShape = closed({
  type: z.enum(MODALITIES),
  url: signedLink("The output"),
  expires_at: timestamp,
  content_type: z.string().meta({
    description: "image/…, video/mp4, audio/…, or model/gltf-binary (a .glb) for 3D.",
  }),
  width: z.int().min(1).optional(),
  height: z.int().min(1).optional(),
  duration: z.number().min(0).meta({ description: "Seconds (video and audio)." }).optional(),
  vertices: z.int().min(0).meta({ description: "3D: vertices over all of the model's primitives." }).optional(),
  triangles: z.int().min(0).meta({ description: "3D: triangles over all of the model's primitives." }).optional(),
  /** A 3D model's extent: the least and greatest x, y and z over its vertices, in metres. */
  bounding_box: closed({
    min: xyz("Least x, y, z in metres (glTF: y up)."),
    max: xyz("Greatest x, y, z in metres."),
  }).optional(),
  poster: closed({
    url: signedLink("A still of the video or the 3D model"),
    expires_at: timestamp,
    width: z.int(),
    height: z.int(),
  }).optional(),
});

export const PreviewShape = closed({
  url: signedLink("The preview"),
  expires_at: timestamp,
  content_type: z.string(),
  width: z.int(),
  height: z.int(),
});

export const GenerationShape = closed({
  id: prefixedId("generation"),
  object: z.literal("generation"),
  model: z.string(),
  modality: z.enum(MODALITIES),
  status: z.enum(GENERATION_STATUSES),
  provider: z.string().nullable().meta({
    description: "`atelier` for built-in models, the provider's id for remote ones; null until it starts.",
  }),
  revision: z.string(),
  input: anyObject().meta({ description: "The input as run, defaults filled in." }),
  output: z.array(OutputItemShape).meta({ description: "Empty until succeeded." }),
  preview: PreviewShape.nullable().meta({
    description: "A preset's first image while it still runs; once shown, the run can no longer be canceled.",
  }),
  error: closed({ message: z.string() }).nullable(),
  progress: z.number().min(0).max(1).nullable().meta({
    description: "How far a running run is, when its model tells; else null.",
  }),
  queue_position: z.int().min(1).nullable().meta({
    description:
      "While queued: 1 for the next run to start. While running at a provider that queues it in turn (fal): its place in that provider's queue, 1 for next. Else null.",
  }),
  usage: closed({
    cost_usd: usd.nullable().meta({ description: "Null until charged (a failed or canceled run is not)." }),
  }),
  source: z.enum(SOURCES),
  batch_id: prefixedId("batch").nullable(),
  created_at: timestamp,
  started_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  outputs_purged_at: timestamp.nullable().meta({
    description:
      "When the outputs (and preview) were deleted under the operator's output retention (OUTPUT_RETENTION_DAYS): `output` is then empty though the run succeeded. Null while they are kept.",
  }),
});

export const GenerationListShape = pagedList(GenerationShape);

export const BatchShape = closed({
  id: prefixedId("batch"),
  object: z.literal("batch"),
  data: z.array(GenerationShape).meta({ description: "In request order." }),
  created_at: timestamp,
});

export const QuoteShape = closed({
  object: z.literal("quote"),
  model: z.string(),
  revision: z.string(),
  input: anyObject().meta({ description: "The input as it would run, defaults filled in." }),
  cost_usd: usd,
  hold_usd: usd,
});

// Request bodies: what the document shows. The core checks them itself (run-request.ts), with its
// own messages; these shapes never parse one.

export const GenerationRequestShape = closed({
  model: z
    .string()
    .min(1)
    .max(LIMITS.modelIdLength)
    .meta({ examples: ["atelier/gradient"] }),
  input: anyObject()
    .meta({
      description: "The model's input: its `input_schema` (GET /v1/models/{creator}/{name}).",
      examples: [{ prompt: "a lighthouse at dawn" }],
    })
    .optional(),
  webhook: z
    .string()
    .max(LIMITS.webhookUrlLength)
    .meta({ description: "Receives the run's ending event, signed with the workspace's default secret." })
    .optional(),
});

export const BatchRequestShape = closed({
  requests: z.array(GenerationRequestShape).min(LIMITS.batchSize.min).max(LIMITS.batchSize.max),
});

/** An output as the presenter makes it; in the studio (Services.studioLinks) it also carries a
 * same-origin `download_url`, which /v1 answers never do and the document does not name. */
export type OutputItem = z.infer<typeof OutputItemShape> & { download_url?: string };
export type PreviewItem = z.infer<typeof PreviewShape>;
export type Generation = Omit<z.infer<typeof GenerationShape>, "output"> & { output: OutputItem[] };
export type GenerationList = z.infer<typeof GenerationListShape>;
export type Batch = z.infer<typeof BatchShape>;
export type Quote = z.infer<typeof QuoteShape>;
export type GenerationRequest = z.input<typeof GenerationRequestShape>;
export type BatchRequest = z.input<typeof BatchRequestShape>;
