"use client";
// A 3D output, interactive: @google/model-viewer (a web component on three.js) draws the .glb
// with orbit (drag), zoom (scroll or pinch) and pan. It is big, so it is fetched only when a 3D
// output is on screen: a dynamic import in an effect, never part of a page's first load. Until
// it is ready, and where it cannot draw (no WebGL, a failed load), the output's poster stands in.
import { useEffect, useRef, useState, type CSSProperties } from "react";

/**
 * One import per page, shared by every viewer on it. A page showing a 3D run that is still going
 * calls it early, so the viewer is ready when the model arrives.
 */
let modelViewerModule: Promise<unknown> | null = null;
export function loadModelViewer(): Promise<unknown> {
  modelViewerModule ??= import("@google/model-viewer").catch((err: unknown) => {
    modelViewerModule = null;
    throw err;
  });
  return modelViewerModule;
}

/** Fills its 4:3 box; its loading bar in the studio's accent, thin (the element's own CSS properties). */
const VIEWER_STYLE = {
  display: "block",
  width: "100%",
  height: "100%",
  "--progress-bar-color": "var(--color-indigo-500)",
  "--progress-bar-height": "3px",
} as CSSProperties;

/** Where the poster's camera stands (azimuth 35°, 24° down): the model turns up where its poster was. */
const POSTER_ORBIT = "35deg 66deg auto";

type ViewerState = "starting" | "loading" | "loaded" | "failed";

/** A signed link without its signature and expiry: the same blob whatever read of the run it came from. */
export function blobOf(url: string): string {
  return url.split("?")[0] ?? url;
}

/**
 * `src`: the .glb (same-origin in the studio); `poster`: its rendered still. Every read of a run
 * signs its links afresh, so the first links are kept: a later read of the same run does not load
 * the model again or reset the camera. Give it `key={blobOf(src)}` where the same spot may show
 * another model.
 */
export function ModelViewer3D({
  src: firstSrc,
  poster: firstPoster,
  alt,
  className = "",
}: {
  src: string;
  poster?: string;
  alt: string;
  className?: string;
}) {
  const ref = useRef<HTMLElement>(null);
  const [state, setState] = useState<ViewerState>("starting");
  const [{ src, poster }] = useState({ src: firstSrc, poster: firstPoster });

  useEffect(() => {
    let live = true;
    loadModelViewer().then(
      () => live && setState((s) => (s === "starting" ? "loading" : s)),
      () => live && setState("failed"),
    );
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const loaded = () => setState("loaded");
    const failed = () => setState("failed");
    el.addEventListener("load", loaded);
    el.addEventListener("error", failed);
    return () => {
      el.removeEventListener("load", loaded);
      el.removeEventListener("error", failed);
    };
  }, []);

  const stillShown = state === "starting" || state === "failed";
  return (
    <div className={`flex flex-col gap-1.5 ${className}`}>
      {/* The warm backdrop of the posters (lib/models/three-d/poster.ts), in both themes as a video's black is. */}
      <div className="relative aspect-[4/3] w-full overflow-hidden rounded-lg border border-zinc-200 bg-linear-to-b from-[#f3efea] to-[#d9d1c8]">
        <model-viewer
          ref={ref}
          src={src}
          poster={poster}
          alt={alt}
          camera-controls
          camera-orbit={POSTER_ORBIT}
          touch-action="pan-y"
          interaction-prompt="none"
          shadow-intensity="1"
          exposure="1"
          data-testid="model-viewer"
          data-state={state}
          style={VIEWER_STYLE}
        />
        {stillShown && poster ? (
          // Before the viewer is ready, and where it cannot draw: the model's rendered still.
          <img
            src={poster}
            alt={alt}
            data-testid="model-viewer-poster"
            className="pointer-events-none absolute inset-0 h-full w-full object-contain"
          />
        ) : null}
      </div>
      <p className="text-xs text-zinc-500" aria-live="polite">
        {state === "failed"
          ? "This browser could not draw the model here: the picture is its poster. Download the .glb to open it in a 3D viewer."
          : state === "loaded"
            ? "Drag to orbit · scroll or pinch to zoom · right-drag or two fingers to pan"
            : "Loading the 3D viewer…"}
      </p>
    </div>
  );
}
