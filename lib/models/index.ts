// The built-in catalog: one module per model (docs/models-and-presets.md, "Add a model"). Add a model here.
import { music } from "./audio/music";
import { speech } from "./audio/speech";
import { waveform } from "./audio/waveform";
import { artwork } from "./image/artwork";
import { gradient } from "./image/gradient";
import { gradientClassic } from "./image/gradient-classic";
import { gradientLegacy } from "./image/gradient-legacy";
import { imageEdit } from "./image/image-edit";
import { qrCode } from "./image/qr-code";
import { typeCard } from "./image/type-card";
import { upscale } from "./image/upscale";
import { gradientPosterV1, gradientPosterV2 } from "./presets/gradient-poster";
import { promoVideoV1, promoVideoV2 } from "./presets/promo-video";
import { panZoom } from "./video/pan-zoom";
import { relief3d } from "./three-d/relief";
import { shapes3d } from "./three-d/shapes";
import { titleMotion } from "./video/title-motion";
import type { ModelDefinition } from "../core/catalog/model-definition";

export const BUILT_IN_MODELS: readonly ModelDefinition[] = [
  artwork,
  typeCard,
  qrCode,
  gradient,
  gradientClassic,
  gradientLegacy,
  upscale,
  imageEdit,
  panZoom,
  titleMotion,
  speech,
  music,
  waveform,
  shapes3d,
  relief3d,
  gradientPosterV1,
  gradientPosterV2,
  promoVideoV1,
  promoVideoV2,
];
