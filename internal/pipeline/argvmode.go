package pipeline

import "encoding/json"

// ArgvMode makes a run write what `vllm bench serve` writes for the same
// command line (vbench serve): the result JSON has exactly vLLM's keys and no
// per-request records file, unless Extras asks for vbench's additions. (The
// --metadata keys keep command-line order in every mode: the scenario's
// metadata is ordered.)
type ArgvMode struct {
	// Extras (vbench serve --vbench-extras) adds the "vbench" object to the
	// result JSON and writes the per-request records when
	// output.records is set, as vbench run does.
	Extras bool
}

// extras reports whether vbench's additions (the "vbench" object and the
// records file) are written: always outside argv mode.
func (m *ArgvMode) extras() bool { return m == nil || m.Extras }

// vbenchObject is the "vbench" value of the result JSON: info, or nil (no
// key) in argv mode without extras.
func (m *ArgvMode) vbenchObject(info *vbenchInfo) json.Marshaler {
	if !m.extras() {
		return nil
	}
	return info
}
