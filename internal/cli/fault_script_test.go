package cli_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/sim"
)

// simserve --bare true: a bare OpenAI-compatible server (the faults'
// --fault and --max-conns are cli.SimFlags').
func init() {
	scriptCmds["samesuccesses"] = sameSuccesses
	simserveFlags["--bare"] = func(cfg *sim.Config, v string) (err error) {
		cfg.Bare, err = strconv.ParseBool(v)
		return err
	}
}

// detailed is the part of a --save-detailed result samesuccesses compares.
type detailed struct {
	InputLens      []int       `json:"input_lens"`
	OutputLens     []int       `json:"output_lens"`
	GeneratedTexts []string    `json:"generated_texts"`
	ITLs           [][]float64 `json:"itls"`
	Errors         []string    `json:"errors"`
}

// sameSuccesses (samesuccesses [-arrivals=±N] FAULTED CLEAN [SUCCESSES])
// checks that every request that succeeded in the faulted run's detailed
// result has the prompt length, output length, text and number of token
// arrivals (inter-token latencies; N more or fewer with -arrivals) it has in a
// fault-free run of the same requests, and, given SUCCESSES, that that
// many succeeded.
func sameSuccesses(ts *testscript.TestScript, neg bool, args []string) {
	extra := 0
	if len(args) > 0 && strings.HasPrefix(args[0], "-arrivals=") {
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-arrivals="))
		ts.Check(err)
		extra, args = n, args[1:]
	}
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: samesuccesses [-arrivals=±N] FAULTED.json CLEAN.json [SUCCESSES]")
	}
	var runs [2]detailed
	for i := range runs {
		b, err := os.ReadFile(ts.MkAbs(args[i]))
		ts.Check(err)
		ts.Check(json.Unmarshal(b, &runs[i]))
	}
	f, c := runs[0], runs[1]
	if len(f.Errors) != len(c.Errors) || len(f.OutputLens) != len(c.OutputLens) {
		ts.Fatalf("the runs have %d and %d requests", len(f.Errors), len(c.Errors))
	}
	ok := 0
	for i, e := range f.Errors {
		if e != "" {
			continue
		}
		ok++
		if c.Errors[i] != "" {
			ts.Fatalf("request %d failed in the fault-free run: %s", i, c.Errors[i])
		}
		got := []any{f.InputLens[i], f.OutputLens[i], f.GeneratedTexts[i], len(f.ITLs[i])}
		want := []any{c.InputLens[i], c.OutputLens[i], c.GeneratedTexts[i], len(c.ITLs[i]) + extra}
		if !reflect.DeepEqual(got, want) {
			ts.Fatalf("request %d (prompt, output, text, arrivals): faulted %v, fault-free %v", i, got, want)
		}
	}
	if len(args) == 3 && strconv.Itoa(ok) != args[2] {
		ts.Fatalf("%d requests succeeded, want %s", ok, args[2])
	}
}
