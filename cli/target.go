package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/resilcheck/resilcheck/targets"
)

func (a *app) newTargetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "target",
		Short: "Write, check and describe target specs (the service to certify)",
		Long: `A target spec (YAML) describes the service resilcheck certifies: how to reach
or start it, the operations to exercise, the dependencies it calls, how side
effects are counted, tenancy and conventions. Start with "resilcheck target
init target.yaml", edit it, check it with "resilcheck target validate
target.yaml", then run "resilcheck certify -f target.yaml".`,
		Args: cobra.NoArgs, // so that "target bogus" is an unknown-command usage error
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newTargetValidateCmd(), newTargetInitCmd(), newTargetSchemaCmd())
	return cmd
}

func (a *app) newTargetValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check target specs; print FILE: ok (kind KIND) or each problem as FILE:LINE:COL",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			out := cmd.OutOrStdout()
			invalid := 0
			for _, file := range files {
				t, err := targets.Load(file, a.specOptions()...)
				var se *targets.SpecError
				switch {
				case err == nil:
					fmt.Fprintf(out, "%s: ok (kind %s)\n", file, t.Kind)
				case errors.As(err, &se):
					invalid++
					for _, line := range se.Lines() {
						fmt.Fprintln(out, line)
					}
				default:
					return err
				}
			}
			if invalid > 0 {
				return usagef("target validate: invalid: %d of %d %s", invalid, len(files), pluralize(len(files), "spec", "specs"))
			}
			return nil
		},
	}
}

func newTargetInitCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented starting target spec (to stdout without FILE)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				_, err := cmd.OutOrStdout().Write(targets.InitTemplate)
				return err
			}
			if err := writeNew(args[0], targets.InitTemplate, force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s; edit it, then: resilcheck target validate %[1]s\n", args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite FILE if it exists")
	return cmd
}

// writeNew writes data to a new file, refusing to replace one unless force.
func writeNew(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return usagef("target init: %s already exists; use --force to overwrite it", path)
	}
	if err != nil {
		return usagef("target init: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("target init: %w", err)
	}
	return f.Close()
}

func newTargetSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of target specs, for editors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(targets.Schema)
			return err
		},
	}
}

func pluralize(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
