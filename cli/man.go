package cli

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd writes man pages generated from the command tree; packagers
// run it at build time, so it is hidden from help.
func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write a man page per command (section 1) into DIR",
		Hidden:  true,
		Args:    cobra.ExactArgs(1),
		Example: `  resilcheck man ./man && man -l ./man/resilcheck-certify.1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			root.DisableAutoGenTag = true // no date line: the pages are reproducible
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return usagef("man: %w", err)
			}
			hdr := &doc.GenManHeader{Title: "RESILCHECK", Section: "1", Source: "resilcheck " + buildVersion(), Manual: "resilcheck manual"}
			if epoch, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
				// Reproducible builds date their artefacts so; the default is today.
				date := time.Unix(epoch, 0).UTC()
				hdr.Date = &date
			}
			if err := doc.GenManTree(root, hdr, args[0]); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote man pages to %s\n", args[0])
			return nil
		},
	}
}

// allCommands returns c and every command below it, hidden ones included.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}
