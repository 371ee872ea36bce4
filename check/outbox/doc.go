// Package outbox is the outbox suite: a service that publishes an event
// for each of its effects (the transactional outbox: the event written in
// the transaction of the effect, a relay publishing it) is judged from
// outside. resilcheck takes the broker down and crashes the service,
// withholds the broker's confirmation of a publish, and compares the
// events the broker stored with the effects the service made: no effect
// without its event, no event without its effect, and an event published
// again only under the same id.
package outbox
