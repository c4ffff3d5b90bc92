/**
 * A stand-in server for ingest-floor.ts, not a product: PagerMon's reader request (POST /api/messages, a
 * form with an `apikey` header) answered by plain node:http with the least work a durable ingest can do.
 *
 *   FLOOR_MODE=http     read and parse the form, check the key, answer "1": HTTP alone
 *   FLOOR_MODE=insert   the same, plus one INSERT … RETURNING id of the message into a table with only a
 *                       primary key (autocommit, so the reply waits for a durable commit), answering the id
 *
 * PORT, FLOOR_KEY and (for insert) DATABASE_URL come from the environment.
 */
import http from "node:http";
import pg from "pg";

const mode = process.env.FLOOR_MODE;
const key = process.env.FLOOR_KEY ?? "";
if (mode !== "http" && mode !== "insert") throw new Error(`FLOOR_MODE must be http or insert, not ${mode}`);

const client = mode === "insert" ? new pg.Client({ connectionString: process.env.DATABASE_URL }) : null;
if (client) {
  await client.connect();
  await client.query(
    "CREATE TABLE IF NOT EXISTS floor_messages (id bigserial PRIMARY KEY, address text NOT NULL, " +
      "message text NOT NULL, source text, sent_at timestamptz)",
  );
}

async function store(form: URLSearchParams): Promise<string> {
  if (!client) return "1";
  const { rows } = await client.query<{ id: string }>({
    name: "floor-insert",
    text: "INSERT INTO floor_messages (address, message, source, sent_at) VALUES ($1, $2, $3, to_timestamp($4)) RETURNING id",
    values: [form.get("address"), form.get("message"), form.get("source"), Number(form.get("datetime"))],
  });
  return rows[0]!.id;
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const answer = (status: number, text: string) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      res.end(text);
    };
    if (req.method !== "POST" || req.url !== "/api/messages") return answer(404, "not found");
    if (req.headers.apikey !== key) return answer(401, "unauthorized");
    const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
    if (!form.get("address") || !form.get("message")) return answer(400, "address and message are required");
    store(form).then(
      (id) => answer(200, id),
      (err: unknown) => answer(500, String(err)),
    );
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1");
