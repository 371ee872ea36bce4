package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/check"
)

func (a *app) newChecksCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List every check: ID, suite, level, title, what it needs and its source",
		Long: `List every check resilcheck runs, from the same suites the runner uses:
its ID, suite, level (MUST … CONVENTION), title, what the target must declare
for it to apply, and the public source of the rule. docs/checks.md is the md output.`,
		Example: `  resilcheck checks
  resilcheck checks --format json | jq -r '.checks[] | select(.level == "MUST") | .id'
  resilcheck checks --format md > docs/checks.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(check.CatalogueFormats(), format) {
				return usagef("checks: unknown --format %q (known: %s)", format, strings.Join(check.CatalogueFormats(), ", "))
			}
			return check.WriteCatalogue(cmd.OutOrStdout(), format, a.catalogued())
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: "+strings.Join(check.CatalogueFormats(), ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(check.CatalogueFormats(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
