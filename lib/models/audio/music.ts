// Procedural music and ambience from a prompt: the words pick key, mode, tempo, instruments and
// ambience (music-params.ts), a seeded score is played by small synthesizers (music-render.ts).
import { objectSchema, SEED_FIELD } from "../shared/fields";
import { seedOf } from "../shared/random";
import type { ModelDefinition } from "../types";
import { audioFormatField, audioOutput, type AudioFormat } from "./encode";
import { chooseMusicParams } from "./music-params";
import { renderMusic } from "./music-render";

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
    const params = chooseMusicParams(input.prompt as string, seed, typeof input.tempo === "number" ? input.tempo : undefined);
    const wav = await renderMusic(params, duration, seed, tools.signal);
    return [await audioOutput(wav, input.format as AudioFormat, { ffmpegPath: tools.ffmpegPath, signal: tools.signal, bitrateKbps: 192 })];
  },
};
