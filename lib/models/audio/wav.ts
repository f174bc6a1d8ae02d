// Reading and writing 16-bit PCM WAV. Parsing walks the chunks instead of trusting fixed offsets,
// and tolerates the "unknown length" sizes a streaming writer (espeak-ng --stdout) puts in the header.

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Bytes per second of audio. */
  byteRate: number;
  /** Bytes per frame (one sample of every channel). */
  blockAlign: number;
  dataOffset: number;
  /** Bytes of sample data actually present, whole frames only. */
  dataLength: number;
  /** Seconds: data bytes / byte rate. */
  duration: number;
}

/** The format and data chunk of a PCM WAV; throws when the bytes are not one. */
export function parseWav(buf: Buffer): WavInfo {
  if (buf.length < 12 || buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE") {
    throw new Error("not a WAV file");
  }
  let fmt: Omit<WavInfo, "dataOffset" | "dataLength" | "duration"> | null = null;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString("ascii", offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt ") {
      if (buf.readUInt16LE(body) !== 1) throw new Error("WAV is not integer PCM");
      fmt = {
        channels: buf.readUInt16LE(body + 2),
        sampleRate: buf.readUInt32LE(body + 4),
        byteRate: buf.readUInt32LE(body + 8),
        blockAlign: buf.readUInt16LE(body + 12),
        bitsPerSample: buf.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      if (!fmt || fmt.byteRate === 0 || fmt.blockAlign === 0) throw new Error("WAV data before a valid fmt chunk");
      // A streamed header claims a huge size; what is there is what counts.
      const present = Math.min(size, buf.length - body);
      const dataLength = present - (present % fmt.blockAlign);
      return { ...fmt, dataOffset: body, dataLength, duration: dataLength / fmt.byteRate };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("WAV has no data chunk");
}

/** A standalone 16-bit WAV with true sizes, from any parseable one (drops extra chunks). */
export function normalizeWav(buf: Buffer): Buffer {
  const info = parseWav(buf);
  if (info.bitsPerSample !== 16) throw new Error(`WAV is ${info.bitsPerSample}-bit, expected 16`);
  const pcm = buf.subarray(info.dataOffset, info.dataOffset + info.dataLength);
  return Buffer.concat([wavHeader(info.sampleRate, info.channels, pcm.length), pcm]);
}

function wavHeader(sampleRate: number, channels: number, dataLength: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataLength, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataLength, 40);
  return header;
}

/** 16-bit WAV from float channels in [-1, 1] (equal lengths); values beyond are clamped. */
export function encodeWav(channels: Float32Array[], sampleRate: number): Buffer {
  const frames = channels[0]?.length ?? 0;
  const count = channels.length;
  const samples = new Int16Array(frames * count);
  for (let c = 0; c < count; c++) {
    const channel = channels[c]!;
    for (let i = 0, at = c; i < frames; i++, at += count)
      samples[at] = Math.round(Math.max(-1, Math.min(1, channel[i]!)) * 32767);
  }
  // Int16Array is in the platform's byte order; WAV is little-endian, as is every platform Node runs on here.
  const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  return Buffer.concat([wavHeader(sampleRate, count, pcm.length), pcm]);
}

/** Samples of a 16-bit WAV as floats, one array per channel (tests and analysis). */
export function decodeWav(buf: Buffer): { sampleRate: number; channels: Float32Array[] } {
  const info = parseWav(buf);
  if (info.bitsPerSample !== 16) throw new Error(`WAV is ${info.bitsPerSample}-bit, expected 16`);
  const frames = info.dataLength / info.blockAlign;
  const channels = Array.from({ length: info.channels }, () => new Float32Array(frames));
  let at = info.dataOffset;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < info.channels; c++) {
      channels[c]![i] = buf.readInt16LE(at) / 32768;
      at += 2;
    }
  }
  return { sampleRate: info.sampleRate, channels };
}
