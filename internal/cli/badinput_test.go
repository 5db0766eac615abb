package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/cli"
)

// badInput is one bad input a new user may give vbench, and what vbench
// must do with it: exit with a code and say what is wrong (and where) in
// a message matching stderr. Add a row for each defect found by trying
// vbench out; files are written to a temporary working directory.
type badInput struct {
	name string
	// issue is the issue item the row pins ("11.1" is issue 11, item 1).
	issue string
	files map[string]string
	// copies are files copied into the working directory: name there →
	// path from this package's directory.
	copies map[string]string
	args   []string
	exit   int
	// stderr and stdout are regular expressions (multi-line mode) that
	// must match; an empty one is not checked.
	stderr, stdout string
	// notStderr must not match stderr.
	notStderr string
}

var badInputs = []badInput{
	// Item 1: fields accepted and then ignored are refused, with
	// file:line:col and argv's reason.
	{name: "output.plot_dataset_stats without a result", issue: "12.11",
		files: map[string]string{"s.cue": "target: simulator: {}\noutput: plot_dataset_stats: true\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: output\.plot_dataset_stats \(--plot-dataset-stats\) needs a result file name to name the plot after`, notStderr: `Serving Benchmark Result`},
	{name: "hf ASR length in YAML", issue: "21.4",
		files: map[string]string{"s.yaml": "dataset:\n  hf:\n    path: org/asr\n    asr_max_audio_len_sec: -1\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:4:28: dataset\.hf\.asr_max_audio_len_sec: invalid value -1 \(out of bound >=0\)`},
	{name: "random_rerank with a prefix", issue: "21.2",
		files: map[string]string{"s.cue": "target: {backend: \"vllm-rerank\", endpoint: \"/rerank\"}\ndataset: random_rerank: prefix_len: 4\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:2:25: dataset\.random_rerank\.prefix_len: random_rerank has no shared prefix`},
	{name: "timeline thresholds not two", issue: "13.8",
		files: map[string]string{"s.cue": "output: {plot_timeline: true, timeline_itl_thresholds: [25, 50, 75]}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:31: output\.timeline_itl_thresholds: incompatible list lengths \(2 and 3\)`},
	{name: "negative probe_request_rate from --set: no probes, as the flag", issue: "18.5",
		files: map[string]string{"s.cue": "\n"},
		args:  []string{"vet", "s.cue", "--set", "load.probe_request_rate=-1"}, exit: 0, stdout: `^ok sha256:`},
	{name: "probe_request_rate that is not a rate", issue: "13.6",
		files: map[string]string{"s.cue": "\n"},
		args:  []string{"vet", "s.cue", "--set", `load.probe_request_rate="fast"`}, exit: cli.ExitUsage,
		stderr: `^vbench: --set load\.probe_request_rate="fast": load\.probe_request_rate: `},
	{name: "fields at their defaults", issue: "11.1",
		files: map[string]string{"s.cue": "output: plot_dataset_stats: false\nload: probe_request_rate: 0\n"},
		args:  []string{"vet", "s.cue"}, exit: 0, stdout: `^ok sha256:`},

	// Item 4: what fails at run time fails at vet; what cannot fit in
	// memory is refused before anything is sampled.
	{name: "num_prompts 0", issue: "11.4",
		files: map[string]string{"s.cue": "load: num_prompts: 0\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:7: load\.num_prompts: 0 requests: want at least 1$`},
	{name: "random input_len 0", issue: "11.4",
		files: map[string]string{"s.yaml": "dataset:\n  random:\n    input_len: 0\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:3:5: dataset\.random\.input_len: prompts of 0 tokens`},
	{name: "num_prompts 1e12", issue: "11.4",
		files: map[string]string{"s.cue": "target: simulator: {}\ntokenizer: name: \"o200k_base\"\nload: num_prompts: 1000000000000\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: load\.num_prompts 1000000000000: a run of dataset random needs about [0-9.]+ PiB .* more than the [0-9.]+ [KMGT]iB available`, notStderr: `fatal error`},

	// Item 3: an output location that cannot hold results fails before
	// the first request, not after the run.
	{name: "result dir under a regular file", issue: "11.3",
		files: map[string]string{"afile": "x", "s.cue": "target: simulator: {}\ntokenizer: name: \"o200k_base\"\nload: num_prompts: 2\noutput: {save_result: true, result_dir: \"afile/sub\"}\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: results cannot be written to afile/sub \(--result-dir, output\.result_dir\): mkdir afile: not a directory`, notStderr: `Serving Benchmark Result`},
	{name: "result dir in /proc", issue: "11.3",
		files: map[string]string{"s.cue": "target: simulator: {}\ntokenizer: name: \"o200k_base\"\nload: num_prompts: 2\noutput: {save_result: true, result_dir: \"/proc/vbench-results\"}\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: results cannot be written to /proc/vbench-results`},

	// Item 6: typos get a suggestion and exit 2, whichever command sees them.
	{name: "tokenizer name typo", issue: "11.6",
		files: map[string]string{"s.cue": "tokenizer: name: \"o300k_base\"\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `unknown tokenizer "o300k_base"; did you mean o200k_base\?`},
	{name: "compare gate metric typo", issue: "11.6",
		copies: map[string]string{"a.json": "../experiment/testdata/random-basic.json", "b.json": "../experiment/testdata/random-basic.json"},
		args:   []string{"compare", "a.json", "b.json", "--max-increase", "p99_ttfx_ms=5%"}, exit: cli.ExitUsage,
		stderr: `^vbench: --max-increase p99_ttfx_ms=5%: "p99_ttfx_ms" is not a metric \(did you mean p99_ttft_ms\?\)`},

	// Item 7: a base URL on a simulator scenario replaces the simulator.
	{name: "--set base_url on a simulator scenario", issue: "11.7",
		files: map[string]string{"s.cue": "target: simulator: {}\n"},
		args:  []string{"export", "s.cue", "--set", "target.base_url=http://gpu:8000", "--format", "json"}, exit: 0,
		stderr: `^vbench: note: target\.base_url from --set target\.base_url=http://gpu:8000 replaces the built-in simulator of s\.cue`,
		stdout: `"base_url": "http://gpu:8000"`, notStderr: `error`},
	{name: "overlay base_url on a simulator scenario", issue: "11.7",
		files: map[string]string{"s.cue": "target: simulator: {}\n", "real.yaml": "target:\n  base_url: http://gpu:8000\n"},
		args:  []string{"export", "s.cue", "real.yaml", "--format", "json"}, exit: 0,
		stderr: `^vbench: note: target\.base_url from real\.yaml replaces the built-in simulator of s\.cue`,
		stdout: `"base_url": "http://gpu:8000"`},
}

func TestBadInput(t *testing.T) {
	for _, tc := range badInputs {
		t.Run(tc.issue+" "+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, src := range tc.copies {
				data, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			env := map[string]string{"HF_HUB_OFFLINE": "1", "HF_HOME": filepath.Join(dir, ".hf")}
			p := cli.Process{
				Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Getenv: func(k string) string { return env[k] }, Context: context.Background(),
			}
			code := cli.Main(tc.args, p)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.exit, stderr.String())
			}
			match := func(what, re, got string, want bool) {
				if re != "" && regexp.MustCompile("(?m)"+re).MatchString(got) != want {
					t.Errorf("%s matches %q: %v, want %v; %s:\n%s", what, re, !want, want, what, got)
				}
			}
			match("stderr", tc.stderr, stderr.String(), true)
			match("stdout", tc.stdout, stdout.String(), true)
			match("stderr", tc.notStderr, stderr.String(), false)
		})
	}
}
