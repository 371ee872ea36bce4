// A webhook receiver as the standardwebhooks package's README shows it:
// node:http, Webhook.verify on the raw body and headers, then the event's
// effect. The effect is a settlement counted per event id, appended to a
// journal file in DATA_DIR and fsync'ed before the answer (so it survives
// a crash), and read back at GET /effects/:id (the spec's probe). It
// dedupes by webhook-id, checking and recording the id with no await in
// between (one Node thread: a concurrent copy sees the id). Variants:
// `-break no-dedupe` processes every verified delivery as the README's
// example does; `-break answer-first` answers 200 at once and records the
// settlement 100 ms later from memory, as "return 2xx quickly, process
// later" does without a durable queue. An invoice.updated event also sets
// its invoice's status (GET /invoices/:id), only when its timestamp (the
// Standard Webhooks payload's event time) is later than the one the
// status was set from; `-break last-write-wins` sets it from whichever
// event arrives last.
"use strict";
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const { Webhook, WebhookVerificationError } = require("standardwebhooks");

const breakName = process.argv.indexOf("-break") >= 0 ? process.argv[process.argv.indexOf("-break") + 1] : "";
const dedupe = breakName !== "no-dedupe";
const answerFirst = breakName === "answer-first";
const lastWriteWins = breakName === "last-write-wins";
const wh = new Webhook(process.env.WEBHOOK_SECRET);
const seen = new Set(); // event ids processed (or, answering first, accepted)
const effects = new Map(); // event id -> settlements recorded
const invoices = new Map(); // invoice -> { status, at: the event time (ms) it was set from }

// The journal of settlements, one JSON line each, read back at start.
const journal = path.join(process.env.DATA_DIR, "settlements.jsonl");
if (fs.existsSync(journal)) {
  for (const line of fs.readFileSync(journal, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const { id } = JSON.parse(line);
    seen.add(id);
    effects.set(id, (effects.get(id) || 0) + 1);
  }
}
const fd = fs.openSync(journal, "a");

// settle records one settlement of event id durably, then in memory.
function settle(id) {
  fs.writeSync(fd, JSON.stringify({ id }) + "\n");
  fs.fsyncSync(fd);
  effects.set(id, (effects.get(id) || 0) + 1);
}

// update sets the status of the invoice event is about, unless the status
// was set from a later event.
function update(event) {
  const { invoice, status } = event.data || {};
  const at = Date.parse(event.timestamp);
  const now = invoices.get(invoice);
  if (!lastWriteWins && now && !(at > now.at)) {
    return; // an earlier event, delivered late: the status already moved on
  }
  invoices.set(invoice, { status, at });
}

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
  if (event && event.type === "invoice.updated") {
    update(event);
  }
  if (answerFirst) {
    send(res, 200, { received: true, type: event && event.type });
    setTimeout(() => settle(id), 100); // the settlement of event.data.amount, later
    return;
  }
  settle(id); // the settlement of event.data.amount
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
  if (req.method === "GET" && url.pathname.startsWith("/invoices/")) {
    const inv = invoices.get(decodeURIComponent(url.pathname.slice("/invoices/".length)));
    return inv ? send(res, 200, { status: inv.status }) : send(res, 404, { error: "no such invoice" });
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
