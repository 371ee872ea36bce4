package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/reports"
)

// newReportCmd groups the commands that work on saved reports.
func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Render saved certification reports",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("report: missing subcommand\n\n%s", cmd.UsageString())
		},
	}
	cmd.AddCommand(newReportRenderCmd())
	cmd.AddCommand(newReportMergeCmd())
	return cmd
}

// renderOpts are the flags of `report render`.
type renderOpts struct {
	formats string
	out     string
}

func newReportRenderCmd() *cobra.Command {
	var opts renderOpts
	cmd := &cobra.Command{
		Use:   "render REPORT.json",
		Short: "Render a saved report.json as console, json, junit, md or html",
		Long: `Render a report written by certify in other formats. REPORT.json may be "-" for stdin.

Without --report-dir, exactly one format is written to stdout. With --report-dir DIR, the
file formats go to DIR (report.json, junit.xml, summary.md, report.html) and
console, if asked for, to stdout. The exit code is 0 whatever the verdict.`,
		Example: `  resilcheck report render resilcheck-report/report.json
  resilcheck report render resilcheck-report/report.json --format md >> "$GITHUB_STEP_SUMMARY"
  resilcheck report render resilcheck-report/report.json --format junit,html --report-dir rendered/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return renderReport(cmd, args[0], opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.formats, "format", "console", "comma-separated formats: "+strings.Join(reports.Writers(), ","))
	addReportDir(f, &opts.out, "", "", "directory to write file formats into (default: stdout, one format only)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reports.Writers(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagDirname(reportDirFlag)
	return cmd
}

// renderReport reads the report at path and writes the requested formats.
func renderReport(cmd *cobra.Command, path string, opts renderOpts) error {
	formats, err := reports.ParseFormats(opts.formats)
	if err != nil {
		return usagef("report render: --format: %w", err)
	}
	if opts.out == "" && len(formats) > 1 {
		return usagef("report render: --report-dir DIR is needed to render %d formats (stdout takes one)", len(formats))
	}
	rep, err := readReport(cmd.InOrStdin(), path)
	if err != nil {
		return usagef("report render: %w", err)
	}
	stdout := cmd.OutOrStdout()
	if opts.out == "" {
		w, _ := reports.WriterFor(formats[0]) // ParseFormats validated the name
		return w(stdout, rep)
	}
	if err := reports.WriteDir(opts.out, rep, formats); err != nil {
		return usagef("report render: --report-dir: %w", err)
	}
	for _, f := range formats {
		if name := reports.FileName(f); name != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", filepath.Join(opts.out, name))
		}
	}
	for _, f := range formats {
		if f == "console" {
			return reports.WriteConsole(stdout, rep)
		}
	}
	return nil
}

// readReport reads a report from path, or from stdin when path is "-".
func readReport(stdin io.Reader, path string) (*reports.Report, error) {
	if path == "-" {
		return reports.Read(stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep, err := reports.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}
