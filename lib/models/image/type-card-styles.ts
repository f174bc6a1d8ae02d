// The looks of atelier/type-card. Each style draws its background and ornaments as SVG, names
// its fonts and colours (the seed picks among a few tuned variants), and says how text glows.
import type { FontName } from "./type-card-text";

export interface Frame {
  width: number;
  height: number;
  /** Space kept clear of text on every side. */
  margin: number;
  /** Where text may go; ornaments that depend on the text stay inside it too. */
  box: { x: number; y: number; width: number; height: number };
}

export interface Colours {
  text: string;
  subtitle: string;
  accent: string;
  /** Style-specific extras: neon glow, block shapes, gradient stops. */
  more: string[];
}

/** Where the text block ended up, for ornaments drawn around it. */
export interface Block {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Top of the subtitle, when there is one. */
  subtitleY?: number;
  align: "left" | "center" | "right";
}

export interface Style {
  title: FontName;
  subtitle: FontName;
  /** Largest title size as a fraction of the short side. */
  maxTitle: number;
  subtitleTracking: number;
  uppercaseSubtitle: boolean;
  vertical: "top" | "center" | "bottom";
  /** Space kept above the title, inside the box, for an ornament. */
  above: number;
  effect: "none" | "glow" | "shadow";
  grain: number;
  suffix?: string;
  colours(random: () => number): Colours;
  background(frame: Frame, colours: Colours, random: () => number): string;
  ornaments(frame: Frame, colours: Colours, block: Block | null): string;
  /** A style that needs a different text area (a window bar, say). */
  box?(frame: Omit<Frame, "box">): Frame["box"];
}

const f = (n: number) => n.toFixed(1);
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

function anchorX(block: Block, width: number): number {
  return block.align === "left"
    ? block.x
    : block.align === "right"
      ? block.x + block.width - width
      : block.x + (block.width - width) / 2;
}

const inkOnPaper: Style = {
  title: "serif",
  subtitle: "serifItalic",
  maxTitle: 0.15,
  subtitleTracking: 0.02,
  uppercaseSubtitle: false,
  vertical: "center",
  above: 0,
  effect: "none",
  grain: 22,
  colours(random) {
    const accent = pick(random, ["#8c2f1b", "#1f3a5f", "#2f5d3a", "#7a4b12"]);
    return { text: "#1f1a17", subtitle: accent, accent, more: [pick(random, ["#f4eee1", "#efe7d6", "#f6f1e6"])] };
  },
  background: ({ width, height }, c) =>
    `<defs><radialGradient id="paper" cx="0.5" cy="0.45" r="0.75"><stop offset="0" stop-color="#fffdf7" stop-opacity="0.6"/><stop offset="1" stop-color="${c.more[0]}" stop-opacity="0"/></radialGradient></defs><rect width="${width}" height="${height}" fill="${c.more[0]}"/><rect width="${width}" height="${height}" fill="url(#paper)"/>`,
  ornaments({ width, height, margin }, c, block) {
    const inset = margin * 0.45;
    const line = Math.max(1, Math.min(width, height) / 400);
    const out = [
      `<rect x="${f(inset)}" y="${f(inset)}" width="${f(width - 2 * inset)}" height="${f(height - 2 * inset)}" fill="none" stroke="${c.text}" stroke-width="${f(line * 1.6)}"/>`,
      `<rect x="${f(inset + line * 5)}" y="${f(inset + line * 5)}" width="${f(width - 2 * inset - line * 10)}" height="${f(height - 2 * inset - line * 10)}" fill="none" stroke="${c.text}" stroke-width="${f(line * 0.7)}"/>`,
    ];
    if (block?.subtitleY !== undefined) {
      // A short rule with a diamond between title and subtitle.
      const w = Math.min(block.width, width * 0.22);
      const x = anchorX(block, w);
      const y = block.subtitleY - margin * 0.22;
      const d = margin * 0.07;
      out.push(`<rect x="${f(x)}" y="${f(y - line / 2)}" width="${f(w)}" height="${f(line)}" fill="${c.accent}"/>`);
      out.push(
        `<polygon points="${f(x + w / 2)},${f(y - d)} ${f(x + w / 2 + d)},${f(y)} ${f(x + w / 2)},${f(y + d)} ${f(x + w / 2 - d)},${f(y)}" fill="${c.accent}"/>`,
      );
    }
    return out.join("");
  },
};

const neonNight: Style = {
  title: "sansBold",
  subtitle: "sans",
  maxTitle: 0.16,
  subtitleTracking: 0.22,
  uppercaseSubtitle: true,
  vertical: "center",
  above: 0,
  effect: "glow",
  grain: 10,
  colours(random) {
    const [glow, second] = pick(random, [
      ["#ff2bd6", "#00e5ff"],
      ["#00e5ff", "#ff2bd6"],
      ["#b6ff00", "#ff2bd6"],
      ["#ff7a00", "#00e5ff"],
      ["#a855ff", "#39ffb0"],
    ] as const);
    return {
      text: "#fff6fd",
      subtitle: second,
      accent: second,
      more: [glow, pick(random, ["#0b0820", "#06101f", "#120617"])],
    };
  },
  background({ width, height }, c) {
    const horizon = height * 0.68;
    const lines: string[] = [];
    for (let i = -12; i <= 12; i++) {
      lines.push(
        `<line x1="${f(width / 2 + i * width * 0.02)}" y1="${f(horizon)}" x2="${f(width / 2 + i * width * 0.16)}" y2="${f(height)}"/>`,
      );
    }
    for (let k = 1; k <= 8; k++) {
      const y = horizon + (height - horizon) * (k / 8) ** 1.8;
      lines.push(`<line x1="0" y1="${f(y)}" x2="${width}" y2="${f(y)}"/>`);
    }
    return `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${c.more[1]}"/><stop offset="0.68" stop-color="#2a0b4a"/><stop offset="1" stop-color="${c.more[1]}"/></linearGradient>
<radialGradient id="haze" cx="0.5" cy="0.68" r="0.6"><stop offset="0" stop-color="${c.more[0]}" stop-opacity="0.35"/><stop offset="1" stop-color="${c.more[0]}" stop-opacity="0"/></radialGradient></defs>
<rect width="${width}" height="${height}" fill="url(#sky)"/><rect width="${width}" height="${height}" fill="url(#haze)"/>
<g stroke="${c.accent}" stroke-opacity="0.28" stroke-width="${f(Math.max(1, width / 600))}">${lines.join("")}</g>`;
  },
  ornaments({ width, height, margin }, c) {
    const inset = margin * 0.45;
    const rect = `x="${f(inset)}" y="${f(inset)}" width="${f(width - 2 * inset)}" height="${f(height - 2 * inset)}" rx="${f(margin * 0.4)}" fill="none" stroke="${c.more[0]}"`;
    const w = Math.max(1.5, Math.min(width, height) / 250);
    return `<defs><filter id="bloom" x="-10%" y="-10%" width="120%" height="120%"><feGaussianBlur stdDeviation="${f(w * 2.5)}"/></filter></defs><rect ${rect} stroke-width="${f(w * 3)}" filter="url(#bloom)"/><rect ${rect} stroke-width="${f(w)}"/>`;
  },
};

const colourBlock: Style = {
  title: "sansBold",
  subtitle: "sans",
  maxTitle: 0.17,
  subtitleTracking: 0.04,
  uppercaseSubtitle: false,
  vertical: "center",
  above: 0,
  effect: "none",
  grain: 12,
  colours(random) {
    const [bg, text, circle, bar] = pick(random, [
      ["#ff5a36", "#fff8ef", "#2b2d42", "#ffd23f"],
      ["#2946ff", "#ffffff", "#0d1b8c", "#ff5a36"],
      ["#ffd23f", "#1b1b1b", "#ff5a36", "#ffffff"],
      ["#00a878", "#fffdf5", "#0b3d2e", "#ffd23f"],
      ["#151515", "#ffffff", "#e63946", "#3d5afe"],
      ["#f1e4d1", "#1b1b1b", "#e07a5f", "#3d405b"],
    ] as const);
    return { text, subtitle: text, accent: bar, more: [bg, circle] };
  },
  background({ width, height }, c, random) {
    const u = Math.min(width, height);
    const corner = Math.floor(random() * 4);
    const cx = corner % 2 ? width : 0;
    const cy = corner < 2 ? 0 : height;
    const barTop = corner < 2;
    // A small dot grid in the corner opposite the circle, within the margin so text never meets it.
    const dots: string[] = [];
    const step = u * 0.018;
    const dx = corner % 2 ? u * 0.02 : width - u * 0.02 - 3 * step;
    const dy = barTop ? height - u * 0.07 - 3 * step : u * 0.07;
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++)
        dots.push(`<circle cx="${f(dx + i * step)}" cy="${f(dy + j * step)}" r="${f(u * 0.005)}"/>`);
    return `<rect width="${width}" height="${height}" fill="${c.more[0]}"/><circle cx="${f(cx)}" cy="${f(cy)}" r="${f(u * 0.5)}" fill="${c.more[1]}"/>
<rect x="0" y="${barTop ? f(height - u * 0.05) : 0}" width="${width}" height="${f(u * 0.05)}" fill="${c.accent}"/><g fill="${c.text}" fill-opacity="0.55">${dots.join("")}</g>`;
  },
  ornaments: () => "",
};

const minimal: Style = {
  title: "sansLight",
  subtitle: "sans",
  maxTitle: 0.14,
  subtitleTracking: 0.18,
  uppercaseSubtitle: true,
  vertical: "center",
  above: 0.06,
  effect: "none",
  grain: 0,
  colours: (random) => ({
    text: "#141414",
    subtitle: "#6b6b6b",
    accent: pick(random, ["#e63946", "#2a9d8f", "#3a86ff", "#f4a261", "#8338ec"]),
    more: [],
  }),
  background: ({ width, height }) => `<rect width="${width}" height="${height}" fill="#fafaf7"/>`,
  ornaments({ width, height, margin }, c, block) {
    const u = Math.min(width, height);
    const out = [
      `<circle cx="${f(width - margin * 0.6)}" cy="${f(height - margin * 0.6)}" r="${f(u * 0.012)}" fill="${c.accent}"/>`,
    ];
    if (block) {
      const w = Math.min(block.width, width * 0.12);
      out.push(
        `<rect x="${f(anchorX(block, w))}" y="${f(block.y)}" width="${f(w)}" height="${f(u * 0.012)}" fill="${c.accent}"/>`,
      );
    }
    return out.join("");
  },
};

const terminal: Style = {
  title: "monoBold",
  subtitle: "monoBold",
  maxTitle: 0.1,
  subtitleTracking: 0,
  uppercaseSubtitle: false,
  vertical: "top",
  above: 0,
  effect: "glow",
  grain: 0,
  suffix: " █",
  colours: (random) => {
    const text = pick(random, ["#39ff88", "#ffb000", "#7ee7ff"]);
    return { text, subtitle: "#8b949e", accent: text, more: [text] };
  },
  box: ({ width, height, margin }) => {
    const bar = Math.min(width, height) * 0.075;
    return { x: margin, y: bar + margin * 0.8, width: width - 2 * margin, height: height - bar - margin * 1.8 };
  },
  background({ width, height }) {
    const bar = Math.min(width, height) * 0.075;
    const r = bar * 0.16;
    const lights = ["#ff5f56", "#ffbd2e", "#27c93f"].map(
      (colour, i) => `<circle cx="${f(bar * 0.6 + i * r * 3.2)}" cy="${f(bar / 2)}" r="${f(r)}" fill="${colour}"/>`,
    );
    const step = Math.max(3, Math.round(height / 256));
    return `<defs><pattern id="scan" width="${step}" height="${step}" patternUnits="userSpaceOnUse"><rect width="${step}" height="1" fill="#ffffff" fill-opacity="0.035"/></pattern></defs>
<rect width="${width}" height="${height}" fill="#0d1117"/><rect width="${width}" height="${f(bar)}" fill="#1c222b"/>${lights.join("")}<rect y="${f(bar)}" width="${width}" height="${f(height - bar)}" fill="url(#scan)"/>`;
  },
  ornaments: () => "",
};

const sunsetGradient: Style = {
  title: "sansBold",
  subtitle: "sans",
  maxTitle: 0.16,
  subtitleTracking: 0.06,
  uppercaseSubtitle: false,
  vertical: "center",
  above: 0,
  effect: "shadow",
  grain: 12,
  colours(random) {
    const [from, to] = pick(random, [
      ["#ff7e5f", "#7b2ff7"],
      ["#f83600", "#f9d423"],
      ["#ee0979", "#ff6a00"],
      ["#00c6ff", "#0052d4"],
      ["#8e2de2", "#ff4e8a"],
      ["#11998e", "#38ef7d"],
    ] as const);
    return { text: "#ffffff", subtitle: "#fff4ea", accent: "#ffffff", more: [from, to] };
  },
  background({ width, height }, c, random) {
    const u = Math.min(width, height);
    const angle = Math.floor(random() * 360);
    const bokeh: string[] = [];
    for (let i = 0; i < 9; i++) {
      bokeh.push(
        `<circle cx="${f(random() * width)}" cy="${f(random() * height)}" r="${f(u * (0.05 + random() * 0.22))}" fill="#ffffff" fill-opacity="${(0.05 + random() * 0.12).toFixed(2)}"/>`,
      );
    }
    return `<defs><linearGradient id="sun" gradientTransform="rotate(${angle} 0.5 0.5)"><stop offset="0" stop-color="${c.more[0]}"/><stop offset="1" stop-color="${c.more[1]}"/></linearGradient><filter id="soft"><feGaussianBlur stdDeviation="${f(u * 0.012)}"/></filter></defs>
<rect width="${width}" height="${height}" fill="url(#sun)"/><g filter="url(#soft)">${bokeh.join("")}</g>`;
  },
  ornaments: () => "",
};

export const STYLES = {
  "ink-on-paper": inkOnPaper,
  "neon-night": neonNight,
  "colour-block": colourBlock,
  minimal,
  terminal,
  "sunset-gradient": sunsetGradient,
} as const;
export type StyleName = keyof typeof STYLES;
