// Package engine brings docker-compose projects up and down for resilcheck's
// kind compose, with testcontainers-go's compose module (compose runs in
// process: an engine is needed, the docker compose CLI plugin is not), and
// serves the protocol of package compose as the resilcheck-compose helper.
//
// It is its own Go module so that compose's large dependency tree stays out
// of the resilcheck binary and its default build and tests.
package engine
