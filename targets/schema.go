package targets

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of a target spec, for editors
// (e.g. a yaml-language-server modeline). A test keeps it in sync with the
// Go structs. Callers must not modify it.
//
//go:embed schema.json
var Schema []byte
