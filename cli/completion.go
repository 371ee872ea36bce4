package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/internal/reference/defect"
)

// completeDefects completes --defect with the reference's defect names,
// each described by what it breaks.
func completeDefects(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, d := range defect.All() {
		out = append(out, cobra.CompletionWithDesc(string(d.Name), d.Breaks))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSuites completes --suite with the suite names.
func (a *app) completeSuites(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return check.SuiteNames(a.suites()), cobra.ShellCompDirectiveNoFileComp
}

// completeChecks completes --check with check IDs and titles, from the
// suites already chosen with --suite (every suite when none is).
func (a *app) completeChecks(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	chosen, _ := cmd.Flags().GetStringArray("suite")
	checks, err := check.Select(a.suites(), chosen...)
	if err != nil {
		checks, _ = check.Select(a.suites())
	}
	var out []cobra.Completion
	for _, c := range checks {
		// IDs are matched without regard to case, so complete them so too.
		if strings.HasPrefix(strings.ToUpper(c.ID), strings.ToUpper(toComplete)) {
			out = append(out, cobra.CompletionWithDesc(c.ID, c.Title))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
