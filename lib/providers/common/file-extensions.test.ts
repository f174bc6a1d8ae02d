import { describe, expect, it } from "vitest";
import { EXTENSIONS, extensionFor } from "./file-extensions";

describe("file extensions of provider media", () => {
  it("names a type by its usual extension, an alias by its type's, an unknown plain subtype by itself, else bin", () => {
    expect(extensionFor("image/jpeg")).toBe("jpg");
    expect(extensionFor("video/mp4; codecs=avc1")).toBe("mp4");
    expect(extensionFor("audio/mp4")).toBe("m4a");
    expect(extensionFor("audio/x-wav")).toBe("wav");
    expect(extensionFor("Audio/MP3")).toBe("mp3");
    expect(extensionFor("image/heic")).toBe("heic");
    expect(extensionFor("image/svg+xml")).toBe("bin");
    expect(extensionFor("model/gltf-binary")).toBe("glb");
    expect(extensionFor("")).toBe("bin");
  });

  it("tells the family of every extension, and every family's extension names its own family's type", () => {
    for (const [ext, { type, family }] of Object.entries(EXTENSIONS)) {
      expect(type.startsWith(family === "3d" ? "model/" : `${family}/`), ext).toBe(true);
    }
    expect(EXTENSIONS.aac?.family).toBe("audio");
    expect(EXTENSIONS.glb).toEqual({ type: "model/gltf-binary", family: "3d" });
  });
});
