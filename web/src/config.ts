/** Build-time settings: the only module that reads `import.meta.env`. */
export const config = {
  /** Every HTTP call goes under this path (SPEC 7); the server serves it on the same origin. */
  apiBaseUrl: "/api",
  /** The live channel's path on the same origin. */
  socketPath: "/socket.io",
  isDevBuild: import.meta.env.DEV,
} as const;
