package cli_test

import "github.com/vbench/vbench/internal/sim"

// simserve --fault KIND:every=N|KIND:rate=P (repeatable): the simulator's
// injected faults.
func init() {
	simserveFlags["--fault"] = func(cfg *sim.Config, v string) error {
		f, err := sim.ParseFault(v)
		if err == nil {
			cfg.Faults = append(cfg.Faults, f)
		}
		return err
	}
}
