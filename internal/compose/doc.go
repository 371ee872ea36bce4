// Package compose provides kind compose: a docker-compose project as a
// target. resilcheck brings the project up, points the certified service's
// dependency URLs at its dependency proxies through variables the compose
// files interpolate, waits for health, certifies, and tears the project down
// with its volumes; every container's log is kept for a report that needs it.
//
// The Docker work happens in a helper program, resilcheck-compose (module
// compose/engine, built on testcontainers-go's compose module), which this
// package starts and drives over its stdin and stdout (see Request and
// Event). That keeps Docker's and compose's large dependency tree out of the
// resilcheck binary, as docker compose itself is a plugin of the docker CLI.
//
// A program includes kind compose by putting Kind in its table of kinds.
package compose
