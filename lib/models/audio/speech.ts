// Text to speech. Flite (compiled to WASI, an npm dependency: ./flite.ts) speaks English on every
// server with nothing installed but npm's packages. Where the server also has eSpeak NG (a GPL-3
// program, only ever run as a separate process: ./espeak.ts), its languages are offered too.
// The input schema's voice list is exactly what this install can speak, read from the program
// search path when the catalog is built (lib/boot/boot.ts installCatalog).
import type { JsonSchemaObject } from "../../primitives/json-schema";
import { programSearchPath } from "../../media/host";
import { objectSchema } from "../common/fields";
import { stepProgress } from "../progress";
import { ModelError, type ModelDefinition } from "../../core/catalog/model-definition";
import { audioFormatField, audioOutput, type AudioFormat } from "./encode";
import { ESPEAK_PROGRAM, findEspeak, runEspeak } from "./espeak";
import { FLITE_PACKAGE, fliteWasmPath, runFlite } from "./flite";
import { decodeWav, encodeWav, normalizeWav, parseWav } from "./wav";

interface FliteVoice {
  id: string;
  label: string;
  engine: "flite";
  /** The voice built into flite.wasm. */
  flite: string;
  /** Its median pitch in Hz at its own settings (measured): where pitch 50 puts it. */
  f0: number;
  /** Words a minute it reads at its own settings (measured): where speed 165 is slowed from. */
  wpm: number;
}

interface EspeakVoice {
  id: string;
  label: string;
  engine: "espeak";
  /** The eSpeak NG voice ("+f3" is a female variant). */
  espeak: string;
}

export type SpeechVoice = FliteVoice | EspeakVoice;

/**
 * Flite's voices, on every server. Left out: kal (the same speaker as kal16 at 8 kHz), awb_time
 * (it only tells the time), and rms, whose intonation model ignores the pitch setting (measured).
 */
export const FLITE_VOICES: readonly FliteVoice[] = [
  { id: "en-us", label: "English (US), male", engine: "flite", flite: "kal16", f0: 95, wpm: 210 },
  { id: "en-us-female", label: "English (US), female", engine: "flite", flite: "slt", f0: 170, wpm: 196 },
  { id: "en-scotland", label: "English (Scotland), male", engine: "flite", flite: "awb", f0: 130, wpm: 196 },
];

/**
 * eSpeak NG's voices, offered where `espeak-ng` is installed. Some spellings ignore a variant
 * ("en-gb+f3", "fr-fr+f3" stay male), hence "en+f3", "fr+f3".
 */
export const ESPEAK_VOICES: readonly EspeakVoice[] = [
  { id: "en-gb", label: "English (UK), male", engine: "espeak", espeak: "en-gb" },
  { id: "en-gb-female", label: "English (UK), female", engine: "espeak", espeak: "en+f3" },
  { id: "fr", label: "French, male", engine: "espeak", espeak: "fr-fr" },
  { id: "fr-female", label: "French, female", engine: "espeak", espeak: "fr+f3" },
  { id: "de", label: "German, male", engine: "espeak", espeak: "de" },
  { id: "de-female", label: "German, female", engine: "espeak", espeak: "de+f3" },
  { id: "es", label: "Spanish (Spain), male", engine: "espeak", espeak: "es" },
  { id: "es-female", label: "Spanish (Spain), female", engine: "espeak", espeak: "es+f3" },
  { id: "it", label: "Italian, male", engine: "espeak", espeak: "it" },
  { id: "it-female", label: "Italian, female", engine: "espeak", espeak: "it+f3" },
  { id: "pt-br", label: "Portuguese (Brazil), male", engine: "espeak", espeak: "pt-br" },
  { id: "pt-br-female", label: "Portuguese (Brazil), female", engine: "espeak", espeak: "pt-br+f3" },
  { id: "nl", label: "Dutch, male", engine: "espeak", espeak: "nl" },
];

const ALL_VOICES: readonly SpeechVoice[] = [...FLITE_VOICES, ...ESPEAK_VOICES];

/** The voices this install can speak: Flite's always, eSpeak NG's when `espeak-ng` is on `searchPath`. */
export function speechVoices(searchPath: string): SpeechVoice[] {
  return findEspeak(searchPath) === null ? [...FLITE_VOICES] : [...ALL_VOICES];
}

const NO_ESPEAK_NOTE =
  " More languages (British English, French, German, Spanish, Italian, Portuguese, Dutch) come with eSpeak NG:" +
  " install it on the server (apt-get install espeak-ng) and restart Atelier.";

function buildInputSchema(voices: readonly SpeechVoice[]): JsonSchemaObject {
  const espeakMissing = !voices.some((v) => v.engine === "espeak");
  return objectSchema(
    {
      text: {
        type: "string",
        title: "Text",
        description: "What to say, up to 5,000 characters. Priced per character ($0.02 per 1,000).",
        minLength: 1,
        maxLength: 5000,
      },
      voice: {
        type: "string",
        title: "Voice",
        // Each voice's name is its oneOf title (and the studio's option label), not a paragraph here.
        description: `The language and the speaker.${espeakMissing ? NO_ESPEAK_NOTE : ""}`,
        enum: voices.map((v) => v.id),
        oneOf: voices.map((v) => ({ const: v.id, title: v.label })),
        default: "en-us",
      },
      speed: {
        type: "integer",
        title: "Speed",
        description: "Words per minute: 165 is a calm reading pace.",
        minimum: 80,
        maximum: 300,
        default: 165,
      },
      pitch: {
        type: "integer",
        title: "Pitch",
        description: "How high the voice is, from 0 (lowest) to 99 (highest).",
        minimum: 0,
        maximum: 99,
        default: 50,
      },
      format: audioFormatField("mp3"),
    },
    ["text"],
  );
}

// One schema object per search path: input validation compiles each schema object once.
const schemas = new Map<string, JsonSchemaObject>();

const voiceLabels = new WeakMap<JsonSchemaObject, Record<string, string>>();

/** The names of the voices a server whose programs are on `searchPath` offers, by ID: its schema's voice titles. */
export function speechVoiceLabels(searchPath: string): Record<string, string> {
  const schema = speechInputSchema(searchPath);
  let labels = voiceLabels.get(schema);
  if (!labels) {
    const voice = (schema.properties as Record<string, { oneOf: { const: string; title: string }[] }>).voice!;
    labels = Object.fromEntries(voice.oneOf.map((choice) => [choice.const, choice.title]));
    voiceLabels.set(schema, labels);
  }
  return labels;
}

const FORMAT_LABELS = { mp3: "MP3", wav: "WAV" };

/** The input schema for a server whose programs are on `searchPath`. */
export function speechInputSchema(searchPath: string): JsonSchemaObject {
  let schema = schemas.get(searchPath);
  if (!schema) {
    schema = buildInputSchema(speechVoices(searchPath));
    schemas.set(searchPath, schema);
  }
  return schema;
}

/**
 * Flite's settings for a speed (words a minute, 165 normal) and a pitch (0–99, 50 the voice's
 * own): the duration stretches by the voice's own pace over the speed asked for, and the mean
 * pitch moves by up to half an octave either way.
 */
export function fliteFeatures(voice: FliteVoice, speed: number, pitch: number): Record<string, number> {
  return {
    duration_stretch: voice.wpm / speed,
    int_f0_target_mean: voice.f0 * 2 ** ((pitch - 50) / 100),
  };
}

/** Flite reads ASCII English: accents off (café → cafe), typographic quotes and dashes plain. */
export function textForFlite(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"')
    .replace(/[\u2010-\u2015]/g, "-");
}

/** Where Flite's output peaks: −1 dBFS. */
const FLITE_PEAK = 0.89;

/**
 * Flite's voices come at different levels (kal16 peaks near −10 dBFS, awb near −3), so each
 * WAV is raised (or lowered) to peak at the same level: every voice about as loud as the next.
 */
function evenLevel(wav: Buffer): Buffer {
  const { sampleRate, channels } = decodeWav(wav);
  let peak = 0;
  for (const channel of channels) for (const v of channel) peak = Math.max(peak, Math.abs(v));
  if (peak === 0) return wav;
  const gain = Math.min(8, FLITE_PEAK / peak);
  return encodeWav(
    channels.map((channel) => channel.map((v) => v * gain)),
    sampleRate,
  );
}

/** Synthesis's share of a run that ends in an MP3 encode, which takes the rest (short texts and long alike). */
const MP3_SYNTHESIS_SHARE = 0.4;

let fliteInstalled: boolean | null = null;

export const speech: ModelDefinition = {
  id: "atelier/speech",
  type: "model",
  name: "Speech",
  creator: "Atelier",
  modality: "audio",
  tasks: ["text-to-speech"],
  description:
    "Reads text aloud offline with Flite (US English, male and female, and Scottish English) and, where eSpeak NG is installed, in British English, French, German, Spanish, Italian, Portuguese and Dutch too.",
  revision: "2026-11-24",
  status: "stable",
  pricing: { unit: "character", usd: "0.00002", drivers: ["text"], overrides: [] },
  lifecycle: null,
  missingInstall() {
    // A dependency, so only an incomplete `npm install` lacks it; looked for once per process.
    fliteInstalled ??= fliteWasmPath() !== null;
    return fliteInstalled ? null : { what: `the npm package ${FLITE_PACKAGE}`, install: "npm install" };
  },
  examples: [
    {
      title: "Welcome message",
      input: { text: "Welcome to Atelier. Everything you hear was made on this machine, with no network and no GPU." },
    },
    {
      title: "Calm announcement",
      input: {
        text: "Good evening. The gallery closes in fifteen minutes. Thank you for visiting.",
        voice: "en-us-female",
        speed: 140,
      },
    },
    {
      title: "Scottish storyteller",
      input: {
        text: "Once upon a time, in a glen by the sea, there lived a lighthouse keeper who sang to the waves.",
        voice: "en-scotland",
        speed: 150,
        pitch: 45,
      },
    },
  ],
  // The labels of the voices the schema offers here: without eSpeak NG, Flite's alone.
  get enumLabels() {
    return { voice: speechVoiceLabels(programSearchPath()), format: FORMAT_LABELS };
  },
  get input_schema() {
    return speechInputSchema(programSearchPath());
  },
  async run(input, tools) {
    const text = input.text as string;
    if (!/\S/.test(text)) throw new ModelError("The text has nothing to say: it is only spaces.");
    const voice = ALL_VOICES.find((v) => v.id === input.voice) ?? FLITE_VOICES[0]!;
    const speed = input.speed as number;
    const pitch = input.pitch as number;
    let wav: Buffer;
    if (voice.engine === "flite") {
      const features = fliteFeatures(voice, speed, pitch);
      wav = evenLevel(
        normalizeWav(await runFlite({ voice: voice.flite, text: textForFlite(text), features }, tools.signal)),
      );
    } else {
      const program = findEspeak(programSearchPath());
      if (program === null) {
        throw new ModelError(
          `The voice ${voice.id} needs the ${ESPEAK_PROGRAM} program, which is not installed on this server. ` +
            `Install it (apt-get install ${ESPEAK_PROGRAM}) and restart Atelier, or choose one of ${FLITE_VOICES.map((v) => v.id).join(", ")}.`,
        );
      }
      // -b 1: the text is UTF-8; --stdin: read it all as one text rather than line by line.
      const args = ["-b", "1", "--stdin", "--stdout", "-v", voice.espeak, "-s", String(speed), "-p", String(pitch)];
      wav = await runEspeak(program, args, text, tools.signal);
    }
    if (parseWav(wav).dataLength === 0)
      throw new ModelError(`The text has nothing the ${voice.id} voice can pronounce.`);
    tools.signal.throwIfAborted();
    // Synthesis runs in one go (a worker thread or a program), so it tells nothing until done;
    // the MP3 encode, when asked for, is the rest.
    const format = input.format as AudioFormat;
    const synthesized = format === "mp3" ? MP3_SYNTHESIS_SHARE : 1;
    tools.reportProgress(synthesized);
    const output = await audioOutput(wav, format, {
      ffmpegPath: tools.ffmpegPath,
      signal: tools.signal,
      bitrateKbps: 64,
      progress: stepProgress(tools, synthesized, 1),
    });
    tools.reportProgress(1);
    return [output];
  },
};
