package targets

import "path/filepath"

// besideSpec is the file a spec names: name as written when absolute, else
// relative to dir (the spec's directory, or the one a field says its paths
// are relative to), so every path a spec holds resolves one way.
func besideSpec(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}
