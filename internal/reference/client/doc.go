// Package client is the Go SDK for the reference payments gateway, written
// to show how a client should retry:
//
//   - one Idempotency-Key per logical operation, a random UUID sent as an
//     RFC 8941 string and reused on every attempt, never for another payload;
//   - retries only what may succeed unchanged: transport errors, attempt
//     timeouts, 409 (the first request is still in progress), 429 and 5xx;
//     never another 4xx;
//   - exponential backoff with full jitter from a seeded source, waiting at
//     least Retry-After (delay-seconds or any HTTP-date form) and giving up
//     at once when Retry-After is longer than the client will wait;
//   - an overall deadline over all attempts and waits, and a per-attempt
//     timeout, both sent to the server in X-Request-Timeout-Ms.
//
// Usage:
//
//	c, err := client.New("http://127.0.0.1:8080",
//		client.WithTenant("acme"),
//		client.WithDeadline(5*time.Second))
//	if err != nil {
//		return err
//	}
//	p, err := c.CreatePayment(ctx, client.PaymentRequest{Amount: 1000, Currency: "EUR"})
//	var se *client.StatusError
//	var re *client.RetryError
//	switch {
//	case err == nil:
//		log.Printf("payment %s %s", p.ID, p.Status)
//	case errors.As(err, &re):
//		// Outcome unknown (deadline, attempts exhausted, long Retry-After):
//		// retry later with the same request and Key: re.Key.
//	case errors.As(err, &se):
//		// The server refused the request (e.g. 402 declined); se.Problem says why.
//	}
//
// NextDelay is the pure backoff function the client uses; it is exported so
// its bounds can be checked and reused.
package client
