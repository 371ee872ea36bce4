// payments-node is a gRPC payments service certified by resilcheck
// (examples/grpc): @grpc/grpc-js 1.14.7 serving payments.v1.Payments over
// h2c, loaded from payments.proto by @grpc/proto-loader 0.8.1, with a
// unary CreatePayment that dedupes by the idempotency-key metadata and
// charges through an HTTP ledger with Node's fetch. -break selects a defect:
//
//   node server.mjs -addr 127.0.0.1:8080 -ledger http://127.0.0.1:9090 [-break NAME]
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { HealthImplementation } from 'grpc-health-check';
import { fileURLToPath } from 'node:url';

// The defects -break selects.
const NO_DEDUPE = 'no-dedupe'; // no key store: every call charges and answers with a new payment id
const NO_FORWARD_KEY = 'no-forward-key'; // the charge reaches the ledger without Idempotency-Key

// flags reads Go-style flags (-name value or --name value), as the
// harness appends -break NAME to the command.
function flags(argv, defaults) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--?/, '');
    if (name === argv[i] || !(name in defaults) || i + 1 >= argv.length) {
      console.error(`usage: node server.mjs [-addr HOST:PORT] [-ledger URL] [-break ${NO_DEDUPE}|${NO_FORWARD_KEY}] (bad argument ${JSON.stringify(argv[i])})`);
      process.exit(2);
    }
    out[name] = argv[++i];
  }
  return out;
}

const opts = flags(process.argv.slice(2), { addr: '127.0.0.1:8080', ledger: 'http://127.0.0.1:9090', break: '' });
if (![ '', NO_DEDUPE, NO_FORWARD_KEY ].includes(opts.break)) {
  console.error(`unknown -break ${JSON.stringify(opts.break)}`);
  process.exit(2);
}
const brk = opts.break;
const ledger = opts.ledger.replace(/\/+$/, '');

// int64 fields as JS numbers: the amounts the harness sends are small.
const definition = protoLoader.loadSync(fileURLToPath(new URL('payments.proto', import.meta.url)), {
  keepCase: true,
  longs: Number,
  defaults: true,
});
const paymentsV1 = grpc.loadPackageDefinition(definition).payments.v1;

// keys holds each (tenant, key)'s payment: in flight until done is set,
// then its first answer, replayed to every retry with the same request.
// The handler runs on the one event loop and does not await between
// looking a key up and claiming it, so no lock is needed.
const keys = new Map(); // scope → { fingerprint, done, resp }
let seq = 0;

function first(values) {
  return values.length > 0 ? String(values[0]) : '';
}

function failure(code, details) {
  return { code, details };
}

// createPayment charges request.amount once per (x-tenant-id,
// idempotency-key): a retry of a completed payment gets the stored answer,
// a copy arriving while it is in flight ABORTED, the key with another
// request FAILED_PRECONDITION, a call without a key INVALID_ARGUMENT.
function createPayment(call, callback) {
  const key = first(call.metadata.get('idempotency-key'));
  if (key === '') {
    callback(failure(grpc.status.INVALID_ARGUMENT, 'the idempotency-key metadata is required'));
    return;
  }
  const tenant = first(call.metadata.get('x-tenant-id'));
  const scope = tenant === '' ? key : `${tenant}/${key}`;
  const req = call.request;
  if (brk === NO_DEDUPE) {
    charge(scope, req).then((resp) => callback(null, resp), (err) => callback(err));
    return;
  }
  const fingerprint = `${req.amount}/${req.currency}`;
  const seen = keys.get(scope);
  if (seen !== undefined) {
    if (seen.fingerprint !== fingerprint) {
      callback(failure(grpc.status.FAILED_PRECONDITION, 'the idempotency key was used with another request'));
    } else if (!seen.done) {
      callback(failure(grpc.status.ABORTED, 'a request with this idempotency key is in flight'));
    } else {
      callback(null, seen.resp);
    }
    return;
  }
  const entry = { fingerprint, done: false, resp: null };
  keys.set(scope, entry);
  charge(scope, req).then(
    (resp) => {
      entry.done = true;
      entry.resp = resp;
      callback(null, resp);
    },
    (err) => {
      // Nothing stored: a retry charges again, under the same key, so
      // the ledger counts it once.
      keys.delete(scope);
      callback(err);
    },
  );
}

// charge posts the payment to the ledger, forwarding scope as its
// Idempotency-Key (but under no-forward-key). It does not follow the
// call's cancellation: a charge once started runs to its end.
async function charge(scope, req) {
  seq += 1;
  const resp = { id: `pay_${seq}`, amount: req.amount, currency: req.currency };
  const headers = { 'Content-Type': 'application/json' };
  if (brk !== NO_FORWARD_KEY) {
    headers['Idempotency-Key'] = scope;
  }
  let res;
  try {
    res = await fetch(`${ledger}/entries`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ payment: resp.id, amount: req.amount, currency: req.currency }),
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
  } catch (err) {
    throw failure(grpc.status.UNAVAILABLE, `ledger: ${err.cause?.message ?? err.message}`);
  }
  if (!res.ok) {
    throw failure(grpc.status.UNAVAILABLE, `ledger answered ${res.status}`);
  }
  return resp;
}

// The server's health, by the gRPC Health Checking Protocol as grpc-node's
// own grpc-health-check serves it (gRFC L106): the whole server ('') is
// NOT_SERVING until it is bound, then SERVING. resilcheck waits on it
// (target.yaml's service.health).
const healthImpl = new HealthImplementation({ '': 'NOT_SERVING' });

const server = new grpc.Server();
server.addService(paymentsV1.Payments.service, { CreatePayment: createPayment });
healthImpl.addToServer(server);
server.bindAsync(opts.addr, grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`payments-node: ${err.message}`);
    process.exit(1);
  }
  healthImpl.setStatus('', 'SERVING');
  console.log(`payments-node listening on ${opts.addr} (port ${port}, h2c gRPC, break=${JSON.stringify(brk)})`);
});
