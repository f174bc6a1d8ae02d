import { describe, expect, it } from "vitest";
import { validateModelInput } from "../../core/catalog/input-validation";
import { formatUsd } from "../../primitives/money";
import { priceInput } from "../../core/runs/pricing";
import { bundledFfmpegPath, systemFfmpegPath } from "../../media/ffmpeg";
import { expectSteadyProgress } from "../testing/test-progress";
import { runModelForTest, testRunTools } from "../testing/test-tools";
import { music } from "./music";
import { chooseMusicParams } from "./music-params";
import {
  asAudio,
  brightness,
  clippedShare,
  envelope,
  mp3Meta,
  peak,
  relativeDifference,
  rms,
  samplesOf,
  zeroCrossingRate,
} from "./testing/test-audio";
import { parseWav } from "./wav";

async function play(input: Record<string, unknown>, tools = testRunTools()) {
  const outputs = await runModelForTest(music, input, tools);
  expect(outputs).toHaveLength(1);
  return asAudio(outputs[0]);
}

/** Beat period in seconds found in the loudness contour (autocorrelation of its rises). */
function beatPeriod(samples: Float32Array, sampleRate: number): number {
  const hop = 0.01;
  const contour = envelope(samples, sampleRate, hop);
  const rises = contour.map((v, i) => Math.max(0, v - (contour[i - 1] ?? v)));
  let best = 0;
  let bestLag = 0;
  for (let lag = Math.round(0.3 / hop); lag <= Math.round(1.2 / hop); lag++) {
    let sum = 0;
    for (let i = lag; i < rises.length; i++) sum += rises[i]! * rises[i - lag]!;
    if (sum > best) [best, bestLag] = [sum, lag];
  }
  return bestLag * hop;
}

describe("atelier/music choices", () => {
  it("a calm prompt is slower than an energetic one, whatever the seed", () => {
    for (const seed of [0, 1, 2, 99, 123456]) {
      const calm = chooseMusicParams("calm ambient night", seed);
      const energetic = chooseMusicParams("energetic dance party", seed);
      expect(calm.bpm).toBeLessThanOrEqual(80);
      expect(energetic.bpm).toBeGreaterThanOrEqual(120);
      expect(calm.layers.drums).toBe(false);
      expect(energetic.layers.drums).toBe(true);
    }
  });

  it("mood words pick the mode, key names the tonic, ambience words add textures", () => {
    expect(chooseMusicParams("happy sunny morning", 1).mode).toBe("ionian");
    expect(chooseMusicParams("sad and lonely", 1).mode).toBe("aeolian");
    expect(chooseMusicParams("mysterious ancient temple", 1).mode).toBe("phrygian");
    expect(chooseMusicParams("dreamy floating", 1).mode).toBe("lydian");
    expect(chooseMusicParams("calm lofi", 1).mode).toBe("dorian");
    expect(chooseMusicParams("a tune in F# minor", 1)).toMatchObject({ tonic: 6, mode: "aeolian", key: "F# minor" });
    expect(chooseMusicParams("Eb major anthem", 1)).toMatchObject({ tonic: 3, mode: "ionian" });
    expect(chooseMusicParams("rain on the window, piano", 1)).toMatchObject({ textures: ["rain"], pluck: "keys" });
    expect(chooseMusicParams("ocean waves and wind in the forest", 1).textures).toEqual(["ocean", "wind", "forest"]);
    expect(chooseMusicParams("thunderstorm", 1).textures).toEqual(["rain", "thunder", "wind"]);
  });

  it("the prompt, not the seed, fixes key and mode; a tempo given overrides the words", () => {
    const a = chooseMusicParams("walking through a city", 1);
    const b = chooseMusicParams("walking through a city", 2);
    expect([a.tonic, a.mode]).toEqual([b.tonic, b.mode]);
    expect(chooseMusicParams("calm", 1, 180).bpm).toBe(180);
  });
});

describe("atelier/music", () => {
  it("makes 15 seconds of stereo MP3 by default", async () => {
    const tools = testRunTools();
    const audio = await play({ prompt: "happy sunny morning with birds", seed: 5 }, tools);
    // Stage by stage through the rendering, then the MP3 encode.
    expectSteadyProgress(tools.progress, 8);
    expect(audio.content_type).toBe("audio/mpeg");
    expect(audio.duration).toBe(15);
    const meta = await mp3Meta(audio.data);
    expect(meta).toMatchObject({ container: "MPEG", sampleRate: 44100, channels: 2 });
    expect(Math.abs(meta.duration! - 15)).toBeLessThan(0.2);
    const { channels } = await samplesOf(audio);
    expect(rms(channels[0]!)).toBeGreaterThan(0.05);
  });

  it("writes a WAV of exactly the duration asked: 44.1 kHz stereo, loud enough, never clipping, faded at both ends", async () => {
    const tools = testRunTools();
    const audio = await play({ prompt: "lofi hip hop beat", duration: 6, format: "wav", seed: 3 }, tools);
    expectSteadyProgress(tools.progress, 8);
    expect(audio.content_type).toBe("audio/wav");
    expect(parseWav(audio.data)).toMatchObject({ sampleRate: 44100, channels: 2, bitsPerSample: 16, duration: 6 });
    expect(audio.duration).toBe(6);
    const { sampleRate, channels } = await samplesOf(audio);
    for (const channel of channels) {
      expect(channel.length).toBe(6 * sampleRate);
      expect(rms(channel)).toBeGreaterThan(0.08);
      expect(clippedShare(channel)).toBe(0);
      expect(peak(channel)).toBeLessThan(1);
      // Faded in and out: no click at either end.
      expect(rms(channel, 0, sampleRate / 100)).toBeLessThan(0.005);
      expect(rms(channel, channel.length - sampleRate / 100)).toBeLessThan(0.005);
    }
    // Not one held tone: the loudness moves with the music.
    const contour = envelope(channels[0]!, sampleRate, 0.05).slice(20, -40);
    expect(Math.max(...contour) / Math.min(...contour)).toBeGreaterThan(1.5);
  });

  it("gives the same bytes for the same input and seed, in both formats, and others for another seed", async () => {
    const input = { prompt: "dreamy space bells", duration: 3, seed: 77 };
    const [wavA, wavB] = [await play({ ...input, format: "wav" }), await play({ ...input, format: "wav" })];
    expect(wavA.data.equals(wavB.data)).toBe(true);
    const [mp3A, mp3B] = [await play(input), await play(input)];
    expect(mp3A.data.equals(mp3B.data)).toBe(true);
    const other = await play({ ...input, format: "wav", seed: 78 });
    expect(other.data.equals(wavA.data)).toBe(false);
  });

  it.skipIf(!systemFfmpegPath(process.env.PATH ?? "") || !bundledFfmpegPath())(
    "encodes the same MP3 bytes with the system ffmpeg and the bundled one",
    async () => {
      const input = { prompt: "calm harp", duration: 2, seed: 1 };
      const system = await play(input, testRunTools({ ffmpegPath: systemFfmpegPath(process.env.PATH ?? "")! }));
      const bundled = await play(input, testRunTools({ ffmpegPath: bundledFfmpegPath()! }));
      expect((await mp3Meta(bundled.data)).duration).toBeCloseTo((await mp3Meta(system.data)).duration!, 1);
      expect(bundled.data.equals(system.data)).toBe(true);
    },
  );

  it("different prompts sound different: tempo, drums, brightness", async () => {
    const calm = chooseMusicParams("calm sad night", 11);
    const energetic = chooseMusicParams("energetic dance party", 11);
    expect(calm.bpm).toBeLessThan(energetic.bpm);
    const a = await samplesOf(await play({ prompt: "calm sad night", duration: 8, format: "wav", seed: 11 }));
    const b = await samplesOf(await play({ prompt: "energetic dance party", duration: 8, format: "wav", seed: 11 }));
    expect(relativeDifference(a.channels[0]!, b.channels[0]!)).toBeGreaterThan(0.8);
    // Drums make the dance track's loudness pulse far more than the calm one's.
    const pulse = (x: Float32Array) => {
      // Between the fades, which would swamp the measure.
      const contour = envelope(x, 44100, 0.02).slice(50, -100);
      const mean = contour.reduce((s, v) => s + v, 0) / contour.length;
      return Math.sqrt(contour.reduce((s, v) => s + (v - mean) ** 2, 0) / contour.length) / mean;
    };
    expect(pulse(b.channels[0]!)).toBeGreaterThan(pulse(a.channels[0]!) * 1.3);
    // Dark and calm against bright with hats: the dance track's content sits higher.
    expect(zeroCrossingRate(b.channels[0]!, 44100)).toBeGreaterThan(zeroCrossingRate(a.channels[0]!, 44100) * 1.2);
  });

  it("plays at the tempo chosen: the beat heard in the audio follows it", async () => {
    for (const tempo of [90, 140]) {
      const { sampleRate, channels } = await samplesOf(
        await play({ prompt: "dance beat", tempo, duration: 8, format: "wav", seed: 2 }),
      );
      const period = beatPeriod(channels[0]!, sampleRate);
      const beat = 60 / tempo;
      // The strongest repetition is the beat or the half-bar (kick and snare alternate).
      const nearest = [beat, beat * 2].reduce((a, b) => (Math.abs(b - period) < Math.abs(a - period) ? b : a));
      expect(Math.abs(period - nearest), `tempo ${tempo}: found ${period}s`).toBeLessThan(0.03);
    }
  });

  it("ambience words add their sound: rain's hiss brightens the whole", async () => {
    const dry = await samplesOf(await play({ prompt: "calm piano", duration: 4, format: "wav", seed: 4 }));
    const rainy = await samplesOf(await play({ prompt: "calm piano rain", duration: 4, format: "wav", seed: 4 }));
    expect(brightness(rainy.channels[0]!)).toBeGreaterThan(brightness(dry.channels[0]!) * 2);
  });

  it("prices per second of audio", () => {
    const price = (input: Record<string, unknown>) =>
      formatUsd(priceInput(music.pricing, validateModelInput(music.input_schema, input, { modelId: music.id })));
    expect(price({ prompt: "rain" })).toBe("0.015");
    expect(price({ prompt: "rain", duration: 60 })).toBe("0.06");
    expect(() => validateModelInput(music.input_schema, { prompt: "x", duration: 61 }, { modelId: music.id })).toThrow(
      /from 1 to 60/,
    );
    expect(() => validateModelInput(music.input_schema, { prompt: "x", tempo: 20 }, { modelId: music.id })).toThrow(
      /from 40 to 200/,
    );
  });

  it("stops when the run is canceled, before or during synthesis", async () => {
    const before = new AbortController();
    before.abort(new Error("canceled early"));
    await expect(play({ prompt: "rain", duration: 5 }, testRunTools({ signal: before.signal }))).rejects.toThrow(
      /canceled early/,
    );
    const during = new AbortController();
    const run = play(
      { prompt: "thunderstorm over the ocean", duration: 60, format: "wav" },
      testRunTools({ signal: during.signal }),
    );
    setImmediate(() => during.abort(new Error("canceled midway")));
    await expect(run).rejects.toThrow(/canceled midway/);
  });
});
