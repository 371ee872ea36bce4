package matrix

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/expect"
	"github.com/resilcheck/resilcheck/reports"
	"github.com/resilcheck/resilcheck/targets"
)

// SpecFile is the name of a target's spec in a matrix directory.
const SpecFile = "target.yaml"

// PrepareFile is an optional script beside a target's spec that makes it
// ready to start (installing its locked packages, say). It runs once, in
// its directory, before the target's first certification.
const PrepareFile = "prepare.sh"

// System is one row to certify: a target's spec and what it must show.
type System struct {
	Name string
	Dir  string // the directory holding its spec and expectations
	Spec *targets.Target
	Want *expect.Target
	// IDs are the checks it is certified by: its expectations' run list
	// where they give one (in their order), else every check of its kind
	// in catalogue order.
	IDs []string
}

// Catalogue lists the checks a matrix can hold, by contract: the service
// suites for every kind but client, the client suites for kind client.
type Catalogue struct {
	Service, Client []check.Entry
}

// ids returns the check IDs a target of kind is certified by.
func (c Catalogue) ids(kind targets.Kind) []string {
	es := c.Service
	if kind == targets.KindClient {
		es = c.Client
	}
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// Discover finds the targets under roots: every directory (node_modules
// and hidden ones aside) holding a target.yaml and an expectations.yaml.
// A spec with no expectations beside it is returned in skipped; a spec or
// expectations file that does not load is an error naming it. Targets come
// sorted by name, and two with one name are an error. Specs are read
// with opts.
func Discover(roots []string, cat Catalogue, opts ...targets.Option) (systems []System, skipped []string, err error) {
	var errs []error
	seen := map[string]bool{}
	for _, root := range roots {
		werr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || d.Name() != SpecFile {
				return nil
			}
			dir := filepath.Dir(path)
			if abs, err := filepath.Abs(dir); err == nil {
				if seen[abs] { // roots that overlap find it twice
					return nil
				}
				seen[abs] = true
			}
			want := filepath.Join(dir, expect.FileName)
			if _, err := os.Stat(want); errors.Is(err, fs.ErrNotExist) {
				skipped = append(skipped, filepath.ToSlash(dir))
				return nil
			}
			s, err := load(dir, cat, opts)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			systems = append(systems, s)
			return nil
		})
		if werr != nil {
			errs = append(errs, fmt.Errorf("matrix: %w", werr))
		}
	}
	slices.SortFunc(systems, func(a, b System) int { return strings.Compare(a.Name, b.Name) })
	// Case folded: on macOS's and Windows' file systems Curl is curl.
	dirs := map[string]System{}
	for _, s := range systems {
		key := strings.ToLower(s.Slug())
		if o, ok := dirs[key]; ok {
			errs = append(errs, fmt.Errorf("matrix: targets %q (%s) and %q (%s) would share the report directory %s", o.Name, o.Dir, s.Name, s.Dir, s.Slug()))
		}
		dirs[key] = s
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return systems, skipped, nil
}

// load reads one target's spec and expectations.
func load(dir string, cat Catalogue, opts []targets.Option) (System, error) {
	spec, err := targets.Load(filepath.Join(dir, SpecFile), opts...)
	if err != nil {
		return System{}, err
	}
	ids := cat.ids(spec.Kind)
	want, err := expect.LoadTarget(filepath.Join(dir, expect.FileName), ids)
	if err != nil {
		return System{}, err
	}
	name := spec.Name
	if name == "" {
		name = filepath.Base(dir)
	}
	if want.Name != name {
		return System{}, fmt.Errorf("matrix: %s: the expectations are for %q, the spec names %q", dir, want.Name, name)
	}
	if len(want.Run) > 0 {
		ids = want.Run
	}
	return System{Name: name, Dir: dir, Spec: spec, Want: want, IDs: ids}, nil
}

// Slug is the name of s's report directory: its name with every character
// but ASCII letters, digits, '-', '_' and '.' replaced by '_', and never
// hidden, empty, a parent directory, one of the matrix's own files or a
// name Windows reserves (prefixed with '_'), so no spec's name can write
// its report outside the matrix's directory or over its pages.
func (s System) Slug() string {
	slug := reports.SafeName(s.Name, "-_.")
	if slug == "" || strings.HasPrefix(slug, ".") || strings.HasSuffix(slug, ".") || reserved(slug) {
		slug = "_" + slug
	}
	return slug
}

// reserved says whether slug names one of the matrix's own files, or a
// device or a name ending in '.' on Windows (where NUL.txt is NUL).
func reserved(slug string) bool {
	l := strings.ToLower(slug)
	switch l {
	case strings.ToLower(JSONFile), strings.ToLower(MarkdownFile), strings.ToLower(HTMLFile):
		return true
	}
	base, _, _ := strings.Cut(l, ".")
	switch base {
	case "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
		"lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9":
		return true
	}
	return false
}
