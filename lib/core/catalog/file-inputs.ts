// Model inputs that take workspace files: a schema property with `contentMediaType` (e.g.
// "image/*") holds a `file_…` ID. The ID must name a file of the caller's workspace whose type
// matches; URLs are never fetched.
import type { Db } from "../../store/database";
import { ApiError } from "../../primitives/errors";
import { ID_PREFIXES } from "../../primitives/ids";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { mediaTypeMatches } from "../../primitives/media-types";

export const FILE_ID_PATTERN = `^${ID_PREFIXES.file}[0-9A-Za-z]{24}$`;

/** A schema property for a file input: `mediaType` such as "image/*" or "audio/*". */
export function fileInputField(mediaType: string, title: string, description: string): JsonSchemaObject {
  return { type: "string", title, description, pattern: FILE_ID_PATTERN, contentMediaType: mediaType };
}

export function isFileField(schema: JsonSchemaObject | undefined): boolean {
  return typeof schema?.contentMediaType === "string";
}

export function fileExpectedMessage(param: string, schema: JsonSchemaObject): string {
  return `${param} expects a file ID (file_…) of type ${String(schema.contentMediaType)}: upload it with POST /v1/files (images) or POST /v1/uploads (video, sound) and pass its id. URLs are not accepted.`;
}

/** A model's file inputs, found once per schema (most models have none, and every quote asks). */
const fileFieldsBySchema = new WeakMap<JsonSchemaObject, [string, JsonSchemaObject][]>();

function fileFieldsOf(schema: JsonSchemaObject): [string, JsonSchemaObject][] {
  let fields = fileFieldsBySchema.get(schema);
  if (!fields) {
    fields = Object.entries(schema.properties ?? {}).filter(([, fieldSchema]) => isFileField(fieldSchema));
    fileFieldsBySchema.set(schema, fields);
  }
  return fields;
}

/** Whether a model takes any file input (most take none: then there is nothing to check or wait for). */
export function hasFileInputs(schema: JsonSchemaObject): boolean {
  return fileFieldsOf(schema).length > 0;
}

/** Checks every file input names a file of the workspace with a matching type. */
export async function checkFileInputs(
  db: Db,
  input: { workspaceId: string; schema: JsonSchemaObject; values: Record<string, unknown>; paramPrefix: string },
): Promise<void> {
  for (const [field, fieldSchema] of fileFieldsOf(input.schema)) {
    const value = input.values[field];
    if (typeof value !== "string") continue;
    const param = `${input.paramPrefix}.${field}`;
    const file = await db
      .selectFrom("files")
      .select(["id", "content_type"])
      .where("workspace_id", "=", input.workspaceId)
      .where("id", "=", value)
      .executeTakeFirst();
    if (!file) {
      throw new ApiError(
        "invalid_parameter",
        `${param}: no file ${value} in this workspace. ${fileExpectedMessage(param, fieldSchema)}`,
        { param },
      );
    }
    if (!mediaTypeMatches(String(fieldSchema.contentMediaType), file.content_type)) {
      throw new ApiError(
        "invalid_parameter",
        `${param}: ${value} is ${file.content_type}, but this input takes ${String(fieldSchema.contentMediaType)}.`,
        { param },
      );
    }
  }
}
