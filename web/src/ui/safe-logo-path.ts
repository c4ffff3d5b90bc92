/** Only same-origin paths: a logo is never fetched from elsewhere. */
export function safeLogoPath(path: string | null | undefined): string | null {
  return path?.startsWith("/") && !path.startsWith("//") ? path : null;
}
