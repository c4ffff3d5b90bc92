// Types of server-build.mjs for the TypeScript that shares it (benchmarks, browser tests).
export const SERVER_COMMAND: string[];
export const SERVER_ENV: Record<string, string>;
export const TEST_DOUBLES: string;
export function serverBuildIsStale(): boolean;
export function ensureServerBuilt(options?: { quiet?: boolean; force?: boolean }): Promise<boolean>;
export function testDoublesIn(inputs: string[]): string[];
