// The error envelope every /v1 error answers with (lib/primitives/errors.ts makes it), as a zod
// shape: the source of its type and of the document's Error component (lib/primitives/api-shape.ts).
import { z } from "zod";
import { closed, prefixedId } from "./api-shape";
import { ERROR_CODES, type ErrorCode, type ErrorType } from "./error-codes";

const ERROR_TYPES: ErrorType[] = [...new Set(Object.values(ERROR_CODES).map((e) => e.type))];

export const ErrorShape = closed({
  error: closed({
    type: z.enum(ERROR_TYPES),
    code: z
      .enum(Object.keys(ERROR_CODES) as ErrorCode[])
      .meta({ description: "Stable: branch on `type` and `code`, never on `message`." }),
    message: z.string().meta({ description: "For a person; may change." }),
    param: z
      .string()
      .nullable()
      .meta({ description: "The field at fault, such as `input.prompt` or `requests[2].webhook`; else null." }),
    doc_url: z.string().nullable(),
    request_id: prefixedId("request"),
  }),
});

export type ErrorBody = z.infer<typeof ErrorShape>;
