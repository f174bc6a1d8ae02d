import { describe, expect, it } from "vitest";
import { formatUsd } from "../../core/money";
import { priceInput } from "../../core/pricing";
import { validateModelInput } from "../../core/input-validation";
import { runModelForTest, testRunTools } from "../test-tools";
import { speech, speechUnavailableReason, SPEECH_VOICES } from "./speech";
import { asAudio, clippedShare, medianPitch, mp3Meta, rms, samplesOf } from "./test-audio";
import { parseWav } from "./wav";

// On a developer machine without espeak-ng these skip; on CI they must run.
const missing = speechUnavailableReason(process.env.PATH ?? "") !== null && !process.env.CI;

async function say(input: Record<string, unknown>) {
  const outputs = await runModelForTest(speech, input);
  expect(outputs).toHaveLength(1);
  return asAudio(outputs[0]);
}

describe("atelier/speech without the program", () => {
  it("tells why it is out of service when espeak-ng is not on the PATH", () => {
    expect(speechUnavailableReason("/nonexistent:/also-not-here")).toMatch(/espeak-ng/);
    expect(speechUnavailableReason("")).toMatch(/not installed/);
  });

  it("prices per character: $0.02 per 1,000", () => {
    const input = validateModelInput(speech.input_schema, { text: "x".repeat(1000) }, { modelId: speech.id });
    expect(formatUsd(priceInput(speech.pricing, input))).toBe("0.02");
    // Characters are code points: an emoji is one, not two UTF-16 units.
    expect(priceInput(speech.pricing, { text: "Hi 👋" })).toBe(80);
    expect(formatUsd(priceInput(speech.pricing, { text: "y".repeat(5000) }))).toBe("0.10");
  });

  it("refuses empty, too long and unknown-voice input with messages that say what is allowed", () => {
    const check = (input: Record<string, unknown>) => () => validateModelInput(speech.input_schema, input, { modelId: speech.id });
    expect(check({ text: "" })).toThrow(/input\.text must be from 1 to 5000 characters/);
    expect(check({ text: "a".repeat(5001) })).toThrow(/5000/);
    expect(check({ text: "hi", voice: "klingon" })).toThrow(/input\.voice must be one of "en-us", "en-us-female"/);
    expect(check({ text: "hi", speed: 500 })).toThrow(/from 80 to 300/);
  });
});

describe.skipIf(missing)("atelier/speech", () => {
  it("speaks as WAV: 16-bit PCM, a duration from the header, not silent, not clipped", async () => {
    const audio = await say({ text: "Hello there. This is Atelier speaking.", format: "wav" });
    expect(audio.content_type).toBe("audio/wav");
    const info = parseWav(audio.data);
    expect(info).toMatchObject({ sampleRate: 22050, channels: 1, bitsPerSample: 16 });
    // The header's sizes are true ones, not the streamed placeholder.
    expect(audio.data.readUInt32LE(4)).toBe(audio.data.length - 8);
    expect(audio.duration).toBeCloseTo(info.duration, 6);
    expect(audio.duration).toBeGreaterThan(1);
    expect(audio.duration).toBeLessThan(6);
    const { channels } = await samplesOf(audio);
    expect(rms(channels[0]!)).toBeGreaterThan(0.02);
    expect(clippedShare(channels[0]!)).toBeLessThan(0.001);
  });

  it("speaks as MP3 by default, decodable, as long as the WAV", async () => {
    const text = "The quick brown fox jumps over the lazy dog.";
    const mp3 = await say({ text });
    expect(mp3.content_type).toBe("audio/mpeg");
    const meta = await mp3Meta(mp3.data);
    expect(meta).toMatchObject({ container: "MPEG", sampleRate: 22050, channels: 1 });
    const wav = await say({ text, format: "wav" });
    expect(mp3.duration).toBeCloseTo(wav.duration, 6);
    expect(Math.abs(meta.duration! - wav.duration)).toBeLessThan(0.2);
    const { channels } = await samplesOf(mp3);
    expect(rms(channels[0]!)).toBeGreaterThan(0.02);
    // The same text always gives the same bytes.
    expect((await say({ text })).data.equals(mp3.data)).toBe(true);
  });

  it("takes longer to say more, and less time at a higher speed", async () => {
    const short = await say({ text: "One sentence.", format: "wav" });
    const long = await say({ text: "One sentence. And then another, rather longer sentence follows it.", format: "wav" });
    const fast = await say({ text: "One sentence. And then another, rather longer sentence follows it.", format: "wav", speed: 300 });
    expect(short.duration).toBeGreaterThan(0);
    expect(long.duration).toBeGreaterThan(short.duration * 2);
    expect(fast.duration).toBeLessThan(long.duration * 0.75);
  });

  it("a higher pitch setting sounds higher", async () => {
    const text = "Good morning, everyone.";
    const pitchOf = async (input: Record<string, unknown>) => {
      const { sampleRate, channels } = await samplesOf(await say({ text, format: "wav", ...input }));
      return medianPitch(channels[0]!, sampleRate);
    };
    const low = await pitchOf({ pitch: 10 });
    const high = await pitchOf({ pitch: 90 });
    expect(high).toBeGreaterThan(low * 1.3);
  });

  it("every listed voice exists and speaks, and each female voice is higher than its male one", async () => {
    const pitches = new Map<string, number>();
    for (const { id } of SPEECH_VOICES) {
      const audio = await say({ text: "Un, deux, drei, one, uno.", voice: id, format: "wav" });
      expect(audio.duration, id).toBeGreaterThan(0.5);
      const { sampleRate, channels } = await samplesOf(audio);
      pitches.set(id, medianPitch(channels[0]!, sampleRate));
    }
    for (const { id } of SPEECH_VOICES.filter((v) => v.id.endsWith("-female"))) {
      const male = id.replace(/-female$/, "");
      expect(pitches.get(id), `${id} against ${male}`).toBeGreaterThan(pitches.get(male)! * 1.3);
    }
  });

  it("reads the text as text: a leading dash or shell characters are spoken, not obeyed", async () => {
    const audio = await say({ text: "--version; echo $(whoami) && -v de", format: "wav" });
    expect(audio.duration).toBeGreaterThan(1);
  });

  it("refuses text that is only spaces", async () => {
    await expect(say({ text: "   \n " })).rejects.toThrow(/nothing to say/);
  });

  it("stops espeak-ng when the run is canceled", async () => {
    const controller = new AbortController();
    const tools = testRunTools({ signal: controller.signal });
    const run = runModelForTest(speech, { text: "A long text to read. ".repeat(200), format: "wav" }, tools);
    controller.abort(new Error("canceled"));
    await expect(run).rejects.toThrow(/canceled/);
  });
});
