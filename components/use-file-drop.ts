"use client";
// A drop target for one file: `over` while something is dragged onto it (for the highlight), and
// the handlers to spread onto the element. Used by the model form's file field and the Files page.
import { useState, type DragEvent } from "react";

export function useFileDrop(onFile: (file: File | undefined) => void) {
  const [over, setOver] = useState(false);
  return {
    over,
    dropProps: {
      onDragOver(e: DragEvent) {
        e.preventDefault();
        setOver(true);
      },
      onDragLeave() {
        setOver(false);
      },
      onDrop(e: DragEvent) {
        e.preventDefault();
        setOver(false);
        onFile(e.dataTransfer.files[0]);
      },
    },
  };
}
