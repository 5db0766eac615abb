package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

const vetDoc = `Check scenario files against vbench's schema without running them.

Errors name the file, line and column and the field path, and say what is
allowed; vet exits 2 when there is one. A compare gate must name a metric
that every run of the experiment produces (from the sources the scenario
enables); otherwise the error lists the metrics it can gate on. On success
it prints the scenario's hash.`

const vetExamples = `  vbench vet scenarios/quickstart.cue
  vbench vet base.cue overrides.yaml   # several files unify into one scenario
  vbench vet my.yaml --set load.num_prompts=10`

func newVetCmd(p Process) *cobra.Command {
	var sf scenarioFlags
	cmd := &cobra.Command{
		Use:     "vet FILE...",
		Short:   "Validate a scenario",
		Long:    vetDoc,
		Example: vetExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := sf.load(p, args)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(p.Stdout, "ok %s\n", sc.Hash())
			return err
		},
	}
	sf.register(cmd.Flags())
	return cmd
}
