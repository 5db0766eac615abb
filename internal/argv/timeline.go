package argv

import (
	"fmt"
	"math"
	"strings"

	"github.com/vbench/vbench/internal/py"
)

// parseITLThresholds reads --timeline-itl-thresholds as vLLM's main_async
// does: split at ",", each part read as Python's float (surrounding
// whitespace stripped), and exactly two of them. vLLM takes any float;
// vbench also wants them finite and >= 0, which is all a latency
// threshold can be (and all the scenario schema holds).
func parseITLThresholds(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for _, part := range parts {
		f, err := pyFloat(part)
		if err != nil {
			return nil, fmt.Errorf("could not convert string to float: %s", py.ReprString(strings.Trim(part, pySpace)))
		}
		out = append(out, f)
	}
	if len(out) != 2 {
		return nil, fmt.Errorf("expected 2 ITL threshold values, got %d", len(out))
	}
	for _, f := range out {
		if !(f >= 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("the thresholds must be finite numbers of milliseconds >= 0, got %s", formatFloat(f))
		}
	}
	return out, nil
}

// validateTimeline is vLLM's check of --timeline-itl-thresholds, made
// only with --plot-timeline (its error is vLLM's "Invalid
// --timeline-itl-thresholds format: ..."). Without --plot-timeline vLLM
// never reads the value, so vbench only warns that it has no effect.
func (p *parser) validateTimeline() error {
	n := p.ns
	_, err := parseITLThresholds(n.itlThresholds)
	given := p.raw["--timeline-itl-thresholds"]
	if !n.plotTimeline {
		if given != "" {
			p.warnings = append(p.warnings, "--timeline-itl-thresholds has no effect without --plot-timeline (as in vllm bench serve)")
		}
		return nil
	}
	if err != nil {
		if given == "" {
			given = "--timeline-itl-thresholds"
		}
		return flagErr(given, "invalid format: "+err.Error()+" (want two comma-separated thresholds in milliseconds, e.g. 25,50)")
	}
	return nil
}
