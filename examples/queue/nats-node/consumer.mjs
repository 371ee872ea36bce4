// A NATS JetStream queue consumer on @nats-io/transport-node and
// @nats-io/jetstream 3.4.0: it binds to the durable pull consumer CONSUMER
// on STREAM (created beforehand, explicit ack, max_deliver MAX_DELIVER) and
// consume()s it one message at a time. Each message {"id", "amount"} is
// charged at LEDGER_URL/charges with the message's Nats-Msg-Id as its
// Idempotency-Key, kept in progress (+WPI every half ack_wait) while the
// charge is in flight, and acked only after a 2xx, the ack confirmed by the
// server (ackAck); any other answer or a fetch error naks it with a 200 ms
// delay. A message that is not JSON is nak'd the same way until its
// delivery count reaches MAX_DELIVER, when it is published, body and
// headers (Nats-Msg-Id included) as delivered, to DEAD_LETTER and
// terminated. GET /healthz answers 200 once consuming. `-break NAME` breaks
// one of those: ack-first (ack before the charge), fresh-key (a random
// Idempotency-Key per delivery), no-dead-letter (a poison message is nak'd
// on every delivery and never dead-lettered), retry-in-place (a poison
// message is parsed again in the handler, 200, 400 and 800 ms apart with
// +WPI before each wait, before it is nak'd or dead-lettered).
import http from "node:http";
import { randomUUID } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";

const at = process.argv.indexOf("-break");
const breakName = at >= 0 ? process.argv[at + 1] : "";
const BREAKS = ["", "ack-first", "fresh-key", "no-dead-letter", "retry-in-place"];
if (!BREAKS.includes(breakName)) {
  console.error(`consumer: unknown -break ${breakName}`);
  process.exit(2);
}

const env = (name, def) => {
  const v = process.env[name] ?? def;
  if (v === undefined || v === "") {
    console.error(`consumer: ${name} is not set`);
    process.exit(2);
  }
  return v;
};
const PORT = Number(env("PORT"));
const NATS_URL = env("NATS_URL");
const STREAM = env("STREAM");
const CONSUMER = env("CONSUMER");
const DEAD_LETTER = env("DEAD_LETTER");
const MAX_DELIVER = Number(env("MAX_DELIVER", "3"));
const LEDGER_URL = env("LEDGER_URL").replace(/\/+$/, "");
const NAK_DELAY = 200; // ms

const log = (...a) => console.error("consumer:", ...a);
let healthy = false;

// parse returns the message's order, or null when the body is poison (not
// JSON, or JSON that is not an object).
function parse(msg) {
  try {
    const v = JSON.parse(msg.string());
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

// charge posts the order's amount to the ledger once; true on a 2xx.
async function charge(key, order) {
  try {
    const res = await fetch(`${LEDGER_URL}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ amount: order.amount }),
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return res.ok;
  } catch (err) {
    log(`charge ${key}: ${err.message}`);
    return false;
  }
}

// ack acks msg and waits for the server's confirmation.
async function ack(msg) {
  try {
    await msg.ackAck();
  } catch (err) {
    // the server never confirmed: it redelivers after ack_wait and the
    // Idempotency-Key keeps the charge single
    log(`ack seq ${msg.seq}: ${err.message}`);
  }
}

async function handle(nc, msg) {
  const { deliveryCount } = msg.info;
  const msgId = msg.headers?.get("Nats-Msg-Id") || `${msg.info.stream}-${msg.seq}`;
  let order = parse(msg);
  for (let i = 0, wait = NAK_DELAY; order === null && breakName === "retry-in-place" && i < MAX_DELIVER; i++, wait *= 2) {
    msg.working(); // still in progress: no redelivery while we retry
    await new Promise((resolve) => setTimeout(resolve, wait));
    order = parse(msg);
  }
  if (order === null) {
    if (deliveryCount >= MAX_DELIVER && breakName !== "no-dead-letter") {
      nc.publish(DEAD_LETTER, msg.data, msg.headers ? { headers: msg.headers } : undefined);
      await nc.flush(); // the dead letter is at the server before the term
      msg.term("poison: body is not JSON");
      log(`seq ${msg.seq} (${msgId}) dead-lettered after ${deliveryCount} deliveries`);
    } else {
      msg.nak(NAK_DELAY);
      log(`seq ${msg.seq} (${msgId}) poison, delivery ${deliveryCount}: nak`);
    }
    return;
  }
  if (breakName === "ack-first") await ack(msg);
  const key = breakName === "fresh-key" ? randomUUID() : msgId;
  // while the charge is in flight, tell the server every half ack_wait that
  // the message is in progress (+WPI), so it is not redelivered behind a
  // slow ledger answer; a crashed process stops these and the server
  // redelivers ack_wait after the last one
  const progress = setInterval(() => msg.working(), ackWaitMs / 2);
  let ok;
  try {
    ok = await charge(key, order);
  } finally {
    clearInterval(progress);
  }
  if (ok) {
    if (breakName !== "ack-first") await ack(msg);
    log(`seq ${msg.seq} (${msgId}) charged with key ${key}, delivery ${deliveryCount}`);
  } else {
    if (breakName !== "ack-first") msg.nak(NAK_DELAY);
    log(`seq ${msg.seq} (${msgId}) charge failed, delivery ${deliveryCount}`);
  }
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (req.method === "GET" && url.pathname === "/healthz") {
    res.writeHead(healthy ? 200 : 503, { "content-type": "application/json" });
    return res.end(JSON.stringify({ status: healthy ? "ok" : "starting" }));
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: "not found" }));
});
server.listen(PORT, "127.0.0.1");

const nc = await connect({ servers: NATS_URL, name: "nats-node", maxReconnectAttempts: -1 });
nc.closed().then((err) => {
  log(`connection closed${err ? ": " + err.message : ""}`);
  process.exit(1);
});
const js = jetstream(nc);
const consumer = await js.consumers.get(STREAM, CONSUMER);
const ackWaitMs = Math.max((await consumer.info(true)).config.ack_wait / 1e6, 200); // nanos → ms
const messages = await consumer.consume();
healthy = true;
log(`consuming ${STREAM} > ${CONSUMER}${breakName ? ` (break ${breakName})` : ""}`);
try {
  for await (const msg of messages) {
    await handle(nc, msg);
  }
  log("consume ended");
} catch (err) {
  log(`consume failed: ${err.message}`);
}
process.exit(1);
