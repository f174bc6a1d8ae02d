// A model's outputs into the blob store, as the run row keeps them (bytes stay in blobs).
import type { Services } from "../core/context";
import type { StoredOutput, StoredPreview } from "../core/runs/generation-view";
import type { ImageOutput, ModelOutput } from "../core/catalog/model-definition";

export async function storeOutput(services: Services, output: ModelOutput): Promise<StoredOutput> {
  const stored: StoredOutput = {
    type: output.type,
    blob: await services.blobs.put(output.data, output.content_type),
    content_type: output.content_type,
    bytes: output.data.byteLength,
  };
  if (output.type === "image" || output.type === "video") {
    stored.width = output.width;
    stored.height = output.height;
  }
  if (output.type === "video" || output.type === "audio") stored.duration = output.duration;
  if (output.type === "3d") {
    stored.vertices = output.vertices;
    stored.triangles = output.triangles;
    stored.bounding_box = output.bounding_box;
  }
  if (output.type === "video" || output.type === "3d") {
    const { poster } = output;
    stored.poster = {
      blob: await services.blobs.put(poster.data, poster.content_type),
      content_type: poster.content_type,
      width: poster.width,
      height: poster.height,
    };
  }
  return stored;
}

export function storeOutputs(services: Services, outputs: ModelOutput[]): Promise<StoredOutput[]> {
  return Promise.all(outputs.map((output) => storeOutput(services, output)));
}

export async function storePreview(services: Services, preview: ImageOutput): Promise<StoredPreview> {
  return {
    blob: await services.blobs.put(preview.data, preview.content_type),
    content_type: preview.content_type,
    width: preview.width,
    height: preview.height,
  };
}
