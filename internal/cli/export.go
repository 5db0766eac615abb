package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/scenario"
)

const exportDoc = `Print the resolved scenario: the files unified with the schema, every
default filled in, as CUE, JSON or YAML, followed by its hash on stderr.

The hash is the SHA-256 of the scenario's canonical form (sorted JSON): the
same scenario always has the same hash, and any change of any field changes
it. Header values are printed as <redacted>.

--format argv prints the vllm bench serve command line that runs the scenario
(the flags that differ from vLLM's defaults), for scenarios that have one.`

const exportExamples = `  vbench export scenarios/quickstart.cue
  vbench export scenarios/kimi-8k.cue --format yaml --set load.num_prompts=100
  vbench export scenarios/kimi-8k.cue --format argv`

func newExportCmd(p Process) *cobra.Command {
	var sf scenarioFlags
	var format string
	cmd := &cobra.Command{
		Use:     "export FILE...",
		Short:   "Print the resolved scenario and its hash",
		Long:    exportDoc,
		Example: exportExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "cue", "json", "yaml", "argv":
			default:
				return usageErr(fmt.Errorf("--format %s: unknown format (want cue, json, yaml or argv)", format))
			}
			sc, err := sf.load(p, args)
			if err != nil {
				return err
			}
			var out []byte
			if format == "argv" {
				out, err = exportArgv(p, sc)
			} else {
				out, err = scenario.Export(sc.Redacted(), format)
			}
			if err != nil {
				return usageErr(err)
			}
			if _, err := p.Stdout.Write(out); err != nil {
				return err
			}
			_, err = fmt.Fprintf(p.Stderr, "hash: %s\n", sc.Hash())
			return err
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().StringVar(&format, "format", "cue", "output format: cue, json, yaml, or argv (the vllm bench serve command line)")
	return cmd
}
