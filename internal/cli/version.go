package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/version"
)

const versionDoc = `Print vbench's version, the Go version it was built with, and the platform.`

func newVersionCmd(p Process) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Long:    versionDoc,
		Example: "  vbench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(p.Stdout, version.String())
			return err
		},
	}
}
