/** Width and height from a PNG's IHDR chunk; throws when the bytes are not a PNG. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  const signature = "89504e470d0a1a0a";
  if (bytes.subarray(0, 8).toString("hex") !== signature || bytes.subarray(12, 16).toString() !== "IHDR") {
    throw new Error("not a PNG");
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
