// A run as an MCP tool result: what an agent can look at (images scaled down to a size clients
// accept, a small sound as audio, a video or 3D model as its poster) plus a link to each full output, a
// sentence saying where the run stands, and the Generation itself as structured content.
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import sharp from "sharp";
import type { Ctx } from "../../lib/core/context";
import { isFinal, type Generation, type StoredOutput } from "../../lib/core/runs/generation-view";
import { readRunOutputs } from "../../lib/core/runs/generations";
import { LIMITS } from "../../lib/primitives/limits";

/** The image no larger than LIMITS.mcpInlineImageSide on its longer side, as PNG (alpha kept) or JPEG. */
async function inlineImage(data: Buffer): Promise<{ data: string; mimeType: string }> {
  const side = LIMITS.mcpInlineImageSide;
  const source = sharp(data);
  const { hasAlpha } = await source.metadata();
  const image = source.rotate().resize({ width: side, height: side, fit: "inside", withoutEnlargement: true });
  const encoded = hasAlpha ? await image.png().toBuffer() : await image.jpeg({ quality: 85 }).toBuffer();
  return { data: encoded.toString("base64"), mimeType: hasAlpha ? "image/png" : "image/jpeg" };
}

function describeOutput(output: Generation["output"][number]): string {
  const size = output.width && output.height ? ` ${output.width}×${output.height}` : "";
  const length = output.duration !== undefined ? ` ${output.duration.toFixed(1)} s` : "";
  const mesh = output.triangles !== undefined ? ` model, ${output.triangles.toLocaleString("en")} triangles` : "";
  return `${output.type}${size}${length}${mesh}`;
}

function summary(generation: Generation): string {
  const { id, status, model } = generation;
  if (status === "succeeded") {
    const outputs = generation.output.map(describeOutput).join(", ");
    return `${id} (${model}) succeeded: ${outputs || "no outputs"}; cost $${generation.usage.cost_usd ?? "0"}. Full outputs are linked below (links expire after ${LIMITS.outputLinkHours} h; keep_output keeps an image as a file).`;
  }
  if (status === "failed")
    return `${id} (${model}) failed: ${generation.error?.message ?? "no reason given"}. Nothing was charged.`;
  if (status === "canceled") return `${id} (${model}) was canceled. Nothing was charged.`;
  return `${id} (${model}) is ${status}. Call get_generation with id "${id}" and wait_seconds (up to ${LIMITS.preferWaitSeconds}) to wait for its result.`;
}

/** The tool result of a run: content for people and models, and the Generation as data. */
export async function generationResult(ctx: Ctx, generation: Generation): Promise<CallToolResult> {
  const content: ContentBlock[] = [{ type: "text", text: summary(generation) }];
  if (isFinal(generation.status) && generation.output.length > 0) {
    const stored: StoredOutput[] = await readRunOutputs(ctx, { id: generation.id });
    for (const [index, output] of generation.output.entries()) {
      const kept = stored[index];
      if (kept?.type === "image") {
        content.push({ type: "image", ...(await inlineImage(await ctx.services.blobs.readAll(kept.blob))) });
      } else if ((kept?.type === "video" || kept?.type === "3d") && kept.poster) {
        content.push({ type: "image", ...(await inlineImage(await ctx.services.blobs.readAll(kept.poster.blob))) });
      } else if (kept?.type === "audio" && kept.bytes <= LIMITS.mcpInlineAudioBytes) {
        content.push({
          type: "audio",
          data: (await ctx.services.blobs.readAll(kept.blob)).toString("base64"),
          mimeType: kept.content_type,
        });
      }
      content.push({
        type: "resource_link",
        uri: output.url,
        name: `${generation.id}-${index}.${output.content_type.split("/")[1] ?? "bin"}`,
        mimeType: output.content_type,
        description: `Output ${index}: ${describeOutput(output)}, full size (the link expires ${output.expires_at}).`,
      });
    }
  }
  if (generation.preview && !isFinal(generation.status)) {
    content.push({
      type: "resource_link",
      uri: generation.preview.url,
      name: `${generation.id}-preview`,
      mimeType: generation.preview.content_type,
      description: "A first look while the run goes on.",
    });
  }
  return { content, structuredContent: { ...generation } };
}
