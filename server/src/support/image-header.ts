import { badRequest } from "../errors.js";

/**
 * sharp (libvips), loaded at the first image: it holds ~28 MB that an idle server, or one that never
 * receives a photo or logo, does not need. Its cache is off: each image is read once.
 */
let sharpModule: Promise<typeof import("sharp")> | undefined;
export function loadSharp(): Promise<typeof import("sharp")> {
  sharpModule ??= import("sharp").then((m) => {
    m.default.cache(false);
    return m;
  });
  return sharpModule;
}

/** What an image's header says of its size: width, height and frames (an animation decodes each). */
export type ImageHeader = { width: number; height: number; frames: number; pixels: number };

/**
 * The size an image file or buffer declares in its header, read without decoding a pixel; null when
 * the header cannot be read (HEIC, which the prebuilt libvips does not parse; a damaged file).
 */
export async function readImageHeader(input: string | Buffer): Promise<ImageHeader | null> {
  try {
    const { default: sharp } = await loadSharp();
    // No pixel limit here: this only reads the header, and its numbers are what is being judged.
    const meta = await sharp(input, { limitInputPixels: false, pages: -1 }).metadata();
    if (!meta.width || !meta.height) return null;
    const frames = Math.max(1, meta.pages ?? 1);
    const height = meta.pageHeight ?? meta.height / frames;
    return { width: meta.width, height, frames, pixels: meta.width * height * frames };
  } catch {
    return null;
  }
}

/**
 * Refuses (400) an image whose header declares more pixels than `maxPixels`: a few megabytes of PNG can
 * declare 50,000 x 50,000 (2.5 gigapixels), which a browser asked to show it would try to decode.
 */
export function assertImagePixels(header: ImageHeader | null, maxPixels: number): void {
  if (!header || header.pixels <= maxPixels) return;
  const megapixels = (n: number) => `${Math.round(n / 1e5) / 10} megapixels`;
  const frames = header.frames > 1 ? ` in ${header.frames} frames` : "";
  throw badRequest(
    `The image is too large: ${header.width} x ${header.height} pixels${frames} (${megapixels(header.pixels)}); at most ${megapixels(maxPixels)}. Please send a smaller picture.`,
  );
}
