import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * Creates an empty PostgreSQL database on the server named by `baseUrl`, so a test file (or a
 * browser-test server) never shares rows with another. `drop` removes it, closing any connections.
 */
export async function createScratchDatabase(
  baseUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `turnout_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await runOnServer(baseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => runOnServer(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function runOnServer(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
