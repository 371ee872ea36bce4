// A webhook receiver as the standardwebhooks package's README shows it:
// node:http, Webhook.verify on the raw body and headers, then the event's
// effect. The effect is a settlement counted per event id, read back at
// GET /effects/:id (the spec's probe). It dedupes by webhook-id, checking
// and recording the id with no await in between (one Node thread: a
// concurrent copy sees the id), unless started with `-break no-dedupe`,
// which processes every verified delivery as the README's example does.
"use strict";
const http = require("node:http");
const { Webhook, WebhookVerificationError } = require("standardwebhooks");

const breakName = process.argv.indexOf("-break") >= 0 ? process.argv[process.argv.indexOf("-break") + 1] : "";
const dedupe = breakName !== "no-dedupe";
const wh = new Webhook(process.env.WEBHOOK_SECRET);
const seen = new Set(); // event ids processed
const effects = new Map(); // event id -> settlements recorded

function send(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}

function receive(req, res, body) {
  let event;
  try {
    event = wh.verify(body, req.headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError || err instanceof SyntaxError) {
      return send(res, 400, { error: err.message });
    }
    throw err;
  }
  const id = req.headers["webhook-id"];
  if (dedupe && seen.has(id)) {
    return send(res, 200, { received: true, duplicate: true });
  }
  seen.add(id);
  effects.set(id, (effects.get(id) || 0) + 1); // the settlement of event.data.amount
  send(res, 200, { received: true, type: event && event.type });
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (req.method === "GET" && url.pathname === "/healthz") {
    return send(res, 200, { status: "ok" });
  }
  if (req.method === "GET" && url.pathname.startsWith("/effects/")) {
    return send(res, 200, { count: effects.get(decodeURIComponent(url.pathname.slice("/effects/".length))) || 0 });
  }
  if (req.method === "POST" && url.pathname === "/webhooks") {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => receive(req, res, Buffer.concat(chunks)));
    return;
  }
  send(res, 404, { error: "not found" });
});
server.listen(Number(process.env.PORT), "127.0.0.1");
