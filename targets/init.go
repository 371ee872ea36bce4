package targets

import _ "embed"

// InitTemplate is the commented starting spec `resilcheck target init`
// writes: a kind-running target that passes validation as it stands. Callers
// must not modify it.
//
//go:embed init.yaml
var InitTemplate []byte
