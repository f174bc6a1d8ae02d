// The building blocks of the /v1 resources' shapes. Each resource is written once, as a zod 4
// schema beside the feature that owns it (lib/core/<feature>/*-shape.ts); the core's types are
// inferred from it and the OpenAPI components are converted from it (api/openapi/schemas.ts).
// The shapes only describe: nothing parses a request or an answer with them at run time (the
// core's validators keep their own messages), and browser code imports them with `import type`.
import { z } from "zod";
import { ID_PREFIXES, type IdKind } from "./ids";
import { LIMITS } from "./limits";

/**
 * An object that names every field it may have (`additionalProperties: false`), so the API tests,
 * which check every answer against the document, catch a field the code adds and the shape lacks.
 */
export const closed = z.strictObject;

/** A decimal string of US dollars. */
export const usd = z
  .string()
  .regex(/^-?[0-9]+\.[0-9]{2,6}$/)
  .meta({ description: 'A decimal string of US dollars, e.g. "0.04".', examples: ["0.04"] });

/** An instant as the API writes it. The format is named, not checked by a pattern. */
export const timestamp = z.string().meta({ format: "date-time", description: "ISO 8601 UTC with milliseconds." });

/** An ID of one kind: its prefix (lib/primitives/ids.ts), then base62. */
export const prefixedId = (kind: IdKind) => z.string().regex(new RegExp(`^${ID_PREFIXES[kind]}[0-9A-Za-z]+$`));

/** Any JSON object: a run's input, a model's input schema. */
export const anyObject = () => z.record(z.string(), z.unknown());

/** A link to a blob that answers without an API key until it expires (lib/blobs/links.ts). */
export const signedLink = (what: string) =>
  z.string().meta({
    description: `${what}: a signed link, valid ${LIMITS.outputLinkHours} hours from the read that returned it; it needs no API key.`,
  });

/** A cursor-paged list of `item` (lib/primitives/paging.ts). */
export const pagedList = <T extends z.ZodType>(item: T) =>
  closed({
    object: z.literal("list"),
    url: z.string().meta({ description: "The path this list was read from." }),
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z
      .string()
      .min(LIMITS.cursorLength.min)
      .max(LIMITS.cursorLength.max)
      .nullable()
      .meta({ description: "Send it back as `cursor` for the next page; null on the last page." }),
  });

/** The body of a POST that takes none. */
export const EmptyBodyShape = closed({}).meta({ description: "No fields; an empty body reads as {}." });
