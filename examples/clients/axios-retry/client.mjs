// One call through axios 1.21.1 with axios-retry 4.5.0, configured as its
// readme shows: retries and exponentialDelay on an instance with a timeout,
// every other axios-retry option left at its default.
//
// usage: node client.mjs METHOD URL header=KEY_HEADER key=KEY body=BODY
// (KEY and BODY may be empty). Exit 0 on a 2xx, 1 otherwise.
import axios from 'axios';
import axiosRetry from 'axios-retry';

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

// With shouldResetTimeout left false, axios-retry's handleRetry gives each
// retry what is left of this timeout after the attempts and waits so far,
// and gives up when nothing is: 10 s bounds the whole call, not one attempt.
const client = axios.create({timeout: 10_000});
axiosRetry(client, {
	retries: 3, // 4 attempts
	// 100 ms × 2^retry (200, 400, 800 ms), or Retry-After (seconds or a date)
	// when longer, plus 0–20 % at random.
	retryDelay: axiosRetry.exponentialDelay,
	// Defaults kept: retryCondition isNetworkOrIdempotentRequestError (a
	// network error other than a timeout, for any method, or a 429 or 5xx
	// to GET, HEAD, OPTIONS, PUT, DELETE), shouldResetTimeout false.
});

try {
	await client.request({method, url, headers, data: opts.body || undefined});
} catch (error) {
	console.error(`failed: ${error.code ?? ''} ${error.message}`);
	process.exit(1);
}
process.exit(0);
