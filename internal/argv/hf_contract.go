package argv

import (
	"maps"

	"github.com/vbench/vbench/internal/scenario"
)

// This file stands in for the hf entry of argvDatasets that the hf loader's
// branch (hf) writes, so that the blazedit flags have a dataset kind on
// this branch; it is deleted when the branches merge, and the loader's
// entry calls setBlazedit and takes blazeditValues (hf_blazedit.go).
var hfContractDataset = &argvDataset{
	name: "hf",
	dataset: func(n *namespace) scenario.Dataset {
		h := &scenario.HFDataset{FileOptions: scenario.FileOptions{Path: n.datasetPath}}
		setBlazedit(n, h)
		return scenario.Dataset{HF: h}
	},
	values: func() map[string]func(d scenario.Dataset) []string {
		v := map[string]func(d scenario.Dataset) []string{
			"--dataset-path": func(d scenario.Dataset) []string { return []string{d.HF.Path} },
		}
		maps.Copy(v, blazeditValues)
		return v
	}(),
}
