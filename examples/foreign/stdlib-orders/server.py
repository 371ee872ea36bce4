"""An order API on nothing but the Python standard library.

http.server with a thread per request, urllib for the call to the payment
provider. Idempotency keys are optional, as at Stripe: a request with
X-Idempotency-Key is processed once per (organisation, key) and replayed
after; one without is processed each time. Deadlines arrive and leave only
as gRPC's grpc-timeout (the service sits behind a gRPC-Web/Connect proxy).

    python3 server.py --port 8080 --provider http://127.0.0.1:9091

With --tls-cert and --tls-key it serves https instead (ssl from the
standard library too). An https provider is verified the way urllib always
does: ssl.create_default_context(), whose OpenSSL default paths honour
SSL_CERT_FILE.
"""

import argparse
import hashlib
import json
import random
import re
import ssl
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_BUDGET = 8.0  # seconds, for callers that send no grpc-timeout
ATTEMPTS = 3
BASE, CAP = 0.2, 2.0  # equal jitter: wait n in [v/2, v], v = min(CAP, BASE * 2**n)
RETRYABLE = {429, 502, 503, 504}
MAX_KEY = 255

GRPC_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
GRPC_TIMEOUT = re.compile(r"^(\d{1,8})([HMSmun])$")


def parse_grpc_timeout(value):
    """Seconds in a grpc-timeout value (PROTOCOL-HTTP2.md), or None."""
    m = GRPC_TIMEOUT.match(value or "")
    return int(m.group(1)) * GRPC_UNITS[m.group(2)] if m else None


class Keys:
    """Stored answers by (organisation, key); a key in flight is marked None."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = {}

    def begin(self, scope, digest):
        """Returns ("new", None), ("busy", None), ("mismatch", None) or ("replay", answer)."""
        with self.lock:
            if scope not in self.entries:
                self.entries[scope] = (digest, None)
                return "new", None
            stored_digest, answer = self.entries[scope]
            if stored_digest != digest:
                return "mismatch", None
            if answer is None:
                return "busy", None
            return "replay", answer

    def finish(self, scope, answer):
        with self.lock:
            digest, _ = self.entries[scope]
            self.entries[scope] = (digest, answer)

    def forget(self, scope):
        with self.lock:
            self.entries.pop(scope, None)


class Provider:
    """Calls the payment provider with retries inside the caller's deadline."""

    def __init__(self, url):
        self.url = url.rstrip("/") + "/payments"

    def charge(self, body, key, deadline):
        """Returns (status, body); raises TimeoutError when the deadline passes."""
        for attempt in range(ATTEMPTS):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("deadline exceeded")
            headers = {"Content-Type": "application/json",
                       "grpc-timeout": "%dm" % int(remaining * 1000)}
            if key:
                headers["Idempotency-Key"] = key
            req = urllib.request.Request(self.url, data=body, method="POST", headers=headers)
            retry_after = None
            try:
                with urllib.request.urlopen(req, timeout=remaining) as resp:
                    return resp.status, resp.read()
            except urllib.error.HTTPError as err:
                if err.code not in RETRYABLE or attempt == ATTEMPTS - 1:
                    return err.code, err.read()
                retry_after = err.headers.get("Retry-After")
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                if attempt == ATTEMPTS - 1:
                    raise
            wait = self.backoff(attempt, retry_after)
            if time.monotonic() + wait >= deadline:
                raise TimeoutError("deadline exceeded")
            time.sleep(wait)
        raise TimeoutError("no attempt left")

    @staticmethod
    def backoff(attempt, retry_after):
        # Retry-After in seconds is honoured; anything else falls back to
        # the backoff.
        try:
            return max(0.0, float(int(retry_after)))
        except (TypeError, ValueError):
            v = min(CAP, BASE * 2 ** attempt)
            return random.uniform(v / 2, v)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    keys = Keys()
    provider = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/health":
            return self.answer(200, {"status": "ok"})
        self.answer(404, {"error": "not found"})

    def do_POST(self):
        if self.path != "/orders":
            return self.answer(404, {"error": "not found"})
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        budget = parse_grpc_timeout(self.headers.get("grpc-timeout"))
        deadline = time.monotonic() + (DEFAULT_BUDGET if budget is None else budget)
        key = self.headers.get("X-Idempotency-Key")
        if key is None:
            return self.answer(*self.place(body, None, deadline))
        if not key or len(key) > MAX_KEY:
            return self.answer(400, {"error": {"type": "invalid_request_error",
                                               "message": "X-Idempotency-Key must be 1 to 255 characters"}})
        org = self.headers.get("X-Org", "")
        scope = (org, key)
        state, stored = self.keys.begin(scope, hashlib.sha256(body).hexdigest())
        if state == "mismatch":
            return self.answer(400, {"error": {"type": "idempotency_error",
                                               "message": "Keys are for one request body only"}})
        if state == "busy":
            return self.answer(409, {"error": {"type": "idempotency_error",
                                               "message": "A request with this key is in progress"}})
        if state == "replay":
            return self.answer(*stored, replayed=True)
        status, payload, extra = self.place(body, "%s:%s" % (org, key), deadline)
        if status >= 500:
            self.keys.forget(scope)  # a failure may be retried with the same key
        else:
            self.keys.finish(scope, (status, payload, extra))
        self.answer(status, payload, extra)

    def place(self, body, key, deadline):
        """Charges the order; returns (status, payload, extra headers)."""
        if deadline <= time.monotonic():
            return 504, {"error": "deadline exceeded"}, {}
        try:
            status, raw = self.provider.charge(body, key, deadline)
        except TimeoutError:
            return 504, {"error": "deadline exceeded"}, {}
        except OSError as err:
            return 503, {"error": "payment provider unavailable: %s" % err}, {"Retry-After": "2"}
        if status >= 500 or status == 429:
            return 503, {"error": "payment provider answered %d" % status}, {"Retry-After": "2"}
        if status >= 400:
            return 502, {"error": "payment provider refused the charge"}, {}
        try:
            charge = json.loads(raw or b"{}")
        except ValueError:
            charge = {}
        return 201, {"order": "accepted", "charge": charge}, {}

    def answer(self, status, payload, extra=None, replayed=False):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        if replayed:
            self.send_header("Idempotent-Replayed", "true")
        self.end_headers()
        self.wfile.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--provider", default="http://127.0.0.1:9091")
    ap.add_argument("--tls-cert", help="serve https with this certificate (PEM)")
    ap.add_argument("--tls-key", help="the certificate's private key (PEM)")
    args = ap.parse_args()
    Handler.provider = Provider(args.provider)
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        # The handshake happens on the first read, in the request's own
        # thread, so a slow client does not hold up accept.
        server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    server.serve_forever()


if __name__ == "__main__":
    main()
