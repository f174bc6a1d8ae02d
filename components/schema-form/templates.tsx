"use client";
import type { FieldTemplateProps, ObjectFieldTemplateProps, WidgetProps, BaseInputTemplateProps } from "@rjsf/utils";
import { fieldName, useSchemaFormExtras } from "./context";
import { placeholderOf } from "./messages";

const INPUT =
  "w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-base text-zinc-900 shadow-xs placeholder:text-zinc-400 focus:border-indigo-500 focus:outline-2 focus:outline-indigo-500/30 disabled:bg-zinc-50";
export const inputClass = INPUT;

export function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, required, children, rawDescription, hidden, displayLabel, schema } = props;
  const { fieldErrors } = useSchemaFormExtras();
  if (hidden) return <div className="hidden">{children}</div>;
  if (id === "root") return children;
  const name = fieldName(id);
  const error = fieldErrors[name];
  const isBool = schema.type === "boolean";
  return (
    // scroll-mb: a field brought into view (focus, an error) stops above the sticky footer.
    <div className="flex scroll-mb-28 flex-col gap-1.5" data-field={name}>
      {displayLabel && !isBool ? (
        <div className="flex items-baseline gap-1">
          <label htmlFor={id} id={`${id}-label`} className="text-sm font-medium text-zinc-800">
            {label}
          </label>
          {required ? (
            <span className="text-xs text-zinc-400" title="Required">
              required
            </span>
          ) : null}
        </div>
      ) : null}
      {children}
      {rawDescription && !isBool ? (
        <p id={`${id}-help`} className="text-xs leading-5 text-zinc-500">
          {rawDescription}
        </p>
      ) : null}
      {error ? (
        <p role="alert" id={`${id}-error`} data-testid={`field-error-${name}`} className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  return <div className="flex flex-col gap-5">{props.properties.map((p) => p.content)}</div>;
}

export function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { id, value, onChange, onBlur, onFocus, disabled, readonly, schema, required, placeholder } = props;
  const type = schema.type === "integer" || schema.type === "number" ? "number" : "text";
  return (
    <input
      id={id}
      name={id}
      type={type}
      className={INPUT}
      value={value ?? ""}
      required={required}
      placeholder={placeholder || placeholderOf(schema)}
      disabled={disabled || readonly}
      aria-describedby={`${id}-help ${id}-error`}
      onChange={(e) => {
        const v = e.target.value;
        if (v === "") return onChange(undefined);
        onChange(type === "number" ? Number(v) : v);
      }}
      onBlur={(e) => onBlur(id, e.target.value)}
      onFocus={(e) => onFocus(id, e.target.value)}
    />
  );
}

export function SubmitButton() {
  return null;
}

export function ErrorListTemplate() {
  return null;
}

export type { WidgetProps };
