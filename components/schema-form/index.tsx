"use client";
// The studio's RJSF theme: Tailwind templates and widgets over @rjsf/core, Ajv 2020 for the schema.
import Form from "@rjsf/core";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { customizeValidator } from "@rjsf/validator-ajv8";
import Ajv2020 from "ajv/dist/2020";
import { BaseInputTemplate, ErrorListTemplate, FieldTemplate, ObjectFieldTemplate, SubmitButton } from "./templates";
import { CheckboxWidget, NumberWidget, SelectWidget, TextWidget } from "./widgets";
import { SchemaFormContext, type SchemaFormExtras } from "./context";

const validator = customizeValidator({ AjvClass: Ajv2020 });
const uiSchema: UiSchema = { "ui:submitButtonOptions": { norender: true } };

export function SchemaForm({
  schema,
  formData,
  onChange,
  extras,
}: {
  schema: RJSFSchema;
  formData: Record<string, unknown>;
  onChange: (data: Record<string, unknown>) => void;
  extras: SchemaFormExtras;
}) {
  return (
    <SchemaFormContext.Provider value={extras}>
      <Form
        schema={schema}
        uiSchema={uiSchema}
        formData={formData}
        validator={validator}
        noHtml5Validate
        showErrorList={false}
        onChange={(e) => onChange((e.formData ?? {}) as Record<string, unknown>)}
        onSubmit={() => {}}
        templates={{
          FieldTemplate,
          ObjectFieldTemplate,
          BaseInputTemplate,
          ErrorListTemplate,
          ButtonTemplates: { SubmitButton },
        }}
        widgets={{ SelectWidget, CheckboxWidget, TextWidget, UpDownWidget: NumberWidget, TextareaWidget: TextWidget }}
      />
    </SchemaFormContext.Provider>
  );
}

export type { SchemaFormExtras };
