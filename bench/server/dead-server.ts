/**
 * How soon a live client notices a server that stopped answering (issue 26, moved to 29): the real
 * server (compiled) on the embedded database, 10 socket.io polling clients connected as the web app
 * connects (its reconnection settings), then the server process is frozen with SIGSTOP (it neither
 * answers nor closes a connection, as a hung server or a cut network looks) at a random moment of
 * the heartbeat. Printed: the time from the freeze to each client's `disconnect` ("ping timeout").
 * The server is then thawed (SIGCONT) and the clients are timed back.
 *
 *   npx tsx bench/server/dead-server.ts     BENCH_ROUNDS=5
 */
import { io, type Socket } from "socket.io-client";
import { log, percentile, runMain, sleep, startServer, stopChild } from "./lib/common.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

runMain(async () => {
  const server = await startServer(null, { ADMIN_PHONES: "+61412526000" });
  const { readFileSync } = await import("node:fs");
  await fetch(`${server.url}/api/auth/request-otp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ phone: "+61412526000" }),
  });
  await sleep(500);
  const code = readFileSync(`${server.dataDir}/sms-outbox.jsonl`, "utf8").match(/\b(\d{6})\b/)![1];
  const verified = await fetch(`${server.url}/api/auth/verify-otp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-device-id": "bench" },
    body: JSON.stringify({ phone: "+61412526000", otp_code: code }),
  });
  const token = ((await verified.json()) as { data: { token: string } }).data.token;
  const sockets: Socket[] = Array.from({ length: 10 }, () =>
    io(server.url, {
      transports: ["polling"],
      auth: { token },
      forceNew: true,
      reconnectionDelay: 2_000,
      reconnectionDelayMax: 10_000,
    }),
  );
  await sleep(3_000);
  const noticed: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await sleep(Math.random() * 6_000); // anywhere in the ping interval
    const frozenAt = Date.now();
    const lost = sockets.map(
      (s) => new Promise<number>((resolve) => s.once("disconnect", () => resolve(Date.now() - frozenAt))),
    );
    server.child.kill("SIGSTOP");
    const times = await Promise.all(lost);
    noticed.push(...times);
    log(`round ${round + 1}: noticed after ${Math.min(...times)}..${Math.max(...times)} ms`);
    server.child.kill("SIGCONT");
    await Promise.all(
      sockets.map((s) => new Promise<void>((r) => (s.connected ? r() : s.once("connect", () => r())))),
    );
  }
  console.log(
    `\n${noticed.length} client notices of a frozen server: median ${percentile(noticed, 50)} ms, max ${Math.max(...noticed)} ms (heartbeat 6 s + 4 s)`,
  );
  for (const s of sockets) s.close();
  await stopChild(server.child);
});
