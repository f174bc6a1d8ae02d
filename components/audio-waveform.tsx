"use client";
// A sound's thumbnail: its waveform, drawn in the browser from the audio itself (decoded once per
// link when the row scrolls into view; a page of history holds at most 100 of them). When the
// browser cannot decode it, a plain sound mark stands in.
import { useEffect, useRef, useState } from "react";

const BARS = 16;
/** Decoded peaks by blob (the link's path: its query changes with each read, the bytes do not). */
const PEAKS = new Map<string, Promise<number[] | null>>();

async function decodePeaks(url: string): Promise<number[] | null> {
  try {
    const response = await fetch(url);
    if (!response.ok) return null;
    const bytes = await response.arrayBuffer();
    // One channel at a low rate is all a 40 px picture needs.
    const context = new OfflineAudioContext(1, 1, 8000);
    const audio = await context.decodeAudioData(bytes);
    const samples = audio.getChannelData(0);
    const size = Math.max(1, Math.floor(samples.length / BARS));
    // The loudness (RMS) of each slice: peaks alone make every bar of speech look the same.
    const peaks: number[] = [];
    for (let bar = 0; bar < BARS; bar++) {
      let sum = 0;
      let n = 0;
      for (let i = bar * size; i < Math.min(samples.length, (bar + 1) * size); i += 2, n++)
        sum += samples[i]! * samples[i]!;
      peaks.push(Math.sqrt(sum / Math.max(1, n)));
    }
    const loudest = Math.max(...peaks, 1e-6);
    return peaks.map((p) => p / loudest);
  } catch {
    return null;
  }
}

function peaksOf(url: string): Promise<number[] | null> {
  const key = url.split("?")[0]!;
  let found = PEAKS.get(key);
  if (!found) {
    found = decodePeaks(url);
    PEAKS.set(key, found);
  }
  return found;
}

function SoundMark() {
  return (
    <svg
      viewBox="0 0 24 24"
      aria-hidden
      className="h-5 w-5"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d="M9 18V5l12-2v13" />
      <circle cx="6" cy="18" r="3" />
      <circle cx="18" cy="16" r="3" />
    </svg>
  );
}

export function AudioWaveform({ url, className = "" }: { url: string; className?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [peaks, setPeaks] = useState<number[] | null | undefined>(undefined);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let live = true;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        void peaksOf(url).then((p) => live && setPeaks(p));
      },
      // A little ahead of the scroll, so the picture is there when the row is.
      { rootMargin: "300px 0px" },
    );
    observer.observe(element);
    return () => {
      live = false;
      observer.disconnect();
    };
  }, [url]);
  return (
    <div
      ref={box}
      data-testid="audio-waveform"
      data-state={peaks === undefined ? "loading" : peaks ? "drawn" : "mark"}
      className={`flex items-center justify-center bg-indigo-50 text-indigo-600 ${className}`}
      role="img"
      aria-label="Sound"
    >
      {peaks ? (
        <svg viewBox={`0 0 ${BARS * 2} 20`} preserveAspectRatio="none" aria-hidden className="h-6 w-8">
          {peaks.map((p, i) => {
            const h = Math.max(1.5, p * 18);
            return <rect key={i} x={i * 2 + 0.3} y={10 - h / 2} width={1.4} height={h} rx={0.7} fill="currentColor" />;
          })}
        </svg>
      ) : peaks === null ? (
        <SoundMark />
      ) : (
        <span className="h-1 w-6 motion-safe:animate-pulse rounded-full bg-indigo-200" />
      )}
    </div>
  );
}
