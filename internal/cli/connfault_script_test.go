package cli_test

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/vbench/vbench/internal/sim"
)

// The simulator's connection faults, for simserve, and simconns, which
// checks what the simulator counted of them.
func init() {
	simserveFlags["--close-after-stream"] = func(cfg *sim.Config, v string) (err error) {
		cfg.CloseAfterStream, err = strconv.ParseBool(v)
		return err
	}
	simserveFlags["--close-after-stream-delay"] = func(cfg *sim.Config, v string) (err error) {
		cfg.CloseAfterStreamDelay, err = time.ParseDuration(v)
		return err
	}
	simserveFlags["--drop-every"] = func(cfg *sim.Config, v string) (err error) {
		cfg.DropEvery, err = strconv.Atoi(v)
		return err
	}
	scriptCmds["simconns"] = simconns
}

// simconns checks the script simulator's counts: generation requests read,
// dropped (--drop-every), and read more than once (same X-Request-Id).
//
//	simconns READ DROPPED REPEATED
func simconns(ts *testscript.TestScript, neg bool, args []string) {
	srv := ts.Value(simKey{}).(*simHolder).srv
	if neg || len(args) != 3 || srv == nil {
		ts.Fatalf("usage: simconns READ DROPPED REPEATED (after simserve)")
	}
	st := srv.Stats()
	got := fmt.Sprintf("%d %d %d", st.Requests, st.DroppedRequests, st.RepeatedRequests)
	if want := args[0] + " " + args[1] + " " + args[2]; got != want {
		ts.Fatalf("simulator requests (read dropped repeated): got %s, want %s", got, want)
	}
}
