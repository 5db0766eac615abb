package argv

import (
	"errors"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// FuzzRoundTrip parses arbitrary command lines (one argument per line).
// Parsing must not panic and must fail only with a one-line *Error or a
// help request; a command line that parses must survive argv → scenario →
// Format → Parse, and → CUE → load, with the same hash.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []string{
		"",
		"--backend\nopenai\n--base-url\nhttp://127.0.0.1:8000\n--model\nm\n--num-prompts\n50\n--random-input-len\n64\n--save-result\n--result-dir\nD",
		"--num_prom=5\n--extra-body.temperature\n0\n--extra-body.stop+\na,b\n--extra-body.n\n1k",
		"--top-k\n-1\n--top-p\n-0.5\n--temperature=1e-7\n--request-rate\n2.5\n--burstiness\ninf",
		"--header\nA=1\n -b = 2 \n--metadata\nz=1\na=2\n--goodput\nttft:5\ne2el:100.5",
		"--random-range-ratio\n{\"input\": 0.1, \"output\": 0.2}\n--random-prefix-len\n3\n--input-len\n9",
		"--ramp-up-strategy\nexponential\n--ramp-up-start-rps\n1\n--ramp-up-end-rps\n8\n--max-concurrency\n3",
		"--config\nc.yaml\n--seed\n7",
		"--percentile-metrics\ne2el,ttft\n--metric-percentiles\n50,99.9\n--label=-x\n--tokenizer-mode=",
		"--extra-body\n{\"a\": [1, {\"b\": null}], \"c\": 1.5e-7}\n--insecure\n--ignore-eos\n--vbench-extras",
		"--metadata=-k=v\n--request-id-prefix\nrun-\n--served-model-name\ns\n--logprobs\n0",
		"--ra\n5", "--help=x", "--\nx", "-h", "--dataset-path\nx",
		"--plot-timeline\n--timeline-itl-thresholds\n 10 ,2.5e1", "--timeline-itl-thresholds=-0,1_0",
	} {
		f.Add(seed)
	}
	opts := files(map[string]string{"c.yaml": "num-prompts: 5\nsave-result: yes\nextra-body: {top_k: 3}\nmetadata: [a=1]\n"})
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\n")
		cmd, err := ParseCommand(args, opts)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) && !errors.Is(err, ErrHelp) {
				t.Fatalf("%q: error %v (%T) is neither *Error nor help", args, err, err)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: bad error %q", args, err)
			}
			return
		}
		s := cmd.Scenario
		out, err := Format(s)
		if err != nil {
			t.Fatalf("%q: Format: %v", args, err)
		}
		back, err := Parse(out, Options{})
		if err != nil {
			t.Fatalf("%q: Format gave %q, which does not parse: %v", args, out, err)
		}
		if back.Hash() != s.Hash() {
			t.Fatalf("%q → %q changed the scenario:\n%s\n%s", args, out, s.Canonical(), back.Canonical())
		}
		if len(s.Target.Headers) > 0 {
			return // CUE redacts header values
		}
		c, err := CUE(cmd)
		if err != nil {
			t.Fatalf("%q: CUE: %v", args, err)
		}
		loaded, err := scenario.LoadBytes("imported.cue", c, scenario.Options{})
		if err != nil {
			t.Fatalf("%q: CUE does not load: %v\n%s", args, err, c)
		}
		if loaded.Hash() != s.Hash() {
			t.Fatalf("%q: CUE changed the scenario:\n%s\n%s\n%s", args, c, s.Canonical(), loaded.Canonical())
		}
	})
}
