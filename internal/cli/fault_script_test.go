package cli_test

import (
	"strconv"

	"github.com/vbench/vbench/internal/sim"
)

// simserve --fault KIND:every=N|KIND:rate=P (repeatable): the simulator's
// injected faults; simserve --bare true: a bare OpenAI-compatible server.
func init() {
	simserveFlags["--bare"] = func(cfg *sim.Config, v string) (err error) {
		cfg.Bare, err = strconv.ParseBool(v)
		return err
	}
	simserveFlags["--fault"] = func(cfg *sim.Config, v string) error {
		f, err := sim.ParseFault(v)
		if err == nil {
			cfg.Faults = append(cfg.Faults, f)
		}
		return err
	}
}
