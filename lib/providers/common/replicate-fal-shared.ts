// What the Replicate and fal adapters share: the providers-file fields both kinds add, how a
// provider's HTTP answer becomes a refusal (fails the run) or an outage (fails it and takes the
// provider's entries out of service for a while), file inputs sent inline as data URIs (small
// ones) or through the provider's own upload (larger ones), and the output files found in a
// provider's answer fetched into memory (never handed out as the provider's URL).
// The API key goes to the provider's own API host only, never to a host its results link to.
import { EXTENSIONS, extensionFor } from "./file-extensions";
import { isFileField } from "../../core/catalog/file-inputs";
import type { JsonSchemaObject } from "../../primitives/json-schema";
import type { Modality } from "../../core/catalog/model-definition";
import { createHealth, markUp } from "./health";
import { arrayAt, describe, fail, type JsonObject } from "./json-fields";
import { causeCode, ProviderFailures } from "./provider-failures";
import { BodyTooLargeError, readCapped } from "./response-bytes";
import { guardedFetch, type FetchFunction } from "./guarded-fetch";
import {
  ProviderError,
  type FetchedOutput,
  type ProviderConfig,
  type ProviderRequest,
  type ProviderResult,
  type RemoteEntryConfig,
} from "./types";

export const MAX_ERROR_BYTES = 64 * 1024;
export const MAX_OUTPUT_BYTES = 1024 * 1024 * 1024;

/** The entry fields both kinds add (RemoteEntryConfig.options). */
interface HostedEntryOptions {
  /** Top-level fields of the model's output whose files are the run's outputs; null: every file of the entry's modality. */
  outputFields: string[] | null;
  /** File inputs the model takes as a list of URLs (fal's `image_urls`): sent as a one-item list. */
  fileListInputs: string[];
}

export const HOSTED_ENTRY_FIELDS = ["output_fields", "file_list_inputs"] as const;

export function parseHostedEntry(entry: JsonObject, path: string, schema: JsonSchemaObject): HostedEntryOptions {
  const names = (key: string, mustBeFile: boolean): string[] =>
    arrayAt(entry[key] ?? [], `${path}.${key}`).map((name, i) => {
      if (typeof name !== "string" || !/^[A-Za-z0-9_.-]{1,100}$/.test(name))
        fail(`${path}.${key}[${i}]`, `must be a field name; got ${describe(name)}.`);
      if (mustBeFile && !isFileField(schema.properties?.[name])) {
        fail(
          `${path}.${key}[${i}]`,
          `must name a file input of input_schema (a property with contentMediaType); got "${name}".`,
        );
      }
      return name;
    });
  const outputFields = entry.output_fields === undefined ? null : names("output_fields", false);
  if (outputFields?.length === 0)
    fail(`${path}.output_fields`, "must name at least one field of the model's output, or be left out.");
  return { outputFields, fileListInputs: names("file_list_inputs", true) };
}

function hostedOptions(entry: { options: Record<string, unknown> }): HostedEntryOptions {
  const options = entry.options as Partial<HostedEntryOptions>;
  return { outputFields: options.outputFields ?? null, fileListInputs: options.fileListInputs ?? [] };
}

/** Turns what went wrong at a provider into the run's error, marking the provider down when it is the provider's fault. */
export class Failures extends ProviderFailures {
  constructor(readonly config: ProviderConfig) {
    super(config.id, createHealth(), config.apiKey);
  }

  badAnswer(what: string): ProviderError {
    return this.down("an answer it should not give", `The provider ${this.config.id} answered with ${what}.`);
  }

  /**
   * What a call that threw (not canceled, not timed out: `within` sorts those) becomes: network
   * failures as outages; ProviderErrors as they are; anything else is a bad answer.
   */
  of(err: unknown): unknown {
    if (err instanceof ProviderError) return err;
    if (err instanceof BodyTooLargeError) return this.tooLarge(err);
    if (err instanceof TypeError && /fetch failed/i.test(err.message)) return this.unreachable(causeCode(err));
    return this.badAnswer(
      `something its API does not answer (${err instanceof Error ? err.message.slice(0, 200) : "unknown"})`,
    );
  }

  /**
   * One call within timeout_ms (ProviderFailures.within); the provider is marked up when it
   * answers, and what it throws becomes `errorOf`'s error.
   */
  async call<T>(
    runSignal: AbortSignal,
    what: string,
    errorOf: (err: unknown, what: string) => unknown,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const result = await this.within(runSignal, this.config.timeoutMs, fn, (err) => errorOf(err, what));
    markUp(this.health);
    return result;
  }
}

/** The provider's own words from an error body: RFC 7807 `detail`, fal's `detail` list, `{error}`, `{message}`. */
export function detailOf(body: string | unknown): string | null {
  let json: unknown = body;
  if (typeof body === "string") {
    try {
      json = JSON.parse(body);
    } catch {
      return body.trim() && !body.trim().startsWith("<") ? body.trim().slice(0, 500) : null;
    }
  }
  if (json === null || typeof json !== "object") return null;
  const obj = json as { detail?: unknown; error?: unknown; message?: unknown; title?: unknown };
  if (typeof obj.detail === "string" && obj.detail.trim()) return obj.detail.trim().slice(0, 500);
  if (Array.isArray(obj.detail)) {
    const parts = obj.detail
      .map((d: { msg?: unknown; loc?: unknown }) => {
        if (typeof d?.msg !== "string") return null;
        const loc = Array.isArray(d.loc) ? d.loc.filter((l) => l !== "body").join(".") : "";
        return loc ? `${loc}: ${d.msg}` : d.msg;
      })
      .filter((p): p is string => p !== null);
    if (parts.length > 0) return parts.join("; ").slice(0, 500);
  }
  const error = obj.error as { message?: unknown } | string | undefined;
  const message =
    typeof error === "string" ? error : typeof error?.message === "string" ? error.message : (obj.message ?? obj.title);
  return typeof message === "string" && message.trim() ? message.trim().slice(0, 500) : null;
}

/** An error answer's body as text (at most MAX_ERROR_BYTES; "" when it cannot be read). */
export async function errorText(response: Response): Promise<string> {
  return (await readCapped(response, MAX_ERROR_BYTES).catch(() => Buffer.alloc(0))).toString("utf8");
}

/**
 * The largest file input sent inline, as a data URI, in the request itself; a larger one goes
 * through the provider's own upload first (Replicate's Files API, fal storage) and is sent as the
 * URL that upload answers. Replicate's API reference (replicate.com/docs/reference/http,
 * predictions.create `input`) takes data URLs for small files, "<= 256kb", and asks for an HTTP
 * URL above that; fal's own client uploads every file. One threshold for both: a small file costs
 * no extra round trip, a large one never swells the request (base64 adds a third).
 */
export const INLINE_FILE_MAX_BYTES = 256 * 1024;

/** A file input too large to send inline, to upload to the provider. */
export interface InputFile {
  /** The input field it is for. */
  field: string;
  /** A file name for the provider's storage: the field and an extension from the type. */
  name: string;
  data: Buffer;
  contentType: string;
}

/** The file as the clients upload it (a File: its name and type go along; it holds its own copy of the bytes). */
export function blobOf(file: InputFile): File {
  // A Buffer's memory is an ArrayBuffer at run time (typed ArrayBufferLike): no extra copy here.
  return new File([file.data as Uint8Array<ArrayBuffer>], file.name, { type: file.contentType });
}

function fileNameFor(field: string, contentType: string): string {
  return `${field.replace(/[^A-Za-z0-9_.-]/g, "_")}.${extensionFor(contentType)}`;
}

/**
 * The run's input as the provider takes it: each file input's `file_…` id replaced by a data URI
 * (up to INLINE_FILE_MAX_BYTES) or by the URL `upload` answers for it (a one-item list for the
 * entry's `file_list_inputs`). `upload` is one call to the provider (its own timeout, the run's
 * signal, its failures sorted like any other call's). Both adapters do this in `prepareRequest`,
 * before the run's cancel point: an upload bills nothing, so a cancel during one cancels the run.
 */
export async function inputWithFiles(
  request: ProviderRequest,
  upload: (file: InputFile) => Promise<string>,
): Promise<Record<string, unknown>> {
  const { fileListInputs } = hostedOptions(request.entry);
  const input: Record<string, unknown> = { ...request.input };
  for (const [field, schema] of Object.entries(request.entry.inputSchema.properties ?? {})) {
    const value = input[field];
    if (!isFileField(schema) || typeof value !== "string") continue;
    const file = await request.readFile(value);
    const uri =
      file.data.length <= INLINE_FILE_MAX_BYTES
        ? `data:${file.contentType};base64,${file.data.toString("base64")}`
        : await upload({
            field,
            name: fileNameFor(field, file.contentType),
            data: file.data,
            contentType: file.contentType,
          });
    input[field] = fileListInputs.includes(field) ? [uri] : uri;
  }
  return input;
}

/** The URL a provider's upload answered with, when it is one (http or https); else a bad answer. */
export function uploadedUrl(value: unknown, failures: Failures, what: string): string {
  if (typeof value === "string" && value.length <= 4096) {
    try {
      if (["http:", "https:"].includes(new URL(value).protocol)) return value;
    } catch {
      // not a URL: below
    }
  }
  throw failures.badAnswer(`${what} that names no file URL`);
}

interface OutputFile {
  url: string;
  /** What the provider said the file is (fal's File.content_type); null when it said nothing. */
  contentType: string | null;
}

/** The modality a media type is of: image/*, video/*, audio/*, and model/gltf-binary (the one 3D format served); else null. */
function familyOfType(type: string | null | undefined): Modality | null {
  const base = type?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (base === "model/gltf-binary") return "3d";
  const top = base.split("/")[0];
  return top === "image" || top === "video" || top === "audio" ? top : null;
}

function familyOf(file: OutputFile): Modality | null {
  const declared = familyOfType(file.contentType);
  if (declared) return declared;
  const data = /^data:([^;,]*)/i.exec(file.url);
  if (data) return familyOfType(data[1]);
  const ext = /\.([a-z0-9]{2,5})(?:$|[?#])/i.exec(file.url)?.[1]?.toLowerCase();
  return ext ? (EXTENSIONS[ext]?.family ?? null) : null;
}

function collect(value: unknown, out: OutputFile[], depth = 0): void {
  if (depth > 8) return;
  if (typeof value === "string") {
    if (/^(https?:\/\/|data:)/i.test(value)) out.push({ url: value, contentType: null });
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, out, depth + 1);
  } else if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    // fal's File: {url, content_type, file_name, file_size, width?, height?}
    if (typeof obj.url === "string" && /^(https?:\/\/|data:)/i.test(obj.url)) {
      out.push({ url: obj.url, contentType: typeof obj.content_type === "string" ? obj.content_type : null });
      return;
    }
    for (const item of Object.values(obj)) collect(item, out, depth + 1);
  }
}

/**
 * The files of a model's output that are the run's outputs: under `outputFields` when the entry
 * names them, else all of them; then those of the entry's modality (by the type the provider
 * declared, a data URI's type or the URL's extension), or, when none can be told, all that remain.
 */
function outputFilesOf(output: unknown, modality: Modality, outputFields: string[] | null): OutputFile[] {
  const files: OutputFile[] = [];
  if (outputFields && output !== null && typeof output === "object" && !Array.isArray(output)) {
    for (const field of outputFields) collect((output as Record<string, unknown>)[field], files);
  } else {
    collect(output, files);
  }
  const ofModality = files.filter((f) => familyOf(f) === modality);
  if (ofModality.length > 0) return ofModality;
  return files.filter((f) => familyOf(f) === null);
}

/** How a kind fetches its result links: guardedFetch at its API base (built once per adapter), with its key header, which guardedFetch sends only to the provider's own hosts. */
export interface ResultLinks {
  fetch: FetchFunction;
  authorization: string | null;
}

/** The guarded fetch for URLs the provider at `apiBase` (its effective base URL, default included) names. */
export function providerLinkFetch(
  config: ProviderConfig,
  apiBase: string,
  refusal: (reason: string) => string,
): FetchFunction {
  return guardedFetch({
    baseUrl: apiBase,
    apiKey: config.apiKey,
    refused: (reason) => new ProviderError(refusal(reason), false),
  });
}

/** Fetches the output files into memory. */
async function fetchOutputFiles(
  files: OutputFile[],
  options: { failures: Failures; signal: AbortSignal; links: ResultLinks },
): Promise<FetchedOutput[]> {
  const outputs: FetchedOutput[] = [];
  for (const file of files) {
    const inline = /^data:([^;,]*)(;base64)?,/i.exec(file.url);
    if (inline) {
      const payload = file.url.slice(inline[0].length);
      const data = inline[2] ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "utf8");
      outputs.push({ type: "file", data, content_type: inline[1] || file.contentType });
      continue;
    }
    let url: URL;
    try {
      url = new URL(file.url);
    } catch {
      throw options.failures.badAnswer("a result link that is not a URL");
    }
    const { links } = options;
    const response = await links.fetch(url, {
      headers: links.authorization ? { authorization: links.authorization } : {},
      signal: options.signal,
    });
    if (!response.ok) {
      // A link that answers 401/403 (an expired signed URL) fails this run; it says nothing of the key.
      const detail = detailOf(await errorText(response));
      throw options.failures.http(
        response.status,
        detail,
        response.headers.get("retry-after"),
        "to hand over a result it made",
        [],
      );
    }
    const data = await readCapped(response, MAX_OUTPUT_BYTES);
    outputs.push({ type: "file", data, content_type: file.contentType ?? response.headers.get("content-type") });
  }
  return outputs;
}

/**
 * A finished job's result: the files of the model's `output` that are the run's outputs (the
 * entry's `output_fields`, its modality), fetched; none at all fails the run.
 */
export async function finishedOutputs(
  output: unknown,
  entry: RemoteEntryConfig,
  job: "request" | "prediction",
  options: { failures: Failures; signal: AbortSignal; links: ResultLinks },
): Promise<Extract<ProviderResult, { kind: "done" }>> {
  const files = outputFilesOf(output, entry.modality, hostedOptions(entry).outputFields);
  if (files.length === 0)
    throw new ProviderError(
      `The provider ${options.failures.config.id} finished the ${job} without any ${entry.modality} output.`,
      false,
    );
  return { kind: "done", outputs: await fetchOutputFiles(files, options) };
}
