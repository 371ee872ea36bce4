// Package expect reads expectations files: what a target must show on
// each check, and why, from the target's own code. Two formats share the
// name expectations.yaml: variants (Load: for each way of running a
// target, the checks that must fail, may fail, may decline, are
// inconclusive or not applicable; a check not named must pass), which the example targets
// and clients use, and per-check verdicts (LoadVerdicts: every check's
// verdict and, on a multi-tier target, the tier a failure is laid at),
// which the foreign zoo uses. LoadTarget reads either as what the target
// as written must show, for resilcheck matrix; either may name the
// versions it was read from and the seed its verdicts were decided at.
//
// Only a file whose target a test certifies by default should be written
// as proof: the check registry test counts a check as proven failing when
// some variant's must_fail names it.
package expect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/resilcheck/resilcheck/reports"
)

// FileName is the name every expectations file has.
const FileName = "expectations.yaml"

// File is one target's expectations.
type File struct {
	Path   string `yaml:"-"`
	Target string `yaml:"target"` // the target's name, as in its target.yaml
	// Versions name what the expectations were read from: each component
	// and library with its version (a matrix row shows them).
	Versions map[string]string `yaml:"versions"`
	// Seed is the seed the verdicts were decided at, where some check's
	// draw decides what it can see (which outage, which invalid value);
	// 0 when none does. A matrix certifies the target with it.
	Seed uint64 `yaml:"seed"`
	// Groups are lists of checks for variants to share (as YAML anchors).
	Groups   map[string][]string `yaml:"groups"`
	Variants []Variant           `yaml:"variants"` // in the order they are certified
}

// Variant is one way of running the target and what it must show.
type Variant struct {
	Name string `yaml:"name"`
	// Break is the service's switch (passed as -break); empty = correct.
	Break string `yaml:"break"`
	// Spec names a change to target.yaml that the target's test knows.
	Spec string `yaml:"spec"`
	// Why says what the variant changes, from the service's code.
	Why string `yaml:"why"`
	// Run lists the checks to run (certify.Config.Checks); empty = all.
	Run []string `yaml:"run"`
	// Check ID → why, from the service's code and the check's definition.
	MustFail map[string]string `yaml:"must_fail"`
	MayFail  map[string]string `yaml:"may_fail"`
	// MayDecline names checks that must not fail but may end inconclusive:
	// the target keeps the contract at the edge of what the check can
	// tell apart from breaking it, where the check declines to judge.
	MayDecline    map[string]string `yaml:"may_decline"`
	Inconclusive  map[string]string `yaml:"inconclusive"`
	NotApplicable map[string]string `yaml:"not_applicable"`
}

// Allowed returns the statuses check id may end with in this variant.
func (v Variant) Allowed(id string) []reports.Status {
	switch {
	case has(v.MustFail, id):
		return []reports.Status{reports.StatusFail}
	case has(v.MayFail, id):
		return []reports.Status{reports.StatusPass, reports.StatusFail}
	case has(v.MayDecline, id):
		return []reports.Status{reports.StatusPass, reports.StatusInconclusive}
	case has(v.Inconclusive, id):
		return []reports.Status{reports.StatusInconclusive}
	case has(v.NotApplicable, id):
		return []reports.Status{reports.StatusNotApplicable}
	}
	return []reports.Status{reports.StatusPass}
}

// WhyOf returns the reason the variant gives for check id's verdict, or "".
func (v Variant) WhyOf(id string) string {
	for _, m := range v.verdicts() {
		if w, ok := m[id]; ok {
			return w
		}
	}
	return ""
}

func (v Variant) verdicts() []map[string]string {
	return []map[string]string{v.MustFail, v.MayFail, v.MayDecline, v.Inconclusive, v.NotApplicable}
}

func has(m map[string]string, id string) bool { _, ok := m[id]; return ok }

// Load reads the expectations file at path and checks it against the
// registered check IDs: every named check exists, is named once per variant
// with a reason, and is among the variant's Run when Run is given; variant
// names are unique.
func Load(path string, ids []string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expect: %w", err)
	}
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("expect %s: %w", path, err)
	}
	f.Path = path
	if err := f.validate(ids); err != nil {
		return nil, fmt.Errorf("expect %s: %w", path, err)
	}
	return &f, nil
}

func (f *File) validate(ids []string) error {
	var errs []error
	if f.Target == "" {
		errs = append(errs, errors.New("no target"))
	}
	if len(f.Variants) == 0 {
		errs = append(errs, errors.New("no variants"))
	}
	seen := map[string]bool{}
	for _, v := range f.Variants {
		if v.Name == "" || seen[v.Name] {
			errs = append(errs, fmt.Errorf("variant %q: empty or repeated name", v.Name))
		}
		seen[v.Name] = true
		for _, id := range v.Run {
			if !slices.Contains(ids, id) {
				errs = append(errs, fmt.Errorf("variant %s: runs %s, which is not a check", v.Name, id))
			}
		}
		named := map[string]int{}
		for _, m := range v.verdicts() {
			for id, why := range m {
				named[id]++
				switch {
				case !slices.Contains(ids, id):
					errs = append(errs, fmt.Errorf("variant %s: %s is not a check", v.Name, id))
				case strings.TrimSpace(why) == "":
					errs = append(errs, fmt.Errorf("variant %s: %s has no why", v.Name, id))
				case len(v.Run) > 0 && !slices.Contains(v.Run, id):
					errs = append(errs, fmt.Errorf("variant %s: names %s, which it does not run", v.Name, id))
				}
			}
		}
		for id, n := range named {
			if n > 1 {
				errs = append(errs, fmt.Errorf("variant %s: %s has %d verdicts", v.Name, id, n))
			}
		}
	}
	return errors.Join(errs...)
}

// Find returns every expectations file under root that follows this
// format (it has a top-level "variants"); files of another format, such as
// the foreign zoo's per-check verdicts, are skipped and returned apart.
func Find(root string) (files, other []string, err error) {
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != FileName {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var top map[string]yaml.Node
		if err := yaml.Unmarshal(raw, &top); err != nil {
			return fmt.Errorf("expect %s: %w", path, err)
		}
		if _, ok := top["variants"]; ok {
			files = append(files, path)
		} else {
			other = append(other, path)
		}
		return nil
	})
	return files, other, err
}

// MustFail returns, for every check some variant of the files must fail,
// the variants ("target/variant") that show it.
func MustFail(files []*File) map[string][]string {
	out := map[string][]string{}
	for _, f := range files {
		for _, v := range f.Variants {
			for id := range v.MustFail {
				out[id] = append(out[id], f.Target+"/"+v.Name)
			}
		}
	}
	return out
}
