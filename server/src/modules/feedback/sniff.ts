/** An accepted attachment type, decided from the file's own bytes. */
export type MediaType = {
  mime: string;
  /** Extension the stored file gets. */
  ext: string;
  kind: "image" | "video";
};

const JPEG: MediaType = { mime: "image/jpeg", ext: "jpg", kind: "image" };
const PNG: MediaType = { mime: "image/png", ext: "png", kind: "image" };
const GIF: MediaType = { mime: "image/gif", ext: "gif", kind: "image" };
const WEBP: MediaType = { mime: "image/webp", ext: "webp", kind: "image" };
const HEIC: MediaType = { mime: "image/heic", ext: "heic", kind: "image" };
const MP4: MediaType = { mime: "video/mp4", ext: "mp4", kind: "video" };
const QUICKTIME: MediaType = { mime: "video/quicktime", ext: "mov", kind: "video" };
const WEBM: MediaType = { mime: "video/webm", ext: "webm", kind: "video" };

/** Every stored extension with its type (serving and the store's name pattern use it). */
export const MEDIA_TYPES_BY_EXT: Readonly<Record<string, MediaType>> = Object.fromEntries(
  [JPEG, PNG, GIF, WEBP, HEIC, MP4, QUICKTIME, WEBM].map((t) => [t.ext, t]),
);

/** How many leading bytes `sniffMediaType` looks at (an ISO-BMFF ftyp box with its brand list fits). */
export const SNIFF_BYTES = 4096;

// ISO base media (ftyp) brands: HEIF images, MP4 video, QuickTime.
const HEIC_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]);
const MP4_BRANDS = new Set([
  "isom",
  "iso2",
  "iso3",
  "iso4",
  "iso5",
  "iso6",
  "mp41",
  "mp42",
  "avc1",
  "M4V ",
  "M4VH",
  "M4VP",
  "mmp4",
  "MSNV",
  "dash",
]);
const QUICKTIME_BRANDS = new Set(["qt  "]);

/**
 * The accepted type of a file from its first bytes (magic numbers), or null: exactly JPEG, PNG, GIF,
 * WebP, HEIC/HEIF, MP4, QuickTime and WebM. Anything else (SVG, HTML, executables, archives, Matroska
 * that is not WebM, AVIF) is null, whatever its name or declared type.
 */
export function sniffMediaType(head: Uint8Array): MediaType | null {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const ascii = (start: number, end: number) => b.subarray(start, end).toString("latin1");
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return JPEG;
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return PNG;
  if (b.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return GIF;
  if (b.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return WEBP;
  if (b.length >= 12 && ascii(4, 8) === "ftyp") return isoBrandType(b);
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return isWebm(b) ? WEBM : null;
  return null;
}

/** HEIC, MP4 or QuickTime from an ftyp box: its major brand first, then its compatible brands. */
function isoBrandType(b: Buffer): MediaType | null {
  const boxSize = b.readUInt32BE(0);
  const end = Math.min(b.length, Math.max(boxSize, 16));
  const brands = [b.subarray(8, 12).toString("latin1")];
  for (let at = 16; at + 4 <= end; at += 4) brands.push(b.subarray(at, at + 4).toString("latin1"));
  for (const brand of brands) {
    if (brand === "avif" || brand === "avis") return null;
    if (HEIC_BRANDS.has(brand)) return HEIC;
    if (QUICKTIME_BRANDS.has(brand)) return QUICKTIME;
    if (MP4_BRANDS.has(brand)) return MP4;
  }
  return null;
}

/** An EBML file whose DocType (element 0x4282) is "webm"; Matroska and anything else is not. */
function isWebm(b: Buffer): boolean {
  const header = b.subarray(0, 128);
  const at = header.indexOf(Buffer.from([0x42, 0x82]));
  if (at < 0 || at + 3 > header.length) return false;
  // The size is an EBML variable-length integer; a doctype is short, so a one-byte size (0x8N).
  const sizeByte = header[at + 2]!;
  if ((sizeByte & 0x80) === 0) return false;
  const size = sizeByte & 0x7f;
  return header.subarray(at + 3, at + 3 + size).toString("latin1") === "webm";
}
