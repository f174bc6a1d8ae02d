"use client";
// A modal on the native <dialog>: focus stays inside, Escape closes (onClose), the page behind is
// inert. The content is mounted only while open, so a reopened dialog starts fresh.
import { useEffect, useId, useRef, type ReactNode } from "react";

export function Modal(props: {
  open: boolean;
  title: string;
  onClose: () => void;
  /** Tailwind max-width of the panel. */
  width?: "max-w-md" | "max-w-lg";
  /** The id of the element that describes the dialog (aria-describedby). */
  describedBy?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const { open } = props;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={props.describedBy}
      onClose={props.onClose}
      className={`m-auto w-[calc(100%-2rem)] ${props.width ?? "max-w-lg"} rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-black/40`}
    >
      {open ? (
        <div className={props.width === "max-w-md" ? "p-5" : "p-6"}>
          <h2 id={titleId} className="text-base font-semibold">
            {props.title}
          </h2>
          {props.children}
        </div>
      ) : null}
    </dialog>
  );
}
