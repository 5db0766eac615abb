package argv

// validateTimedTrace applies vLLM's checks of the timed_trace flags:
// --self-timed and --no-self-timed only with --dataset-name timed_trace
// (the trace file is its table entry's pathHint). With a self-timed replay (the default) the arrival
// flags have no effect, as in vLLM, and a warning says so.
func (p *parser) validateTimedTrace() error {
	n := p.ns
	if n.datasetName != "timed_trace" {
		if n.selfTimed != nil {
			flag := p.raw["--self-timed"]
			if !*n.selfTimed {
				flag = p.raw["--no-self-timed"]
			}
			return flagErr(flag, "is only supported with --dataset-name timed_trace (as in vllm bench serve)")
		}
		return nil
	}
	if n.selfTimed != nil && !*n.selfTimed {
		return nil
	}
	for _, name := range []string{"--request-rate", "--burstiness", "--ramp-up-strategy"} {
		if p.raw[name] != "" {
			p.warnings = append(p.warnings, name+" has no effect with a self-timed trace replay: each request is sent at its trace time (--no-self-timed uses the arrival process instead)")
		}
	}
	return nil
}
