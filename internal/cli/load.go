package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/scenario"
)

// scenarioFlags are the flags every command that reads scenarios takes.
type scenarioFlags struct {
	sets []string
	tags []string
}

func (f *scenarioFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.sets, "set", nil, "override a field: `path=value` (e.g. load.num_prompts=10); repeatable")
	fs.StringArrayVarP(&f.tags, "tag", "t", nil, "set a CUE @tag: `name=value` (else $VBENCH_<NAME>); repeatable")
}

// load reads and validates the scenario files, refusing gates on metrics
// the runs will not produce at the metric's file:line:col
// (experiment.CheckMetrics), and checks that vbench can run them
// (experiment.Check); errors are usage errors.
func (f *scenarioFlags) load(p Process, files []string) (*scenario.Scenario, error) {
	tags := map[string]string{}
	for _, t := range f.tags {
		k, v, ok := strings.Cut(t, "=")
		if !ok || k == "" {
			return nil, usageErr(fmt.Errorf("--tag %q: want name=value", t))
		}
		tags[k] = v
	}
	note := func(msg string) { fmt.Fprintf(p.Stderr, "vbench: note: %s\n", msg) }
	sc, err := scenario.LoadFiles(files, scenario.Options{Sets: f.sets, Tags: tags, Env: p.Getenv, Check: experiment.CheckMetrics, Note: note})
	if err != nil {
		return nil, usageErr(err)
	}
	if err := experiment.Check(sc); err != nil {
		return nil, usageErr(err)
	}
	return sc, nil
}
