// Renders a prompt's music to a 44.1 kHz stereo WAV: score, instruments into stems, stems into a
// mix with reverb and delay sends, then the master chain. Synchronous work is cut into stages
// with a check of the abort signal between them, so a canceled run stops within a stage; each
// stage boundary also reports how far the rendering is.
import { seededRandom } from "../common/random";
import type { RunTools } from "../../core/catalog/model-definition";
import { lowpass, master, mixStem, pingPongDelay, reverb, type Bus } from "./music-dsp";
import { renderDrums } from "./music-drums";
import type { MusicParams } from "./music-params";
import { composeScore } from "./music-score";
import { renderTextures } from "./music-textures";
import { emptyStem, renderBass, renderLead, renderPad, renderPluck } from "./music-voices";
import { encodeWav } from "./wav";

export const MUSIC_SAMPLE_RATE = 44100;

async function checkpoint(signal: AbortSignal): Promise<void> {
  // Let the event loop deliver a cancel before the next stretch of synthesis.
  await new Promise((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

/**
 * Share of the rendering done after each stage, from timing 30 s of three kinds of prompt: the
 * pad, plucks and reverb cost most; textures vary with how many the prompt asks for.
 */
const DONE_AFTER = {
  pad: 0.17,
  bass: 0.22,
  pluck: 0.37,
  lead: 0.42,
  drums: 0.52,
  textures: 0.65,
  delay: 0.68,
  master: 0.92,
};

/** The music as a WAV; `progress` hears how far the rendering is, 0 to 1. */
export async function renderMusic(
  params: MusicParams,
  duration: number,
  seed: number,
  signal: AbortSignal,
  progress?: Pick<RunTools, "reportProgress">,
): Promise<Buffer> {
  const stage = async (done: number) => {
    progress?.reportProgress(done);
    await checkpoint(signal);
  };
  const sr = MUSIC_SAMPLE_RATE;
  const frames = Math.round(duration * sr);
  // Each part draws from its own generator, so adding one part never reshuffles another.
  const stream = (n: number) => seededRandom((seed + n * 0x9e3779b9) >>> 0);
  const score = composeScore(params, duration, seed);
  const calm = params.energy < 0.3;
  const bus: Bus = {
    mix: emptyStem(frames, sr),
    reverbSend: new Float32Array(frames),
    delaySend: new Float32Array(frames),
  };
  // One stem is rendered into, mixed down and cleared per part: memory stays a few full-length buffers.
  const stem = emptyStem(frames, sr);

  await stage(0);
  renderPad(stem, score.pad, calm ? Math.min(1.5, (4 * score.beat) / 2) : 0.35, calm ? 1.6 : 0.8);
  const base = 450 + 2200 * params.brightness;
  lowpass(stem, (t) => base * (1 + 0.35 * Math.sin((2 * Math.PI * t) / 13)));
  mixStem(bus, stem, 0.8, 0.6, 0);

  await stage(DONE_AFTER.pad);
  renderBass(stem, score.bass, calm ? 0.2 : 0.006, calm ? 0.5 : 0.07);
  mixStem(bus, stem, calm ? 0.7 : 1, 0, 0);

  await stage(DONE_AFTER.bass);
  renderPluck(stem, score.arp, params.pluck, params.brightness, stream(1));
  mixStem(bus, stem, calm ? 0.8 : 1, 0.5, 0.45);

  await stage(DONE_AFTER.pluck);
  renderLead(stem, score.melody);
  mixStem(bus, stem, 0.95, 0.6, 0.35);

  await stage(DONE_AFTER.lead);
  renderDrums(stem, score.drums, params.energy, stream(2));
  mixStem(bus, stem, 1.3, 0.12, 0);

  await stage(DONE_AFTER.drums);
  if (params.textures.length) {
    renderTextures(stem, params.textures, stream(3), 1);
    mixStem(bus, stem, 1, 0.1, 0);
  }

  await stage(DONE_AFTER.textures);
  pingPongDelay(bus.mix, bus.delaySend, score.beat * 0.75, 0.4, 0.5);
  await stage(DONE_AFTER.delay);
  reverb(bus.mix, bus.reverbSend, params.space, 0.35 + 0.4 * params.space);
  master(bus.mix, Math.min(1.5, duration * 0.1), Math.min(3, duration * 0.2));
  await stage(DONE_AFTER.master);
  const wav = encodeWav([bus.mix.left, bus.mix.right], sr);
  progress?.reportProgress(1);
  return wav;
}
