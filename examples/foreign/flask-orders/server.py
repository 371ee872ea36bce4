"""An order API on Flask, put together from Debian bookworm's packages.

The way a Python team would assemble it from what apt gives them:

- Flask 2.2 for the routes, served by waitress (python3-waitress), the
  production WSGI server Flask's deployment docs list, with its defaults
  (4 worker threads);
- Flask-Limiter 3.3 (python3-flask-limiter, on the limits library) on the
  order route: 60 orders a minute per store, keyed by the X-Store-Id header,
  in-memory storage, with RATELIMIT_HEADERS_ENABLED so it sends its
  X-RateLimit-* fields and Retry-After; a JSON 429 body as its docs show;
- an Idempotency-Key required on POST /orders and handled by hand, as
  Debian has no package for it: a decorator looks the (store, key) up in a
  dict, runs the view, and keeps the answer (not a 5xx, so a failure can be
  retried) with a digest of the body, so a reused key with another body is
  refused with 422. Like most hand-written stores it has no in-flight
  marker: two copies of a request that arrive together both run the view;
- the payment provider called with requests (python3-requests) and
  urllib3's Retry mounted on the session, the usual recipe, with POST added
  to the retried methods because the provider deduplicates on the
  Idempotency-Key the service sends: a fresh UUID per order, kept across
  retries. timeout=5 bounds each connect and each read, not the call.

There is no deadline handling: the service reads no deadline header and
forwards none, and keeps working after its caller has gone.

    python3 server.py --port 8080 --payments http://127.0.0.1:9091
"""

import argparse
import functools
import hashlib
import logging
import threading
import uuid

import requests
from flask import Flask, jsonify, make_response, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry
from waitress import serve

ORDER_LIMIT = "60 per minute"  # per store
PAYMENTS_TIMEOUT = 5  # seconds, for the connect and for each read

app = Flask(__name__)
app.config.update(
    RATELIMIT_HEADERS_ENABLED=True,
    RATELIMIT_STORAGE_URI="memory://",
)
log = logging.getLogger("orders")


def store_id():
    """The store a request is made for: the rate limit's and the keys' scope."""
    return request.headers.get("X-Store-Id") or get_remote_address()


limiter = Limiter(store_id, app=app)


@app.errorhandler(429)
def ratelimit_handler(e):
    return make_response(jsonify(error=f"ratelimit exceeded {e.description}"), 429)


def payments_session():
    """A requests session that retries the provider the way urllib3 does."""
    retry = Retry(
        total=3,
        backoff_factor=0.5,
        status_forcelist=(429, 500, 502, 503, 504),
        # POST too: the provider deduplicates on our Idempotency-Key.
        allowed_methods=frozenset({"GET", "POST"}),
    )
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


payments = payments_session()
PAYMENTS_URL = "http://127.0.0.1:9091"

_keys_lock = threading.Lock()
_keys = {}  # (store, Idempotency-Key) -> (body digest, status, body)


def idempotent(view):
    """Replays the stored answer to a request whose Idempotency-Key was seen."""

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        key = request.headers.get("Idempotency-Key")
        if not key:
            return jsonify(error="an Idempotency-Key header is required"), 400
        scope = (store_id(), key)
        digest = hashlib.sha256(request.get_data()).hexdigest()
        with _keys_lock:
            saved = _keys.get(scope)
        if saved is not None:
            if saved[0] != digest:
                return jsonify(error="this Idempotency-Key was used with another request body"), 422
            return app.response_class(saved[2], status=saved[1], mimetype="application/json")
        response = make_response(view(*args, **kwargs))
        if response.status_code < 500:
            with _keys_lock:
                _keys[scope] = (digest, response.status_code, response.get_data())
        return response

    return wrapper


_orders = {}


@app.get("/health")
def health():
    return jsonify(status="ok")


@app.post("/orders")
@limiter.limit(ORDER_LIMIT)
@idempotent
def create_order():
    order = request.get_json(silent=True) or {}
    if not isinstance(order.get("amount"), int) or not order.get("currency"):
        return jsonify(error="amount (an integer) and currency are required"), 400
    order_id = uuid.uuid4().hex
    try:
        resp = payments.post(
            PAYMENTS_URL + "/v1/charges",
            json={"amount": order["amount"], "currency": order["currency"], "reference": order_id},
            headers={"Idempotency-Key": order_id},
            timeout=PAYMENTS_TIMEOUT,
        )
        resp.raise_for_status()
        charge = resp.json()
    except requests.HTTPError as exc:
        return jsonify(error="the payment provider refused the charge",
                       provider_status=exc.response.status_code), 502
    except requests.Timeout:
        return jsonify(error="the payment provider timed out"), 504
    except requests.RequestException as exc:
        log.warning("payment for order %s failed: %s", order_id, exc)
        return jsonify(error="the payment provider is unavailable"), 503
    _orders[order_id] = {"id": order_id, "amount": order["amount"], "currency": order["currency"],
                         "status": "paid", "charge": charge.get("id")}
    return jsonify(_orders[order_id]), 201


def main():
    global PAYMENTS_URL
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--payments", default=PAYMENTS_URL)
    args = ap.parse_args()
    PAYMENTS_URL = args.payments.rstrip("/")
    serve(app, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
