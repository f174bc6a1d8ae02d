// Input fields the gradient family shares, so each model's schema stays a short list.
import type { JsonSchemaObject } from "../../primitives/json-schema";

export { ASPECT_RATIO_FIELD, FORMAT_FIELD, SEED_FIELD, objectSchema } from "../common/fields";

export const PROMPT_FIELD: JsonSchemaObject = {
  type: "string",
  title: "Prompt",
  description: "Words that steer the palette: each word becomes one colour of the gradient.",
  minLength: 1,
  maxLength: 1000,
  examples: ["ocean dusk over a quiet harbour"],
};
