import { crc32, deflateSync } from "node:zlib";

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A valid PNG header declaring `width` x `height` RGB pixels, followed by `bodyBytes` of image data
 * (a zlib start of black rows, then filler): a decompression bomb of the kind when the size is
 * 50,000 x 50,000. Nothing here decodes it.
 */
export function pngDeclaring(width: number, height: number, bodyBytes = 4096): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // RGB
  // The start of a zlib stream of black rows, then filler: never decoded, only carried.
  const start = deflateSync(Buffer.alloc(64 * 1024));
  const rows = Buffer.concat([start, Buffer.alloc(Math.max(0, bodyBytes - start.length))]).subarray(
    0,
    bodyBytes,
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", rows),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
