// A webhook sender as the standardwebhooks and p-retry READMEs compose
// it: POST /orders creates an order (201) and then delivers an
// order.created event to WEBHOOK_URL, signed by Webhook.sign per attempt
// (a fresh timestamp, the same msg id and body), inside pRetry with
// 3 retries waiting 200 ms, 400 ms, 800 ms stretched by p-retry's
// randomize, a 410 Gone ending delivery (AbortError) and a 429 or 503's
// Retry-After slept in onFailedAttempt before p-retry's own delay. `-break
// NAME` breaks one of those: no-randomize (p-retry's default, randomize:
// false), retry-gone (410 retried like any failure), ignore-retry-after,
// follow-redirects (fetch's default, redirect: "follow", where the sender
// asks for "manual": a redirect is an answer, not 2xx, so a failure).
import http from "node:http";
import { randomUUID } from "node:crypto";
import pRetry, { AbortError } from "p-retry";
import { Webhook } from "standardwebhooks";

const at = process.argv.indexOf("-break");
const breakName = at >= 0 ? process.argv[at + 1] : "";
const wh = new Webhook(process.env.WEBHOOK_SECRET);
const endpoint = process.env.WEBHOOK_URL + "/hooks";
const orders = new Map(); // Idempotency-Key -> orders created with it (the spec's probe)

function send(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

// retryAfter is a 429's or 503's Retry-After in ms (delay-seconds only), or 0.
function retryAfter(res) {
  if (res.status !== 429 && res.status !== 503) return 0;
  const s = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}

// attempt posts the event once, signed now; any answer but a 2xx throws.
async function attempt(id, payload) {
  const now = new Date();
  const res = await fetch(endpoint, {
    method: "POST",
    body: payload,
    signal: AbortSignal.timeout(1000),
    redirect: breakName === "follow-redirects" ? "follow" : "manual",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": wh.sign(id, now, payload),
    },
  });
  await res.arrayBuffer();
  if (res.ok) return;
  if (res.status === 410 && breakName !== "retry-gone") {
    throw new AbortError(`endpoint gone (410)`);
  }
  const err = new Error(`endpoint answered ${res.status}`);
  err.retryAfter = retryAfter(res);
  throw err;
}

function deliver(order) {
  const id = "msg_" + order.id;
  const payload = JSON.stringify({ type: "order.created", timestamp: new Date().toISOString(), data: order });
  pRetry(() => attempt(id, payload), {
    retries: 3,
    minTimeout: 200,
    factor: 2,
    randomize: breakName !== "no-randomize",
    onFailedAttempt: async ({ error }) => {
      if (error.retryAfter && breakName !== "ignore-retry-after") {
        await new Promise((r) => setTimeout(r, error.retryAfter));
      }
    },
  }).catch(() => {}); // given up: the event is dropped
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (req.method === "GET" && url.pathname === "/healthz") {
    return send(res, 200, { status: "ok" });
  }
  if (req.method === "GET" && url.pathname === "/orders/count") {
    return send(res, 200, { count: orders.get(url.searchParams.get("key")) || 0 });
  }
  if (req.method === "POST" && url.pathname === "/orders") {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let amount;
      try {
        amount = JSON.parse(Buffer.concat(chunks).toString()).amount;
      } catch {
        return send(res, 400, { error: "the body must be JSON" });
      }
      const key = req.headers["idempotency-key"] || "";
      const order = { id: randomUUID(), amount };
      orders.set(key, (orders.get(key) || 0) + 1);
      send(res, 201, order);
      deliver(order);
    });
    return;
  }
  send(res, 404, { error: "not found" });
});
server.listen(Number(process.env.PORT), "127.0.0.1");
