/**
 * The token of an operator's recovery link (`/#recover=...`, README "Signing in"), if the page was
 * opened with one. Kept apart from the recovery screen, which loads only when there is a token.
 */
export function recoveryTokenFromLocation(hash: string): string | null {
  const match = /^#recover=([A-Za-z0-9_.-]{20,2048})$/.exec(hash);
  return match?.[1] ?? null;
}
