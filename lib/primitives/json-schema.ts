// The subset of JSON Schema 2020-12 that model input schemas use; Ajv checks the rest.
export interface JsonSchemaObject {
  $schema?: string;
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchemaObject>;
  required?: string[];
  additionalProperties?: boolean | JsonSchemaObject;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  items?: JsonSchemaObject;
  minItems?: number;
  maxItems?: number;
  examples?: unknown[];
  [keyword: string]: unknown;
}

export const JSON_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema";
