package argv

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

func TestCUE(t *testing.T) {
	cmd, err := ParseCommand([]string{"--backend", "openai", "--base-url", "http://127.0.0.1:8000", "--model", "vbench-sim",
		"--tokenizer", "o200k_base", "--dataset-name", "random", "--num-prompts", "50", "--input-len", "64",
		"--random-output-len", "32", "--random-range-ratio", "0.5", "--seed", "0", "--max-concurrency", "4",
		"--metadata", "gpu=H100", "--save-result", "--result-dir", "D"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := CUE(cmd)
	if err != nil {
		t.Fatal(err)
	}
	want := `// Imported from a vllm bench serve command line by vbench import: only the
// fields that differ from the defaults, each under the flag it came from.

target: {
	// --base-url
	base_url: "http://127.0.0.1:8000"
	// --model
	model: "vbench-sim"
}
tokenizer: {
	// --tokenizer
	name: "o200k_base"
}
dataset: random: {
	// --input-len
	input_len: 64
	// --random-output-len
	output_len: 32
	// --random-range-ratio
	range_ratio: 0.5
}
load: {
	// --num-prompts
	num_prompts: 50
	// --max-concurrency
	max_concurrency: 4
}
output: {
	// --save-result
	save_result: true
	// --result-dir
	result_dir: "D"
	// --metadata
	metadata: {
		gpu: "H100"
	}
}
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	back, err := scenario.LoadBytes("imported.cue", out, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != cmd.Scenario.Hash() {
		t.Errorf("loading the CUE changed the scenario:\n%s\n%s", back.Canonical(), cmd.Scenario.Canonical())
	}
}

func TestCUERedactsHeaders(t *testing.T) {
	cmd, err := ParseCommand([]string{"--header", "Authorization=Bearer s3cr3t", "--vbench-extras"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := CUE(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("s3cr3t")) {
		t.Errorf("header value printed:\n%s", out)
	}
	for _, want := range []string{`Authorization: "<redacted>"`, "Header values are redacted", "--vbench-extras is a vbench serve option"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if _, err := scenario.LoadBytes("imported.cue", out, scenario.Options{}); err != nil {
		t.Error(err)
	}
}

func TestWriteHelp(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHelp(&b, ""); err != nil {
		t.Fatal(err)
	}
	help := b.String()
	for _, f := range flags {
		line := lineOf(help, "  "+f.name+" ")
		if line == "" {
			t.Errorf("help does not list %s", f.name)
			continue
		}
		if !strings.Contains(line, "default: "+f.def) {
			t.Errorf("help line of %s lacks its default %q: %s", f.name, f.def, line)
		}
	}
	for _, u := range Unsupported() {
		if line := lineOf(help, "  "+u[0]+" "); !strings.Contains(line, u[1]) {
			t.Errorf("help does not list %s as not supported yet: %q", u[0], line)
		}
	}
	b.Reset()
	if err := WriteHelp(&b, "ramp_up"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n  --ramp-up-"); n != 3 || strings.Contains(b.String(), "--model") {
		t.Errorf("--help=ramp_up:\n%s", b.String())
	}
	b.Reset()
	if err := WriteHelp(&b, "nothing-like-this"); err != nil || !strings.Contains(b.String(), `No flag matches "nothing-like-this"`) {
		t.Errorf("no match: %v\n%s", err, b.String())
	}
}

// lineOf returns the first line of text containing s.
func lineOf(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
