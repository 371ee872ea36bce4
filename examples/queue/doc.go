// Package queue holds queue consumers on popular client libraries,
// certified by resilcheck's queue suite against the embedded NATS
// JetStream broker it starts, with expectations written from their code:
// nats-node (@nats-io/jetstream on Node). `go test ./examples/queue`
// certifies each variant.
package queue
