package cli_test

import (
	"net"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/llmd"
	"github.com/vbench/vbench/internal/sim"
)

func init() {
	scriptCmds["freeport"] = freeport
	simserveFlags["--max-num-seqs"] = func(cfg *sim.Config, v string) (err error) {
		cfg.MaxNumSeqs, err = strconv.Atoi(v)
		return err
	}
}

// freeport sets $VAR to a loopback TCP port that was free a moment ago,
// for a server a script has vbench start (target.server).
func freeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(ln.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}

func init() {
	scriptCmds["brvalidate"] = brvalidate
}

// brvalidate checks FILE against the llm-d Benchmark Report v0.2.1 schema
// the project ships.
func brvalidate(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: brvalidate FILE")
	}
	err := llmd.Validate([]byte(ts.ReadFile(args[0])))
	if neg {
		if err == nil {
			ts.Fatalf("%s is a valid Benchmark Report", args[0])
		}
		return
	}
	ts.Check(err)
}

func init() {
	scriptCmds["simresets"] = simresets
}

// simresets checks how many times the script's simulator answered the
// cache-reset route ROUTE.
func simresets(ts *testscript.TestScript, neg bool, args []string) {
	srv := ts.Value(simKey{}).(*simHolder).srv
	if neg || len(args) != 2 || srv == nil {
		ts.Fatalf("usage: simresets ROUTE N (after simserve)")
	}
	if got := strconv.FormatInt(srv.CacheResets()[args[0]], 10); got != args[1] {
		ts.Fatalf("%s calls: got %s, want %s", args[0], got, args[1])
	}
}
