package cli_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/cli"
	"github.com/vbench/vbench/internal/sim"
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
//	simserve [--ttft D] [--itl D] [--jitter D] [--fail-every N] [--tokenizer NAME] [--lora A,B] [--profiler on|off] [--reasoning-tokens N]
//
// which sets $SIM_URL for the rest of the script and stops the simulator
// when the script ends ("simprofile STARTS STOPS" checks how many profiler
// calls it answered, "simlora N..." how many generation requests named each
// --lora module); "fakeserve MODE" (fakeserve_test.go) starts a
// misbehaving server in front of one and sets $FAKE_URL; "chatparquet IN
// OUT" writes a JSONL chat dataset as parquet (parquet_script_test.go).
// "waitfile FILE" waits (up to 30 s) until FILE
// exists and is not empty; "envfile VAR FILE" sets $VAR to FILE's first
// line. "waitrecords FILE N" waits (up to 30 s) until the records file FILE
// holds at least N whole record lines; "checkrecords FILE" checks a records
// file left by a killed run against the script's simulator (see
// checkRecords); "pngcheck GLOB W H" checks the one PNG file GLOB matches
// (png_script_test.go).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
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

// scriptCmds are the custom testscript commands. A file that adds a
// command registers it here from its own init function, so that topics do
// not all edit one literal.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"simserve":     simserve,
	"simmetrics":   simmetrics,
	"waitfile":     waitfile,
	"envfile":      envfile,
	"waitrecords":  waitRecords,
	"checkrecords": checkRecords,
	"fakeserve":    fakeserve,
	"stallserve":   stallserve,
	"simprofile":   simprofile,
	"simlora":      simlora,
	"fakehub":      fakehub,
	"traceproxy":   traceproxy,
	"checktraces":  checktraces,
	"pngcheck":     pngcheck,
	"chatparquet":  chatparquet,
}

// simserveFlags are simserve flags beyond the built-in ones: each sets a
// field of the simulator's configuration from the flag's value. A file
// that adds a simulator fault registers its flag here from init.
var simserveFlags = map[string]func(cfg *sim.Config, v string) error{}

func simserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: simserve [flags]")
	}
	cfg, err := cli.SimFlags(args, simserveFlags)
	if err != nil {
		ts.Fatalf("simserve: %v", err)
	}
	srv, err := sim.Start(cfg, "127.0.0.1:0")
	ts.Check(err)
	ts.Value(simKey{}).(*simHolder).srv = srv
	ts.Setenv("SIM_URL", srv.URL())
	ts.Defer(func() { _ = srv.Close() })
}

// simmetrics writes the script simulator's /metrics exposition to FILE.
func simmetrics(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simmetrics FILE")
	}
	resp, err := http.Get(ts.Getenv("SIM_URL") + "/metrics")
	ts.Check(err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("simmetrics: %s", resp.Status)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), body, 0o644))
}

// simprofile checks that the script's simulator answered STARTS calls of
// /start_profile and STOPS of /stop_profile.
func simprofile(ts *testscript.TestScript, neg bool, args []string) {
	srv := ts.Value(simKey{}).(*simHolder).srv
	if neg || len(args) != 2 || srv == nil {
		ts.Fatalf("usage: simprofile STARTS STOPS (after simserve)")
	}
	starts, stops := srv.ProfileCalls()
	if got := fmt.Sprintf("%d %d", starts, stops); got != args[0]+" "+args[1] {
		ts.Fatalf("profiler calls (starts stops): got %s, want %s %s", got, args[0], args[1])
	}
}

// simlora checks how many generation requests the script's simulator
// served for each of its --lora modules, in order.
func simlora(ts *testscript.TestScript, neg bool, args []string) {
	srv := ts.Value(simKey{}).(*simHolder).srv
	if neg || srv == nil {
		ts.Fatalf("usage: simlora N... (after simserve --lora)")
	}
	if got := strings.Trim(fmt.Sprint(srv.LoRARequests()), "[]"); got != strings.Join(args, " ") {
		ts.Fatalf("requests per LoRA module: got %s, want %s", got, strings.Join(args, " "))
	}
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
