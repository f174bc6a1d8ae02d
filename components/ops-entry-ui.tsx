"use client";
// The ops entry pages' shared pieces: field styles, a field's error, a labelled text field.

export const INPUT =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm focus:border-indigo-500 focus:ring-1 focus:ring-indigo-500 focus:outline-none";
export const MONO = `${INPUT} font-mono text-xs leading-5`;
export const LABEL = "block text-sm font-medium text-zinc-700";
export const BUTTON =
  "rounded-md px-3 py-2 text-sm font-medium shadow-sm disabled:cursor-not-allowed disabled:opacity-50";

export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm break-words text-red-700" data-testid={`${id}`}>
      {message}
    </p>
  );
}

export function TextField(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  disabled?: boolean;
  /** A line under the field: what it does or why it cannot be changed. */
  hint?: string;
}) {
  return (
    <div>
      <label className={LABEL}>
        {props.label}
        <input
          className={`${INPUT} disabled:bg-zinc-50 disabled:text-zinc-500`}
          value={props.value}
          disabled={props.disabled}
          aria-invalid={!!props.error}
          onChange={(e) => props.onChange(e.target.value)}
        />
      </label>
      {props.hint ? <p className="mt-1 text-xs text-zinc-500">{props.hint}</p> : null}
      <FieldError id={`${props.name}-error`} message={props.error} />
    </div>
  );
}
