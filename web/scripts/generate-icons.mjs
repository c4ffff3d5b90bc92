// Rasterises the app icon into every PNG size the platforms ask for, with Debian's Chromium
// (no native image library needed): `node web/scripts/generate-icons.mjs`. The PNGs are
// committed, so a build needs nothing of this. Run it again after changing the glyph below.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const publicDir = path.resolve(import.meta.dirname, "../public");
const iconsDir = path.join(publicDir, "icons");
const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

const RED = "#b71c1c";
/** The pager bell with an exclamation mark, drawn on a 512 grid; its box is x 96–416, y 96–448. */
const GLYPH = `
  <path d="M256 96c-70 0-120 52-120 124v84l-40 56v20h320v-20l-40-56v-84c0-72-50-124-120-124z" fill="#fff"/>
  <path d="M208 400a48 48 0 0 0 96 0z" fill="#fff"/>
  <path d="M248 168h16v112h-16zM248 300h16v20h-16z" fill="${RED}"/>`;

const svg = (body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" role="img" aria-label="Turnout">${body}\n</svg>\n`;

/** Rounded tile on transparency: browser tabs, desktop installs and Android's "any" icons. */
const anySvg = svg(`
  <rect width="512" height="512" rx="96" fill="${RED}"/>${GLYPH}`);

/**
 * Full-bleed square with the glyph inside the central circle of radius 40% (the maskable safe
 * zone): scaled to 70% around its own centre (256, 272), so its farthest point sits about 135 px
 * from the middle, well inside 205 px.
 */
const maskableSvg = svg(`
  <rect width="512" height="512" fill="${RED}"/>
  <g transform="translate(256 256) scale(0.7) translate(-256 -272)">${GLYPH}
  </g>`);

/** iOS draws its own rounded corners and shows transparency as black: opaque, full-bleed. */
const appleSvg = svg(`
  <rect width="512" height="512" fill="${RED}"/>
  <g transform="translate(256 256) scale(0.8) translate(-256 -272)">${GLYPH}
  </g>`);

const ANY_SIZES = [16, 32, 48, 72, 96, 128, 144, 152, 192, 256, 384, 512];
const MASKABLE_SIZES = [192, 512];

async function main() {
  mkdirSync(iconsDir, { recursive: true });
  writeFileSync(path.join(publicDir, "icon.svg"), anySvg);

  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 600, height: 600 }, deviceScaleFactor: 1 });
    const render = async (source, size, file) => {
      const src = `data:image/svg+xml;base64,${Buffer.from(source).toString("base64")}`;
      await page.setContent(
        `<html><body style="margin:0;background:transparent"><img src="${src}" width="${size}" height="${size}" style="display:block"></body></html>`,
      );
      await page.locator("img").evaluate((img) => img.decode());
      const png = await page.screenshot({
        omitBackground: true,
        clip: { x: 0, y: 0, width: size, height: size },
      });
      writeFileSync(path.join(publicDir, file), png);
      return png;
    };

    const favicons = [];
    for (const size of ANY_SIZES) {
      const png = await render(anySvg, size, `icons/icon-${size}.png`);
      if (size <= 48) favicons.push({ size, png });
    }
    for (const size of MASKABLE_SIZES) await render(maskableSvg, size, `icons/maskable-icon-${size}.png`);
    await render(appleSvg, 180, "apple-touch-icon.png");
    writeFileSync(path.join(publicDir, "favicon.ico"), ico(favicons));
  } finally {
    await browser.close();
  }
  process.stdout.write(`Icons written to ${path.relative(process.cwd(), publicDir)}\n`);
}

/** An .ico holding PNG images (allowed since Windows Vista; every current browser reads it). */
function ico(images) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  const entries = [];
  let offset = 6 + 16 * images.length;
  for (const { size, png } of images) {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0);
    entry.writeUInt8(size >= 256 ? 0 : size, 1);
    entry.writeUInt8(0, 2);
    entry.writeUInt8(0, 3);
    entry.writeUInt16LE(1, 4);
    entry.writeUInt16LE(32, 6);
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    entries.push(entry);
  }
  return Buffer.concat([header, ...entries, ...images.map((i) => i.png)]);
}

await main();
