package argv

import (
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// The hf blazedit dataset's flags (vLLM's BlazeditDataset, whose rows carry
// their normalized edit distance): the hf entry of argvDatasets builds them
// into its dataset with setBlazedit and formats them with blazeditValues.

// setBlazedit sets h's distance window from --blazedit-min-distance and
// --blazedit-max-distance.
func setBlazedit(n *namespace, h *dataset.HFSpec) {
	h.BlazeditMinDistance, h.BlazeditMaxDistance = n.blazeditMinDistance, n.blazeditMaxDistance
}

// blazeditValues are the values of the blazedit flags for an hf dataset,
// none at vLLM's defaults (0 and 1).
var blazeditValues = map[string]func(d scenario.Dataset) []string{
	"--blazedit-min-distance": func(d scenario.Dataset) []string {
		return nonDefaultFloat(as[dataset.HFSpec](d).BlazeditMinDistance, 0)
	},
	"--blazedit-max-distance": func(d scenario.Dataset) []string {
		return nonDefaultFloat(as[dataset.HFSpec](d).BlazeditMaxDistance, 1)
	},
}

// nonDefaultFloat is the value of a float flag, nil at vLLM's default def
// (Format leaves it out).
func nonDefaultFloat(v, def float64) []string {
	if v == def {
		return nil
	}
	return []string{formatFloat(v)}
}
