"use client";
import { useEffect, useRef, useState, type ChangeEvent } from "react";
import type { BaseInputTemplateProps, WidgetProps } from "@rjsf/utils";
import { HEX_COLOR_PATTERN } from "@/lib/models/common/fields";
import { BaseInputTemplate, inputClass } from "./templates";
import type { File as StudioFile } from "@/lib/core/files/files";
import { mediaTypeMatches } from "@/lib/primitives/media-types";
import { fieldName, useSchemaFormExtras, type UploadResult } from "./context";
import { placeholderOf } from "./messages";
import { useEarlyFile, useFileDrop } from "../use-file-drop";

/** Enums of up to four options as a segmented control, longer ones as a select. */
export function SelectWidget(props: WidgetProps) {
  const { id, value, onChange, options, disabled, readonly, label } = props;
  const labels = useSchemaFormExtras().enumLabels?.[fieldName(id)];
  // The module's readable names ("Zoom in", "English (US), female"), else the value itself.
  const enumOptions = (options.enumOptions ?? []).map((o) => ({ ...o, label: labels?.[String(o.value)] ?? o.label }));
  if (enumOptions.length <= 4) {
    return (
      <div
        role="radiogroup"
        aria-labelledby={`${id}-label`}
        id={id}
        className="inline-flex w-full rounded-lg border border-zinc-300 bg-zinc-50 p-0.5"
      >
        {enumOptions.map((o) => {
          const selected = o.value === value;
          return (
            <button
              key={String(o.value)}
              type="button"
              role="radio"
              aria-checked={selected}
              disabled={disabled || readonly}
              onClick={() => onChange(o.value)}
              className={`flex-1 rounded-md px-3 py-1.5 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-indigo-500 ${
                selected ? "bg-white text-zinc-900 shadow-sm ring-1 ring-zinc-200" : "text-zinc-600 hover:text-zinc-900"
              }`}
            >
              {o.label}
            </button>
          );
        })}
      </div>
    );
  }
  const index = enumOptions.findIndex((o) => o.value === value);
  return (
    <select
      id={id}
      aria-label={label}
      className={`${inputClass} appearance-auto`}
      value={index < 0 ? "" : String(index)}
      disabled={disabled || readonly}
      onChange={(e) => onChange(e.target.value === "" ? undefined : enumOptions[Number(e.target.value)]?.value)}
    >
      {index < 0 ? <option value="">Choose…</option> : null}
      {enumOptions.map((o, i) => (
        <option key={String(o.value)} value={String(i)}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

export function CheckboxWidget(props: WidgetProps) {
  const { id, value, onChange, label, schema, disabled, readonly } = props;
  const on = value === true;
  return (
    <div className="flex items-start gap-3">
      <button
        id={id}
        type="button"
        role="switch"
        aria-checked={on}
        aria-label={label}
        disabled={disabled || readonly}
        onClick={() => onChange(!on)}
        className={`relative mt-0.5 inline-flex h-5 w-9 shrink-0 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${on ? "bg-indigo-600" : "bg-zinc-300"}`}
      >
        {/* The knob stays white in the dark theme too (where bg-white is the card surface). */}
        <span
          className={`absolute top-0.5 h-4 w-4 rounded-full bg-white shadow transition-transform [--color-white:#fff] ${on ? "translate-x-4" : "translate-x-0.5"}`}
        />
      </button>
      <div>
        <div className="text-sm font-medium text-zinc-800">{label}</div>
        {schema.description ? <p className="text-xs leading-5 text-zinc-500">{schema.description}</p> : null}
      </div>
    </div>
  );
}

/**
 * Bounded numbers with a small range get a slider and a number box; others a number box. Either
 * refuses a value out of range: past the maximum it is set to the maximum at once (more digits
 * only make it larger), under the minimum when the box is left (a number being typed may pass
 * through small values); a note says so.
 */
export function NumberWidget(props: WidgetProps) {
  const { id, value, onChange, schema, disabled, readonly, label } = props;
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  const step = schema.type === "integer" ? 1 : (max ?? 1) - (min ?? 0) <= 10 ? 0.1 : 0.5;
  const [note, setNote] = useState<string | null>(null);
  // The note goes once it has been read.
  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(null), 4000);
    return () => clearTimeout(t);
  }, [note]);
  const range =
    min !== undefined && max !== undefined
      ? `${min} to ${max}`
      : min !== undefined
        ? `at least ${min}`
        : `at most ${max}`;
  const refuse = (to: number) => {
    setNote(`${label} is ${range}, so it was set to ${to}.`);
    onChange(to);
  };
  const parse = (e: ChangeEvent<HTMLInputElement>) => (e.target.value === "" ? undefined : Number(e.target.value));
  const typed = (e: ChangeEvent<HTMLInputElement>) => {
    const v = parse(e);
    // Typing can only grow a number past the maximum when the range starts at 0 or above.
    if (v !== undefined && max !== undefined && v > max && (min === undefined || min >= 0)) return refuse(max);
    onChange(v);
  };
  const left = () => {
    if (typeof value !== "number") return;
    if (min !== undefined && value < min) refuse(min);
    else if (max !== undefined && value > max) refuse(max);
  };
  const slider = min !== undefined && max !== undefined && max - min <= 10_000;
  const box = (
    <input
      id={id}
      type="number"
      inputMode="decimal"
      min={min}
      max={max}
      step={step}
      value={value ?? ""}
      placeholder={min !== undefined && max !== undefined && !slider ? `${min}–${max}` : undefined}
      disabled={disabled || readonly}
      aria-describedby={`${id}-help ${id}-error ${id}-note`}
      onChange={typed}
      onBlur={left}
      className={slider ? `${inputClass.replace("w-full", "w-24")} shrink-0 tabular-nums` : inputClass}
    />
  );
  const noteLine = note ? (
    <p id={`${id}-note`} role="status" data-testid={`field-note-${fieldName(id)}`} className="text-xs text-amber-700">
      {note}
    </p>
  ) : null;
  if (!slider) {
    return (
      <div className="flex flex-col gap-1">
        {box}
        {noteLine}
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-1">
      <div className="flex items-center gap-3">
        <input
          type="range"
          aria-label={`${label} slider`}
          min={min}
          max={max}
          step={step}
          value={typeof value === "number" ? Math.min(Math.max(value, min), max) : min}
          disabled={disabled || readonly}
          onChange={(e) => onChange(parse(e))}
          className="h-1.5 flex-1 cursor-pointer accent-indigo-600"
        />
        {box}
      </div>
      {noteLine}
    </div>
  );
}

function AutoTextarea(props: WidgetProps) {
  const { id, value, onChange, disabled, readonly, schema } = props;
  return (
    <textarea
      id={id}
      rows={3}
      value={value ?? ""}
      maxLength={typeof schema.maxLength === "number" ? schema.maxLength : undefined}
      placeholder={placeholderOf(schema)}
      disabled={disabled || readonly}
      aria-describedby={`${id}-help ${id}-error`}
      onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
      className={`${inputClass} field-sizing-content min-h-20 resize-y`}
    />
  );
}

function mediaNoun(pattern: string): string {
  return pattern.startsWith("image/")
    ? "image"
    : pattern.startsWith("audio/")
      ? "sound"
      : pattern.startsWith("video/")
        ? "video"
        : "file";
}

/** What a chosen file looks like: a thumbnail for an image, a player for a sound or video. */
function FilePreview({ file, noun }: { file: StudioFile | undefined; noun: string }) {
  const box = "h-16 w-16 shrink-0 rounded-md border border-zinc-200";
  if (!file)
    return <div className={`${box} flex items-center justify-center bg-zinc-100 text-xs text-zinc-400`}>No {noun}</div>;
  if (file.content_type.startsWith("image/"))
    return (
      <img
        src={file.url}
        alt={file.filename ?? file.id}
        data-testid="file-thumbnail"
        className={`${box} object-cover`}
      />
    );
  if (file.content_type.startsWith("video/"))
    return <video src={file.url} muted data-testid="file-thumbnail" className={`${box} bg-black object-cover`} />;
  return (
    <div
      data-testid="file-thumbnail"
      className={`${box} flex flex-col items-center justify-center bg-indigo-50 text-indigo-600`}
    >
      <svg viewBox="0 0 24 24" className="h-6 w-6" fill="none" stroke="currentColor" strokeWidth={1.6} aria-hidden>
        <path d="M3 12h2M7 8v8M11 5v14M15 9v6M19 11v2" strokeLinecap="round" />
      </svg>
      {file.duration ? <span className="text-[10px] tabular-nums">{file.duration.toFixed(1)} s</span> : null}
    </div>
  );
}

/**
 * A file_… field: a drop zone that uploads (an image through the studio, a video or sound as a
 * direct upload to its signed URL), a preview, and a picker of the workspace's matching files.
 */
export function FileWidget(props: WidgetProps) {
  const { id, value, onChange, label, schema } = props;
  const { files: allFiles, upload, directUpload, onUploaded } = useSchemaFormExtras();
  const accept = typeof schema.contentMediaType === "string" ? schema.contentMediaType : "image/*";
  const noun = mediaNoun(accept);
  const files = allFiles.filter((f) => mediaTypeMatches(accept, f.content_type));
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { over, dropProps } = useFileDrop((file) => void send(file));
  const input = useRef<HTMLInputElement>(null);
  useEarlyFile(input, (file) => void send(file));
  const chosen = files.find((f) => f.id === value);
  const busy = progress !== null;

  async function send(file: globalThis.File | undefined) {
    if (!file) return;
    setProgress(0);
    setError(null);
    let answer: UploadResult;
    if (noun === "image") {
      const data = new FormData();
      data.set("file", file);
      answer = await upload(data);
    } else {
      answer = await directUpload(file, setProgress);
    }
    setProgress(null);
    if (answer.ok && answer.file) {
      onUploaded(answer.file);
      onChange(answer.file.id);
    } else setError(answer.error?.message ?? "The upload failed.");
  }

  return (
    <div className="flex flex-col gap-2">
      <div
        {...dropProps}
        className={`flex items-center gap-4 rounded-lg border border-dashed p-3 ${over ? "border-indigo-500 bg-indigo-50" : "border-zinc-300 bg-white"}`}
      >
        <FilePreview file={chosen} noun={noun} />
        <div className="min-w-0 flex-1 text-sm">
          <div className="truncate text-zinc-700" aria-live="polite">
            {busy
              ? `Uploading… ${noun === "image" ? "" : `${Math.round((progress ?? 0) * 100)} %`}`
              : chosen
                ? (chosen.filename ?? chosen.id)
                : `Drop ${noun === "image" ? "an image" : `a ${noun}`} here or`}
          </div>
          {busy && noun !== "image" ? (
            <div
              className="mt-1 h-1.5 w-full overflow-hidden rounded-full bg-zinc-200"
              role="progressbar"
              aria-label={`Uploading ${label}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round((progress ?? 0) * 100)}
            >
              <div
                className="h-full bg-indigo-500 transition-[width]"
                style={{ width: `${Math.round((progress ?? 0) * 100)}%` }}
              />
            </div>
          ) : null}
          <button
            type="button"
            disabled={busy}
            onClick={() => input.current?.click()}
            className="mt-1 rounded-md text-sm font-medium text-indigo-600 hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:opacity-50"
          >
            {chosen ? "Upload another" : noun === "image" ? "Upload an image" : `Upload a ${noun}`}
          </button>
          <input
            ref={input}
            type="file"
            accept={accept}
            aria-label={`Upload ${label}`}
            className="sr-only"
            tabIndex={-1}
            onChange={(e) => void send(e.target.files?.[0])}
          />
        </div>
      </div>
      {chosen && noun === "sound" ? (
        <audio
          controls
          src={chosen.url}
          className="h-9 w-full"
          aria-label={`Listen to ${chosen.filename ?? chosen.id}`}
        />
      ) : null}
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
      <select
        id={id}
        aria-label={`Choose ${label} from files`}
        value={typeof value === "string" ? value : ""}
        onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}
        className={inputClass}
      >
        <option value="">{files.length ? "Choose from files…" : "No files yet: upload one"}</option>
        {files.map((f) => (
          <option key={f.id} value={f.id}>
            {(f.filename ?? f.id) +
              (f.width ? ` · ${f.width}×${f.height}` : "") +
              (f.duration ? ` · ${f.duration.toFixed(1)} s` : "")}
          </option>
        ))}
      </select>
    </div>
  );
}

/** "#rrggbb" fields: a colour picker beside the text, both editing one value. */
function ColorWidget(props: WidgetProps) {
  const { id, value, onChange, label, disabled, readonly } = props;
  const valid = typeof value === "string" && /^#[0-9a-fA-F]{6}$/.test(value);
  return (
    <div className="flex items-center gap-2">
      <input
        type="color"
        aria-label={`Pick ${label}`}
        value={valid ? value.toLowerCase() : "#000000"}
        disabled={disabled || readonly}
        onChange={(e) => onChange(e.target.value)}
        className="h-10 w-12 shrink-0 cursor-pointer rounded-md border border-zinc-300 bg-white p-1"
      />
      <div className="flex-1">
        <BaseInputTemplate {...(props as BaseInputTemplateProps)} id={id} />
      </div>
    </div>
  );
}

/** Strings: a file picker for contentMediaType, a colour picker for #rrggbb, a textarea for long text, else one line. */
export function TextWidget(props: WidgetProps) {
  const { schema } = props;
  if (schema.type === "integer" || schema.type === "number") return <NumberWidget {...props} />;
  if (schema.pattern === HEX_COLOR_PATTERN) return <ColorWidget {...props} />;
  if (typeof schema.contentMediaType === "string") return <FileWidget {...props} />;
  if (typeof schema.maxLength === "number" && schema.maxLength > 100) return <AutoTextarea {...props} />;
  return <BaseInputTemplate {...props} />;
}
