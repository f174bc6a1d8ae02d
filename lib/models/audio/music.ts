// Procedural music and ambience from a prompt: the words pick key, mode, tempo, instruments and
// ambience (music-params.ts), a seeded score is played by small synthesizers (music-render.ts).
import { objectSchema, SEED_FIELD } from "../common/fields";
import { seedOf } from "../common/random";
import { stepProgress } from "../progress";
import type { ModelDefinition } from "../../core/catalog/model-definition";
import { audioFormatField, audioOutput, type AudioFormat } from "./encode";
import { chooseMusicParams } from "./music-params";
import { renderMusic } from "./music-render";

/** The rendering's share of a run that ends in an MP3 encode (the encode takes about half as long). */
const MP3_RENDER_SHARE = 0.6;

export const music: ModelDefinition = {
  id: "atelier/music",
  type: "model",
  name: "Music",
  creator: "Atelier",
  modality: "audio",
  tasks: ["text-to-audio", "text-to-music"],
  description:
    "Instrumental music and ambience composed on the spot: the prompt's words set the mood, key, tempo and instruments (pads, plucks, bass, soft drums) and add rain, wind, waves, birds or fire.",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "second", usd: "0.001", drivers: ["duration"], overrides: [] },
  lifecycle: null,
  examples: [
    { title: "Calm rainy night", input: { prompt: "calm rainy night piano" } },
    { title: "Energetic dance beat", input: { prompt: "energetic dance beat in A minor", duration: 20 } },
    { title: "Forest morning", input: { prompt: "dreamy forest morning with birds and bells", duration: 30 } },
    { title: "Lo-fi study loop", input: { prompt: "lofi chill study beat with soft drums", tempo: 80 } },
  ],
  enumLabels: { format: { mp3: "MP3", wav: "WAV" } },
  input_schema: objectSchema(
    {
      prompt: {
        type: "string",
        title: "Prompt",
        description:
          'The mood and setting, e.g. "calm rainy night piano" or "energetic dance beat in A minor". Words like calm, sad, dreamy, mysterious, happy, energetic, lofi, piano, bells, rain, ocean, wind, forest or fire steer it.',
        minLength: 1,
        maxLength: 1000,
      },
      duration: {
        type: "integer",
        title: "Duration",
        description: "Length in seconds; priced per second.",
        minimum: 1,
        maximum: 60,
        default: 15,
      },
      tempo: {
        type: "integer",
        title: "Tempo",
        description: "Beats per minute. Leave empty to let the prompt decide (calm is slow, energetic fast).",
        minimum: 40,
        maximum: 200,
      },
      format: audioFormatField("mp3"),
      seed: SEED_FIELD,
    },
    ["prompt"],
  ),
  async run(input, tools) {
    const seed = seedOf(input);
    const duration = input.duration as number;
    const params = chooseMusicParams(
      input.prompt as string,
      seed,
      typeof input.tempo === "number" ? input.tempo : undefined,
    );
    const format = input.format as AudioFormat;
    // A WAV is ready when rendered; an MP3 still has its encode to go.
    const rendered = format === "mp3" ? MP3_RENDER_SHARE : 1;
    const wav = await renderMusic(params, duration, seed, tools.signal, stepProgress(tools, 0, rendered));
    const output = await audioOutput(wav, format, {
      ffmpegPath: tools.ffmpegPath,
      signal: tools.signal,
      bitrateKbps: 192,
      progress: stepProgress(tools, rendered, 1),
    });
    tools.reportProgress(1);
    return [output];
  },
};
