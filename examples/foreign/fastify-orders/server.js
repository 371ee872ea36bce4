// An order API on fastify, written the way its npm middleware's READMEs
// suggest: @fastify/rate-limit on the write route only, @node-idempotency/core
// (in-memory adapter) for Idempotency-Key, and got with retries for the call
// to the inventory service. Callers send their deadline the Envoy way, in
// x-envoy-upstream-rq-timeout-ms; the service forwards what is left of it.
//   PORT=8080 INVENTORY_URL=http://127.0.0.1:9091 node server.js
import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import got from 'got';
import { Idempotency, IdempotencyError, IdempotencyErrorCodes } from '@node-idempotency/core';
import { MemoryStorageAdapter } from '@node-idempotency/storage-adapter-memory';

const port = Number(process.env.PORT ?? 8080);
const inventory = process.env.INVENTORY_URL ?? 'http://127.0.0.1:9091';
const deadlineHeader = 'x-envoy-upstream-rq-timeout-ms';
const defaultBudgetMs = 5000; // for callers that send no deadline

const app = Fastify({ logger: false });
const idempotency = new Idempotency(new MemoryStorageAdapter(), {
  enforceIdempotency: true, // a POST without a key is refused
});

// got's documented retry knobs: POST is not retried unless listed; limit 4
// means five attempts; waits are 1 s·2ⁿ⁻¹ + up to 100 ms noise, capped.
const inventoryClient = got.extend({
  prefixUrl: inventory,
  timeout: { request: 2000 },
  retry: { limit: 4, methods: ['POST'], backoffLimit: 2000, maxRetryAfter: 5000 },
});

await app.register(rateLimit, { global: false });

const idempotencyStatus = {
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_LEN_EXEEDED]: 400,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_MISSING]: 400,
  [IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH]: 422,
  [IdempotencyErrorCodes.REQUEST_IN_PROGRESS]: 409,
};

app.get('/healthz', async () => ({ ok: true }));

let orders = 0;

app.post('/v1/orders', {
  config: {
    rateLimit: {
      max: 10,
      timeWindow: 1000,
      keyGenerator: (req) => req.headers['x-client-id'] ?? req.ip,
    },
  },
}, async (req, reply) => {
  const idem = { headers: req.headers, path: req.url, method: req.method, body: req.body };
  let replay;
  try {
    replay = await idempotency.onRequest(idem);
  } catch (err) {
    if (err instanceof IdempotencyError) {
      return reply.code(idempotencyStatus[err.code] ?? 400).send({ error: err.code, message: err.message });
    }
    throw err;
  }
  if (replay) {
    return reply.code(replay.additional.statusCode).send(replay.body);
  }
  const { statusCode, body } = await placeOrder(req);
  await idempotency.onResponse(idem, { body, additional: { statusCode } });
  return reply.code(statusCode).send(body);
});

// placeOrder reserves stock at the inventory service within the caller's
// budget and answers what the order API answers.
async function placeOrder(req) {
  const sent = Number(req.headers[deadlineHeader]);
  const budget = Number.isFinite(sent) && req.headers[deadlineHeader] !== undefined ? sent : defaultBudgetMs;
  if (budget <= 0) {
    return { statusCode: 504, body: { error: 'deadline exceeded' } };
  }
  const deadline = Date.now() + budget;
  try {
    const reservation = await inventoryClient.post('reservations', {
      json: { sku: 'book', quantity: req.body?.amount ?? 1 },
      headers: { 'idempotency-key': req.headers['idempotency-key'] },
      signal: AbortSignal.timeout(budget),
      hooks: {
        beforeRequest: [(options) => {
          options.headers[deadlineHeader] = String(Math.max(0, deadline - Date.now()));
        }],
      },
    }).json();
    orders += 1;
    return { statusCode: 201, body: { id: `ord_${orders}`, reservation } };
  } catch (err) {
    if (err.name === 'TimeoutError') { // the caller's budget or got's per-attempt timeout
      return { statusCode: 504, body: { error: 'deadline exceeded' } };
    }
    return { statusCode: 503, body: { error: 'inventory unavailable', detail: err.message } };
  }
}

await app.listen({ host: '127.0.0.1', port });
