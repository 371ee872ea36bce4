package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// verboseFlag is the root's persistent --verbose (-v): one meaning, more
// diagnostics on stderr, whatever the command.
const verboseFlag = "verbose"

// verbose reports whether --verbose was given to cmd or an ancestor.
func verbose(cmd *cobra.Command) bool {
	f := cmd.Flag(verboseFlag)
	return f != nil && f.Value.String() == "true"
}

// reportDirFlag names the report directory on every command that writes
// one; --out (-o) is its deprecated alias.
const reportDirFlag = "report-dir"

// addReportDir registers --report-dir on f writing to p, and --out (with
// shorthand, if any) as a deprecated alias of it: cobra hides the alias and
// prints a notice when it is used.
func addReportDir(f *pflag.FlagSet, p *string, def, shorthand, usage string) {
	f.StringVar(p, reportDirFlag, def, usage)
	f.StringVarP(p, "out", shorthand, def, usage)
	_ = f.MarkDeprecated("out", "use --"+reportDirFlag)
}

// reportDirSet reports whether the user chose the report directory.
func reportDirSet(cmd *cobra.Command) bool {
	return cmd.Flags().Changed(reportDirFlag) || cmd.Flags().Changed("out")
}
