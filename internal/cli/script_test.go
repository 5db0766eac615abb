package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/cli"
	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"vbench": func() {
			fakeBusyHost()
			os.Exit(cli.Main(os.Args[1:], cli.OS()))
		},
	})
}

// TestScripts runs testdata/script/*.txtar, with $REPO set to the
// repository root (for the shipped scenarios). Besides exec'ing vbench, a
// script can start an in-process simulator with
//
//	simserve [--ttft D] [--itl D] [--jitter D] [--fail-every N] [--tokenizer NAME]
//
// which sets $SIM_URL for the rest of the script and stops the simulator
// when the script ends; "fakeserve MODE" (fakeserve_test.go) starts a
// misbehaving server in front of one and sets $FAKE_URL. "waitfile FILE" waits (up to 30 s) until FILE
// exists and is not empty; "envfile VAR FILE" sets $VAR to FILE's first
// line. "waitrecords FILE N" waits (up to 30 s) until the records file FILE
// holds at least N whole record lines; "checkrecords FILE" checks a records
// file left by a killed run against the script's simulator (see
// checkRecords).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"simserve":     simserve,
			"waitfile":     waitfile,
			"envfile":      envfile,
			"waitrecords":  waitRecords,
			"checkrecords": checkRecords,
			"fakeserve":    fakeserve,
			"stallserve":   stallserve,
			"fakehub":      fakehub,
		},
		Setup: func(env *testscript.Env) error {
			env.Values[simKey{}] = &simHolder{}
			env.Setenv("OPENAI_API_KEY", "")
			// Tests never reach the Hugging Face Hub: a script that wants a
			// (fake) hub sets HF_HUB_OFFLINE= and HF_ENDPOINT itself.
			env.Setenv("HF_HUB_OFFLINE", "1")
			env.Setenv("HF_HOME", env.WorkDir+"/.hf")
			repo, err := filepath.Abs("../..")
			env.Setenv("REPO", repo)
			return err
		},
	})
}

func simserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: simserve [flags]")
	}
	cfg := sim.DefaultConfig()
	tok := "o200k_base"
	for i := 0; i < len(args); i++ {
		if i+1 >= len(args) {
			ts.Fatalf("simserve: %s needs a value", args[i])
		}
		v := args[i+1]
		var err error
		switch args[i] {
		case "--ttft":
			cfg.TTFT, err = time.ParseDuration(v)
		case "--itl":
			cfg.ITL, err = time.ParseDuration(v)
		case "--jitter":
			cfg.Jitter, err = time.ParseDuration(v)
		case "--fail-every":
			_, err = fmt.Sscan(v, &cfg.FailEvery)
		case "--model":
			cfg.Model = v
		case "--tokenizer":
			tok = v
		default:
			ts.Fatalf("simserve: unknown flag %s", args[i])
		}
		ts.Check(err)
		i++
	}
	if tok != "" {
		t, err := tokenizer.Builtin(tok)
		ts.Check(err)
		cfg.Tokenizer = experiment.SimTokenizer(t)
	}
	srv, err := sim.Start(cfg, "127.0.0.1:0")
	ts.Check(err)
	ts.Value(simKey{}).(*simHolder).srv = srv
	ts.Setenv("SIM_URL", srv.URL())
	ts.Defer(func() { _ = srv.Close() })
}

func waitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && len(b) > 0 {
			return
		}
	}
	ts.Fatalf("%s did not appear within 30s", args[0])
}

func envfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	line, _, _ := strings.Cut(ts.ReadFile(args[1]), "\n")
	ts.Setenv(args[0], strings.TrimSpace(line))
}
