package check

import (
	"errors"
	"fmt"
)

// Validate says what in suites a runner could not run as written: a suite
// without a name or two with one name; a check without an ID, title,
// source, valid level or Run, or listed by a suite it does not name; one
// with a negative Takes, or both Explores and RunWide; two
// checks with one ID; a need without a name, doc or Unmet. A team's suites
// are held to what the built-in ones keep.
func Validate(suites []Suite) error {
	var errs []error
	names, ids := map[string]bool{}, map[string]string{}
	for _, s := range suites {
		switch {
		case s.Name == "":
			errs = append(errs, fmt.Errorf("a suite has no name (its checks: %d)", len(s.Checks)))
		case names[s.Name]:
			errs = append(errs, fmt.Errorf("suite %s is listed twice", s.Name))
		}
		names[s.Name] = true
		for _, c := range s.Checks {
			if prev, ok := ids[c.ID]; ok && c.ID != "" {
				errs = append(errs, fmt.Errorf("check %s is in suites %s and %s", c.ID, prev, s.Name))
			}
			ids[c.ID] = s.Name
			switch {
			case c.ID == "" || c.Title == "" || c.Source == "" || c.Run == nil:
				errs = append(errs, fmt.Errorf("check %q of suite %s lacks an ID, title, source or Run", c.ID, s.Name))
			case c.Suite != s.Name:
				errs = append(errs, fmt.Errorf("check %s says suite %q but suite %s lists it", c.ID, c.Suite, s.Name))
			case !c.Level.Valid():
				errs = append(errs, fmt.Errorf("check %s has level %q, not one of MUST … CONVENTION", c.ID, c.Level))
			case c.Takes < 0:
				errs = append(errs, fmt.Errorf("check %s takes %s, a negative time", c.ID, c.Takes))
			case c.Explores && c.RunWide:
				errs = append(errs, fmt.Errorf("check %s both explores (on copies of its own) and runs wide (alone, over every copy's exchanges)", c.ID))
			}
			for _, n := range c.Needs {
				if n.Name == "" || n.Doc == "" || n.Unmet == nil {
					errs = append(errs, fmt.Errorf("check %s has a need without a name, doc or Unmet", c.ID))
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("check: invalid suites: %w", err)
	}
	return nil
}
