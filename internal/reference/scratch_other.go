//go:build !linux

package reference

// scratchRoot is where a stack's throwaway store goes: os.TempDir, as no
// memory-backed directory is known on this system.
func scratchRoot() string { return "" }
