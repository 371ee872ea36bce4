// Package queue is the queue-consumer suite: resilcheck publishes to the
// broker the target consumes from, redelivers a message id, kills the
// consumer between its effect and its ack and on its way to the effect,
// and sends a poison message. It judges one effect per message id, no
// message lost to a crash, and a poison message dead-lettered after the
// declared deliveries, from the broker's journal and the target's effects.
package queue
