// <model-viewer> (@google/model-viewer) in JSX: the attributes the studio sets. The element's
// class is loaded in the browser only, on demand (components/model-viewer-3d.tsx).
import type { DetailedHTMLProps, HTMLAttributes } from "react";

interface ModelViewerAttributes {
  src?: string;
  poster?: string;
  alt?: string;
  loading?: "auto" | "lazy" | "eager";
  reveal?: "auto" | "manual";
  "camera-controls"?: boolean;
  "camera-orbit"?: string;
  "touch-action"?: "pan-y" | "pan-x" | "none";
  "interaction-prompt"?: "auto" | "none";
  "shadow-intensity"?: string;
  exposure?: string;
}

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "model-viewer": DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & ModelViewerAttributes;
    }
  }
}
