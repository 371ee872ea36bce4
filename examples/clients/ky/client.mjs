// One call through ky 1.14.3's retry, configured as a team typically does:
// a per-request timeout, a few more retries than the default and a cap on
// the backoff, the rest of retry left at ky's defaults, and a signal that
// bounds the whole call.
//
// usage: node client.mjs METHOD URL header=KEY_HEADER key=KEY body=BODY
// (KEY and BODY may be empty). Exit 0 on a 2xx, 1 otherwise.
import ky from 'ky';

const [method, url, ...rest] = process.argv.slice(2);
const opts = Object.fromEntries(rest.map(arg => {
	const i = arg.indexOf('=');
	return [arg.slice(0, i), arg.slice(i + 1)];
}));
const headers = {};
if (opts.key) {
	headers[opts.header] = opts.key;
}
if (opts.body) {
	headers['content-type'] = 'application/json';
}

try {
	await ky(url, {
		method,
		headers,
		body: opts.body || undefined,
		// Per attempt: Ky.#fetch starts a new timer for every attempt, although
		// the readme says "including any retries" (sindresorhus/ky#784, fixed
		// only in 2.x by #825). So the whole call is bounded by the signal below.
		timeout: 2000,
		// The whole call, waits included: Ky.#retry's delay() listens to the
		// caller's signal, and every attempt's fetch is given it too.
		signal: AbortSignal.timeout(10_000),
		retry: {
			limit: 3, // 4 attempts
			// 0.3 s doubling (retry.delay's default), never over 3 s.
			backoffLimit: 3000,
			// Left at ky's defaults (utils/normalize.js defaultRetryOptions):
			// methods get, put, head, delete, options, trace (no POST);
			// statusCodes 408, 413, 429, 500, 502, 503, 504;
			// afterStatusCodes 413, 429, 503, whose Retry-After (seconds or a
			// date, Date.parse) is waited out, with maxRetryAfter unset (the
			// signal above bounds a long one); jitter unset (none);
			// retryOnTimeout false (a timed-out attempt is not retried).
		},
	});
} catch (error) {
	console.error(`failed: ${error}`);
	process.exit(1);
}
process.exit(0);
