// Package outbox holds services that publish an event per effect through
// a transactional outbox built on popular libraries, certified by
// resilcheck's outbox suite against the embedded NATS JetStream broker it
// starts, with expectations written from the libraries' code:
// watermill-go (watermill's components/forwarder over watermill-sql in
// PostgreSQL, relayed by watermill-nats), a Go module of its own. `go test
// ./examples/outbox` certifies each variant.
package outbox
