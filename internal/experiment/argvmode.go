package experiment

import (
	"github.com/vbench/vbench/internal/report"
)

// ArgvMode makes a run write what `vllm bench serve` writes for the same
// command line (vbench serve): the result JSON has exactly vLLM's keys, with
// the --metadata keys in command-line order, and no per-request records
// file, unless Extras asks for vbench's additions.
type ArgvMode struct {
	// Extras (vbench serve --vbench-extras) adds the "vbench" object to the
	// result JSON and writes the per-request records when
	// output.records is set, as vbench run does.
	Extras bool
	// MetadataOrder is the order the --metadata keys were given in, which
	// the scenario's metadata map does not keep. Keys missing from it
	// follow in sorted order.
	MetadataOrder []string
}

// extras reports whether vbench's additions (the "vbench" object and the
// records file) are written: always outside argv mode.
func (m *ArgvMode) extras() bool { return m == nil || m.Extras }

// vbenchObject is the "vbench" value of the result JSON: info, or nil (no
// key) in argv mode without extras.
func (m *ArgvMode) vbenchObject(info *vbenchInfo) any {
	if !m.extras() {
		return nil
	}
	return info
}

// metadata orders the result's metadata: command-line order in argv
// mode, then the remaining keys sorted.
func (m *ArgvMode) metadata(md map[string]string) []report.Metadata {
	sorted := metadata(md)
	if m == nil || len(m.MetadataOrder) == 0 {
		return sorted
	}
	out := make([]report.Metadata, 0, len(sorted))
	placed := map[string]bool{}
	for _, k := range m.MetadataOrder {
		if v, ok := md[k]; ok && !placed[k] {
			out = append(out, report.Metadata{Key: k, Value: v})
			placed[k] = true
		}
	}
	for _, kv := range sorted {
		if !placed[kv.Key] {
			out = append(out, kv)
		}
	}
	return out
}
