// npm run model-timings: how long each built-in model takes on this machine with typical input
// (median of 3 runs, in-process, no server), for the table in docs/models-and-presets.md. Reads no store.
import sharp from "sharp";
import { BUILT_IN_MODELS } from "../lib/models";
import { encodeWav } from "../lib/models/audio/wav";
import { runModelForTest, testRunTools } from "../lib/models/testing/test-tools";

const PHOTO = "file_TimingsInputPhoto0000000";
const SOUND = "file_TimingsInputSound0000000";

const TYPICAL: Record<string, Record<string, unknown>> = {
  "atelier/artwork": { prompt: "pastel mountains at sunrise" },
  "atelier/type-card": { text: "Make something wonderful today", subtitle: "Atelier" },
  "atelier/qr-code": { content: "https://atelier.example/launch" },
  "atelier/gradient": { prompt: "ocean dusk" },
  "atelier/gradient-classic": { prompt: "ocean dusk" },
  "atelier/upscale": { image: PHOTO },
  "atelier/image-edit": { image: PHOTO, aspect_ratio: "1:1", filter: "sepia" },
  "atelier/pan-zoom": { image: PHOTO },
  "atelier/title-motion": { prompt: "Spring launch 2027" },
  "atelier/speech": {
    text: "Welcome to Atelier. Everything you hear was made on this machine, with no network and no GPU.",
  },
  "atelier/music": { prompt: "calm rainy night piano" },
  "atelier/waveform": { audio: SOUND },
  "atelier/gradient-poster@1": { prompt: "sea", title: "Hello" },
  "atelier/gradient-poster@2": { prompt: "sea", title: "Hello" },
  "atelier/promo-video@1": { title: "Spring launch", prompt: "pastel mountains" },
  "atelier/promo-video@2": { title: "Spring launch", prompt: "pastel mountains" },
};

async function main(): Promise<void> {
  const photo = await sharp({
    create: {
      width: 1024,
      height: 768,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  // 30 seconds of a swelling tone at 44.1 kHz, as a WAV upload would be.
  const tone = new Float32Array(44_100 * 30).map(
    (_, i) => (i / (44_100 * 30)) * Math.sin((2 * Math.PI * 220 * i) / 44_100),
  );
  const sound = encodeWav([tone], 44_100);
  console.log("| id | typical input | median seconds |\n| - | - | - |");
  for (const model of BUILT_IN_MODELS) {
    const input = TYPICAL[model.id];
    if (process.argv[2] && model.id !== process.argv[2]) continue;
    if (!input) continue;
    const seconds: number[] = [];
    for (let i = 0; i < 3; i++) {
      const tools = testRunTools({
        models: BUILT_IN_MODELS,
        files: {
          [PHOTO]: { data: photo, contentType: "image/png" },
          [SOUND]: { data: sound, contentType: "audio/wav" },
        },
      });
      const started = performance.now();
      await runModelForTest(model, input, tools);
      seconds.push((performance.now() - started) / 1000);
    }
    seconds.sort((a, b) => a - b);
    const shown = Object.entries(input)
      .map(
        ([k, v]) =>
          `${k}: ${k === "image" ? "1024×768 PNG" : k === "audio" ? "30 s WAV, 44.1 kHz" : JSON.stringify(v)}`,
      )
      .join(", ");
    console.log(`| \`${model.id}\` | ${shown}, defaults otherwise | ${seconds[1]!.toFixed(2)} |`);
  }
}

void main();
