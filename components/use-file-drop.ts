"use client";
// A drop target for one file: `over` while something is dragged onto it (for the highlight), and
// the handlers to spread onto the element; and a file picked before hydration. Used by the model
// form's file field and the Files page.
import { useEffect, useRef, useState, type DragEvent, type RefObject } from "react";

/**
 * A file chosen in `input` before the page came alive (hydration) fired its change event before
 * React listened, so it would be lost: once mounted, send what the input already holds.
 */
export function useEarlyFile(input: RefObject<HTMLInputElement | null>, onFile: (file: File) => void): void {
  const send = useRef(onFile);
  send.current = onFile;
  useEffect(() => {
    const early = input.current?.files?.[0];
    if (early) send.current(early);
  }, [input]);
}

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
