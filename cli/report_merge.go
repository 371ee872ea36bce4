package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/resilcheck/resilcheck/load"
)

// mergeOpts are the flags of `report merge`.
type mergeOpts struct {
	output, encoding string
}

func newReportMergeCmd() *cobra.Command {
	var o mergeOpts
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge load result files from several machines into one vegeta report",
		Long: `merge reads result files written by "resilcheck load --output" (or vegeta) on
several machines, in any of vegeta's encodings (gob, json, csv, detected per
file), and prints one text report over all of them. --output also writes the
merged results to a file, in --encoding.

Machines' clocks must agree (NTP): the merged duration and rate come from
the earliest and latest timestamps of all files.`,
		Example: `  resilcheck report merge node-1.gob node-2.gob node-3.json
  resilcheck report merge node-*.gob --output all.csv --encoding csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.output, "output", "", "also write the merged results to this file")
	f.StringVar(&o.encoding, "encoding", "gob", "encoding of --output: gob, json or csv")
	_ = cmd.RegisterFlagCompletionFunc("encoding", cobra.FixedCompletions(load.Encodings, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *mergeOpts) run(cmd *cobra.Command, files []string) error {
	if !slices.Contains(load.Encodings, o.encoding) {
		return usagef("report merge: --encoding %q: want gob, json or csv", o.encoding)
	}
	var readers []*os.File
	defer func() {
		for _, f := range readers {
			f.Close()
		}
	}()
	streams := make([]io.Reader, 0, len(files))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return usagef("report merge: %w", err)
		}
		readers = append(readers, f)
		streams = append(streams, bufio.NewReader(f))
	}
	var each func(*vegeta.Result)
	var encErr error
	var bw *bufio.Writer
	var out *os.File
	if o.output != "" {
		var err error
		if out, err = os.Create(o.output); err != nil {
			return usagef("report merge: --output: %w", err)
		}
		defer out.Close()
		bw = bufio.NewWriter(out)
		enc, _ := load.NewEncoder(o.encoding, bw)
		each = func(r *vegeta.Result) {
			if encErr == nil {
				encErr = enc.Encode(r)
			}
		}
	}
	m, err := load.Merge(each, streams...)
	if err != nil {
		if errors.Is(err, load.ErrUnknownFormat) {
			return usagef("report merge: %w (files: %v)", err, files)
		}
		return fmt.Errorf("report merge: %w", err)
	}
	if bw != nil {
		if err := errors.Join(encErr, bw.Flush(), out.Close()); err != nil {
			return fmt.Errorf("report merge: --output: %w", err)
		}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "merged %d %s, %d results\n", len(files), pluralize(len(files), "file", "files"), m.Requests)
	return vegeta.NewTextReporter(&m).Report(cmd.OutOrStdout())
}
