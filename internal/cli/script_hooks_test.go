package cli_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// stallserve is the script command "stallserve N FILE": a loopback server
// that answers like the simulator (o200k_base tokenizer) except that
// completion requests never get an answer: they wait until the client
// leaves. When the N-th completion request has arrived it writes N to
// FILE, so a script can interrupt a run (kill -INT) at a known point
// without sleeping. It sets $STALL_URL.
func stallserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: stallserve N FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	file := ts.MkAbs(args[1])
	cfg := sim.DefaultConfig()
	tok, err := tokenizer.Builtin("o200k_base")
	ts.Check(err)
	cfg.Tokenizer = pipeline.SimTokenizer(tok)
	s, err := sim.New(cfg)
	ts.Check(err)
	var mu sync.Mutex
	stop := make(chan struct{})
	seen := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			s.Handler().ServeHTTP(w, r)
			return
		}
		mu.Lock()
		seen++
		if seen == n {
			_ = os.WriteFile(file, []byte(strconv.Itoa(n)+"\n"), 0o644)
		}
		mu.Unlock()
		// Read the body first: only then does the server notice the client
		// closing the connection.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	ts.Setenv("STALL_URL", srv.URL)
	ts.Defer(func() {
		close(stop)
		srv.Close()
	})
}

// busyHostEnv names the environment variable that makes fakeBusyHost show
// the vbench command of a script a busy host.
const busyHostEnv = "VBENCH_TEST_BUSY_HOST"

// fakeBusyHost, when $VBENCH_TEST_BUSY_HOST is set, replaces the host-load
// readers of the run package so that a run sees an 8-core host kept 99%
// busy, 80% of it by a process "llama-server" (pid 4242), without loading
// the machine: each reading advances the host by 10000 ticks, 9900 of them
// busy, and llama-server by 8000.
func fakeBusyHost() {
	if os.Getenv(busyHostEnv) == "" {
		return
	}
	var hostReads, procReads uint64
	run.SetHostProbe(func() run.HostCPU {
		hostReads++
		return run.HostCPU{Busy: 9900 * hostReads, Total: 10000 * hostReads, Cores: 8}
	}, func() run.ProcSnapshot {
		procReads++
		return run.ProcSnapshot{4242: {Name: "llama-server", Ticks: 8000 * procReads}}
	})
}
