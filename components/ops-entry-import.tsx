"use client";
// "Add a model"'s starting point, by the provider's kind: a Replicate model or a fal endpoint
// (their own schema), a ComfyUI workflow with fields bound to its node inputs, an AI SDK or
// openai-images model id (the call's standard arguments as fields). What comes back
// is a whole document the editor below shows for editing; the id and price typed above are kept.
import { useState, useTransition } from "react";
import {
  importComfyAction,
  importEntryAction,
  startEntryAction,
  type ImportResult,
} from "@/app/_studio/actions/entries";
import { ComfyPicker, type ComfyChoice } from "./ops-entry-comfy-picker";
import { BUTTON, FieldError, INPUT, LABEL } from "./ops-entry-ui";

export interface ImportFacts {
  id: string;
  usd: string;
  unit: string;
}

/** An id for the imported entry when none is typed yet: the source's last two parts. */
function idFrom(source: string): string {
  return source.split(":")[0]!.split("/").slice(-2).join("/");
}

export function EntryImport(props: {
  provider: { id: string; kind: string };
  facts: ImportFacts;
  onImported: (document: Record<string, unknown>) => void;
}) {
  const { provider, facts } = props;
  const [source, setSource] = useState("");
  const [modality, setModality] = useState("");
  const [notes, setNotes] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function finish(result: ImportResult) {
    if (!result.ok) {
      setError(result.message);
      return;
    }
    props.onImported(result.document);
    setNotes(result.notes);
  }

  function importSchema() {
    setError(null);
    startTransition(async () =>
      finish(
        await importEntryAction({
          providerId: provider.id,
          source,
          id: facts.id || idFrom(source.trim()),
          usd: facts.usd || "0.04",
          unit: facts.unit || "image",
        }),
      ),
    );
  }

  function importWorkflow(choice: ComfyChoice) {
    setError(null);
    startTransition(async () =>
      finish(
        await importComfyAction({
          providerId: provider.id,
          workflow: choice.workflow,
          bindings: choice.bindings,
          id: facts.id || `${provider.id}/workflow`,
          usd: facts.usd || "0.01",
          unit: facts.unit || "image",
        }),
      ),
    );
  }

  function startFromModelId() {
    setError(null);
    startTransition(async () =>
      finish(
        await startEntryAction({
          providerId: provider.id,
          modelId: source,
          modality,
          id: facts.id,
          usd: facts.usd,
          unit: facts.unit,
        }),
      ),
    );
  }

  let body;
  if (provider.kind === "replicate" || provider.kind === "fal") {
    body = (
      <>
        <label className={LABEL}>
          {provider.kind === "replicate" ? "Replicate model (owner/name or owner/name:version)" : "fal endpoint id"}
          <div className="mt-1 flex flex-col gap-2 sm:flex-row">
            <input
              className={`${INPUT} mt-0`}
              value={source}
              placeholder={provider.kind === "replicate" ? "black-forest-labs/flux-schnell" : "fal-ai/flux/dev"}
              onChange={(e) => setSource(e.target.value)}
            />
            <button
              type="button"
              className={`${BUTTON} bg-white text-zinc-800 ring-1 ring-zinc-300 hover:bg-zinc-50`}
              disabled={pending || !source.trim()}
              onClick={importSchema}
            >
              Import schema
            </button>
          </div>
        </label>
        <p className="mt-1 text-xs text-zinc-500">
          Reads the provider&apos;s own schema and fills the fields below; the id and price above it are kept.
        </p>
      </>
    );
  } else if (provider.kind === "comfyui") {
    body = <ComfyPicker pending={pending} onImport={importWorkflow} />;
  } else if (provider.kind === "ai-sdk" || provider.kind === "openai-images") {
    body = (
      <>
        <div className="grid gap-2 sm:grid-cols-[1fr_10rem_auto] sm:items-end">
          <label className={LABEL}>
            Model id to start from
            <input
              className={INPUT}
              value={source}
              placeholder="gpt-image-1"
              onChange={(e) => setSource(e.target.value)}
            />
          </label>
          <label className={LABEL}>
            Makes
            <select className={INPUT} value={modality} onChange={(e) => setModality(e.target.value)}>
              <option value="">its first kind</option>
              <option value="image">image</option>
              <option value="audio">speech</option>
              <option value="video">video</option>
            </select>
          </label>
          <button
            type="button"
            className={`${BUTTON} bg-white text-zinc-800 ring-1 ring-zinc-300 hover:bg-zinc-50`}
            disabled={pending || !source.trim()}
            onClick={startFromModelId}
          >
            Start from model id
          </button>
        </div>
        <p className="mt-1 text-xs text-zinc-500">
          These providers publish no schema: the fields below start as the call&apos;s standard arguments (prompt, n,
          size…); narrow them to what the model takes.
        </p>
      </>
    );
  } else return null;

  return (
    <div className="mt-4 rounded-md bg-zinc-50 p-3" data-testid="entry-import">
      {body}
      <FieldError id="import-error" message={error ?? undefined} />
      {notes.length > 0 ? (
        <ul className="mt-2 list-disc pl-5 text-xs text-zinc-600" data-testid="import-notes">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
