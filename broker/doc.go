// Package broker runs the message broker a queue-consumer target reads
// from, an embedded NATS JetStream server on loopback, and journals what
// crosses it: each publish, each acknowledgement the consumer sends
// (which names the delivery it answers), each message it dead-letters,
// and each message the broker gave up on. The journal is what the queue
// suite judges, as the fault proxies' journal is for HTTP. Deliveries
// themselves are not journaled: they go to the consumer's own inbox, and
// a subscription there would keep a crashed consumer's pull requests
// alive (the server drops a pull request whose inbox has no interest).
package broker
