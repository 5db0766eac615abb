package cli_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/cli"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// runTest runs vbench test with args and the environment env, and returns
// its exit code and output.
func runTest(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	p := cli.Process{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out,
		Getenv: func(k string) string { return env[k] }, Context: context.Background()}
	code := cli.Main(append([]string{"test"}, args...), p)
	return code, out.String()
}

// The shipped smoke suite passes; a copy with a bound too tight fails,
// naming the file, the key, the value and the bound, with a non-zero exit
// and a JUnit report of testsuite, testcase and failure.
func TestSuiteSmoke(t *testing.T) {
	smoke, err := os.ReadFile("../../examples/suites/smoke.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if code, out := runTest(t, nil, "../../examples/suites/smoke.txtar"); code != 0 || !strings.Contains(out, "PASS smoke") {
		t.Fatalf("smoke suite: exit %d\n%s", code, out)
	}
	dir := t.TempDir()
	tight := strings.Replace(string(smoke), "p99_ttft_ms < 100", "p99_ttft_ms < 1", 1)
	if tight == string(smoke) {
		t.Fatal("the smoke suite has no p99_ttft_ms bound to tighten")
	}
	if err := os.WriteFile(filepath.Join(dir, "tight.txtar"), []byte(tight), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "report.xml")
	code, out := runTest(t, nil, filepath.Join(dir, "tight.txtar"), "--junit", junit)
	if code == 0 || !strings.Contains(out, "FAIL tight") {
		t.Fatalf("tight suite: exit %d\n%s", code, out)
	}
	want := "out/smoke.json: p99_ttft_ms = "
	if !strings.Contains(out, want) || !strings.Contains(out, ", want < 1") {
		t.Errorf("the failure does not name the file, key, value and bound:\n%s", out)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &rep); err != nil {
		t.Fatalf("JUnit report: %v\n%s", err, b)
	}
	if len(rep.Suites) != 1 || rep.Suites[0].Tests != 1 || rep.Suites[0].Failures != 1 || len(rep.Suites[0].Cases) != 1 ||
		rep.Suites[0].Cases[0].Name != "tight" || rep.Suites[0].Cases[0].Failure == nil ||
		!strings.Contains(rep.Suites[0].Cases[0].Failure.Message, "p99_ttft_ms = ") {
		t.Errorf("JUnit report:\n%s", b)
	}
}

// A suite that uses a variable not passed with --env fails before it runs,
// saying which; a secret passed with --env never appears in the output,
// even when the suite prints it.
func TestSuiteEnv(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "env.txtar")
	if err := os.WriteFile(suite, []byte("exec echo key=$OPENAI_API_KEY\nstdout 'key=sk-'\nexec false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := runTest(t, nil, suite)
	if code == 0 || !strings.Contains(out, "uses $OPENAI_API_KEY, which vbench test does not pass: add --env OPENAI_API_KEY") {
		t.Errorf("without --env: exit %d\n%s", code, out)
	}
	const secret = "sk-SECRET-suite-123"
	code, out = runTest(t, map[string]string{"OPENAI_API_KEY": secret}, suite, "--env", "OPENAI_API_KEY", "-v")
	if code == 0 || !strings.Contains(out, "key=<redacted>") || strings.Contains(out, secret) {
		t.Errorf("with --env: exit %d, the secret shown %v\n%s", code, strings.Contains(out, secret), out)
	}
	if code, out := runTest(t, nil, suite, "--env", "NOT_SET_ANYWHERE"); code != cli.ExitUsage || !strings.Contains(out, "--env NOT_SET_ANYWHERE: the variable is not set (or empty)") {
		t.Errorf("--env of an unset variable: exit %d\n%s", code, out)
	}
}

// The server-behaviour example suite runs against a deployment given by
// --env: here the simulator, with speculative decoding.
func TestSuiteExamplesAgainstAServer(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Model, cfg.SpecDecodeTokens, cfg.SpecDecodeAcceptance = "vbench-sim", 3, 0.6
	cfg.TTFT, cfg.ITL = 5*time.Millisecond, time.Millisecond
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tokenizer = pipeline.SimTokenizer(tok)
	srv, err := sim.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	env := map[string]string{"VBENCH_URL": srv.URL()}
	if code, out := runTest(t, env, "../../examples/suites/server-behaviour.txtar", "--env", "VBENCH_URL"); code != 0 {
		t.Errorf("server-behaviour: exit %d\n%s", code, out)
	}
	// The release gate needs its deployment and baseline: without them
	// it says which to pass.
	code, out := runTest(t, nil, "../../examples/suites/release-gate.txtar")
	if code == 0 || !strings.Contains(out, "uses $VBENCH_URL, which vbench test does not pass: add --env VBENCH_URL") {
		t.Errorf("release-gate without --env: exit %d\n%s", code, out)
	}
}

// A skipped suite is reported as skipped, a failed one fails alone and the
// others still run; the JUnit report is replaced, not appended to, on a
// rerun;
// --update will not run with --env; comments, single-quoted text and $$
// use no variable.
func TestSuiteOutcomes(t *testing.T) {
	dir := t.TempDir()
	for name, script := range map[string]string{
		"a-skip.txtar": "skip 'not here'\n",
		"b-fail.txtar": "exec false\n",
		"c-ok.txtar":   "exec echo ok # not $NOPE\nstdout ok\nexec sh -c 'x=1; echo $x$$HOME'\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	junit := filepath.Join(dir, "r.xml")
	for range 2 {
		code, out := runTest(t, nil, dir, "--junit", junit)
		if code != 1 || !strings.Contains(out, "SKIP a-skip") || !strings.Contains(out, "FAIL b-fail") ||
			!strings.Contains(out, "PASS c-ok") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &rep); err != nil || len(rep.Suites) != 1 || len(rep.Suites[0].Cases) != 3 || rep.Suites[0].Cases[0].Skipped == nil {
		t.Errorf("JUnit after a rerun (%v):\n%s", err, b)
	}
	if code, out := runTest(t, map[string]string{"K": "v"}, dir, "--env", "K", "--update"); code != cli.ExitUsage || !strings.Contains(out, "--update with --env") {
		t.Errorf("--update with --env: exit %d\n%s", code, out)
	}
}
