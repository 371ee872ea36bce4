// Package targets reads and checks target specs: the YAML file describing
// the service resilcheck certifies, decoded strictly, validated with every
// problem at its line and column (*SpecError), defaulted, and described by a
// JSON Schema. Bringing a target up is package internal/launch's business.
//
//	t, err := targets.Load("target.yaml", targets.WithChecks(ids))
//
// Kinds running and process are read here; other kinds (reference,
// compose, client) complete and check their own specs through a KindSpec
// the caller gives with WithKinds. Nothing registers itself: a spec is
// judged by its options alone, so without WithChecks a waiver's check is
// checked for its shape only.
package targets
