// Text to speech with eSpeak NG. eSpeak NG is GPL-3 and Atelier is Apache-2.0, so it is never
// linked or bundled: the server's own `espeak-ng` program is run as a separate child process
// (text on stdin, WAV on stdout), and the model is out of service where it is not installed.
import { programSearchPath } from "../host";
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { objectSchema } from "../shared/fields";
import { ModelError, type ModelDefinition } from "../types";
import { audioFormatField, audioOutput, type AudioFormat } from "./encode";
import { normalizeWav, parseWav } from "./wav";

const PROGRAM = "espeak-ng";
const NOT_INSTALLED = "Text to speech needs the espeak-ng program, which is not installed on this server.";

/**
 * The voices offered: our id, the eSpeak NG voice it runs ("+f3" is a female variant) and a label.
 * Some spellings ignore a variant ("en-gb+f3", "fr-fr+f3" stay male), hence "en+f3", "fr+f3".
 */
export const SPEECH_VOICES = [
  { id: "en-us", espeak: "en-us", label: "English (US), male" },
  { id: "en-us-female", espeak: "en-us+f3", label: "English (US), female" },
  { id: "en-gb", espeak: "en-gb", label: "English (UK), male" },
  { id: "en-gb-female", espeak: "en+f3", label: "English (UK), female" },
  { id: "en-scotland", espeak: "en-gb-scotland", label: "English (Scotland), male" },
  { id: "fr", espeak: "fr-fr", label: "French, male" },
  { id: "fr-female", espeak: "fr+f3", label: "French, female" },
  { id: "de", espeak: "de", label: "German, male" },
  { id: "de-female", espeak: "de+f3", label: "German, female" },
  { id: "es", espeak: "es", label: "Spanish (Spain), male" },
  { id: "es-female", espeak: "es+f3", label: "Spanish (Spain), female" },
  { id: "it", espeak: "it", label: "Italian, male" },
  { id: "it-female", espeak: "it+f3", label: "Italian, female" },
  { id: "pt-br", espeak: "pt-br", label: "Portuguese (Brazil), male" },
  { id: "pt-br-female", espeak: "pt-br+f3", label: "Portuguese (Brazil), female" },
  { id: "nl", espeak: "nl", label: "Dutch, male" },
] as const;

/** Why speech cannot run on this server, or null when `espeak-ng` is on `searchPath` (a PATH). */
export function speechUnavailableReason(searchPath: string): string | null {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    try {
      accessSync(path.join(dir, PROGRAM), constants.X_OK);
      return null;
    } catch {
      // not in this directory
    }
  }
  return NOT_INSTALLED;
}

// Every catalog listing and quote asks; a walk of PATH per request cost a third of GET /v1/models
// (bench profile). Installing or removing the program shows within this many milliseconds.
const RECHECK_MS = 5_000;
let lastCheck: { searchPath: string; at: number; reason: string | null } | null = null;

function checkedRecently(searchPath: string, now = Date.now()): string | null {
  if (lastCheck && lastCheck.searchPath === searchPath && now - lastCheck.at < RECHECK_MS) return lastCheck.reason;
  lastCheck = { searchPath, at: now, reason: speechUnavailableReason(searchPath) };
  return lastCheck.reason;
}

/** Runs espeak-ng and resolves with the WAV it writes, sizes fixed (it streams an open-ended header). */
function runEspeak(args: string[], text: string, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // No shell: the text travels on stdin, so nothing in it is ever read as an option or command.
    const child = spawn(PROGRAM, args, { stdio: ["pipe", "pipe", "pipe"], signal });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (signal.aborted) return reject(signal.reason);
      if (err.code === "ENOENT") return reject(new ModelError(NOT_INSTALLED));
      reject(err);
    });
    child.on("close", (code) => {
      if (signal.aborted) return reject(signal.reason);
      if (code !== 0) return reject(new Error(`espeak-ng exited with code ${code}: ${stderr.trim().slice(-500)}`));
      try {
        resolve(normalizeWav(Buffer.concat(out)));
      } catch (err) {
        reject(new Error(`espeak-ng wrote no usable WAV: ${(err as Error).message}`));
      }
    });
    child.stdin.on("error", () => {
      // espeak-ng may exit before reading everything (killed on cancel); the exit tells what happened.
    });
    child.stdin.end(text, "utf8");
  });
}

export const speech: ModelDefinition = {
  id: "atelier/speech",
  type: "model",
  name: "Speech",
  creator: "Atelier",
  modality: "audio",
  tasks: ["text-to-speech"],
  description: "Reads text aloud with the offline eSpeak NG synthesizer: clear, robotic voices in a dozen languages.",
  revision: "2026-11-22",
  status: "stable",
  pricing: { unit: "character", usd: "0.00002", drivers: ["text"], overrides: [] },
  lifecycle: null,
  unavailableReason() {
    const message = checkedRecently(programSearchPath());
    return message === null ? null : { message, until: null };
  },
  input_schema: objectSchema(
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
        description: `Language and speaker: ${SPEECH_VOICES.map((v) => `${v.id} is ${v.label}`).join("; ")}.`,
        enum: SPEECH_VOICES.map((v) => v.id),
        oneOf: SPEECH_VOICES.map((v) => ({ const: v.id, title: v.label })),
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
  ),
  async run(input, tools) {
    const text = input.text as string;
    if (!/\S/.test(text)) throw new ModelError("The text has nothing to say: it is only spaces.");
    // -b 1: the text is UTF-8; --stdin: read it all as one text rather than line by line.
    const voice = SPEECH_VOICES.find((v) => v.id === input.voice) ?? SPEECH_VOICES[0];
    const args = ["-b", "1", "--stdin", "--stdout", "-v", voice.espeak, "-s", String(input.speed), "-p", String(input.pitch)];
    const wav = await runEspeak(args, text, tools.signal);
    if (parseWav(wav).dataLength === 0) throw new ModelError("The text has nothing eSpeak NG can pronounce.");
    tools.signal.throwIfAborted();
    return [await audioOutput(wav, input.format as AudioFormat, { ffmpegPath: tools.ffmpegPath, signal: tools.signal, bitrateKbps: 64 })];
  },
};
