package argv

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// rustSnapshot reads testdata/rust-serve-flags.txt: the long options of
// vLLM's Rust client, vllm-bench.
func rustSnapshot(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/rust-serve-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// The second parity snapshot: every flag of vllm-bench parses in vbench
// serve (as vllm bench serve's flag, as vllm-bench's own, or as an alias)
// or is refused with a reason; the lists do not go stale either way.
func TestRustSnapshot(t *testing.T) {
	snap, py := rustSnapshot(t), snapshotFlags(t)
	if len(snap) != 117 {
		t.Errorf("the vllm-bench snapshot has %d flags, want 117", len(snap))
	}
	for _, name := range snap {
		_, implemented := flagByName[name]
		_, alias := aliases[name]
		_, refusedPy := unsupported[name]
		_, refusedRust := rustUnsupported[name]
		if !implemented && !alias && !refusedPy && !refusedRust {
			t.Errorf("%s: vllm-bench's flag is neither implemented nor in testdata/rust-unsupported.txt", name)
		}
		if f := flagByName[name]; f != nil && f.rust == slices.Contains(py, name) {
			t.Errorf("%s: marked rust %v, but the Python snapshot says %v", name, f.rust, slices.Contains(py, name))
		}
	}
	for _, f := range rustFlags {
		if !f.rust || !slices.Contains(snap, f.name) {
			t.Errorf("%s: a vllm-bench flag that is not in the vllm-bench snapshot", f.name)
		}
	}
	for name := range rustUnsupported {
		if !slices.Contains(snap, name) || slices.Contains(py, name) {
			t.Errorf("%s: in rust-unsupported.txt but not a vllm-bench-only flag", name)
		}
		if _, ok := flagByName[name]; ok {
			t.Errorf("%s: implemented: remove it from rust-unsupported.txt", name)
		}
	}
	if n := len(rustFlags) + len(rustUnsupported); n != 28 {
		t.Errorf("%d vllm-bench-only flags implemented or refused, want the 28 besides the --speed-bench-config alias", n)
	}
}

// vllm-bench's flags map onto the scenario as vllm-bench behaves.
func TestRustFlagsMap(t *testing.T) {
	for _, tc := range []struct {
		args []string
		path string
		want string
	}{
		{[]string{"--num-runs", "3"}, "repeat", `{"count":3,"fixed_seed":false}`},
		{[]string{"--num-runs", "1"}, "repeat", `<missing>`},
		{[]string{"--sweep-max-concurrency", "1, 4,16"}, "sweep", `{"axes":{"load.max_concurrency":[1,4,16]},"mode":"grid"}`},
		{[]string{"--sweep-max-concurrency", "2,8", "--sweep-num-prompts-factor", "5"}, "sweep", `{"axes":{"load.max_concurrency":[2,8],"load.num_prompts":[10,40]},"mode":"zip"}`},
		{[]string{"--sweep-request-rate", "1.5,inf"}, "sweep", `{"axes":{"load.request_rate":[1.5,"inf"]},"mode":"grid"}`},
		{[]string{"--sweep-request-rate", "2", "--sweep-max-concurrency", "3"}, "sweep", `{"axes":{"load.max_concurrency":[3]},"mode":"grid"}`},
		{[]string{"--sweep-max-concurrency", "2", "--num-runs", "4"}, "repeat", `<missing>`},
		{[]string{"--sweep-summary-percentiles", "95,99,99.9"}, "metrics.metric_percentiles", `[99,95,99.9,90]`},
		{[]string{"--metric-percentiles", "50,90", "--sweep-summary-percentiles", "50"}, "metrics.metric_percentiles", `[50,90]`},
		{[]string{"--steady-state-threshold", "0.8"}, "metrics.steady_state_threshold", `0.8`},
		{[]string{"--steady-state-min-window", "0"}, "metrics.steady_state_min_window", `0`},
		{[]string{"--no-steady-state"}, "metrics.steady_state", `false`},
		{[]string{"--reset-prefix-cache"}, "target.reset_prefix_cache", `true`},
		{[]string{"--max-model-len", "4096"}, "load.max_model_len", `4096`},
		{[]string{"--prompt-token-ids", "--random-cache-hit-fraction", "0.4", "--random-cache-ratio", "0.8"}, "dataset.random.cache_ratio", `0.8`},
		{[]string{"--prompt-token-ids", "--random-cache-hit-fraction", "0.4"}, "dataset.random.cache_hit_fraction", `<missing>`},
		{[]string{"--profile", "--profile-batch-threshold", "8", "--profile-duration", "2.5"}, "target.profile_batch_threshold", `8`},
		{[]string{"--profile", "--profile-batch-threshold", "8", "--profile-duration", "2.5"}, "target.profile_duration", `2.5`},
		{[]string{"--dataset-name", "hf", "--dataset-path", "org/data", "--hf-text-column", "question"}, "dataset.hf.text_column", `"question"`},
		{[]string{"--dataset-name", "speed_bench", "--dataset-path", "d", "--speed-bench-max-input-len", "2048"}, "dataset.speed_bench.max_input_len", `2048`},
		{[]string{"--speed-bench-config", "throughput_2k", "--dataset-name", "speed_bench", "--dataset-path", "d"}, "dataset.speed_bench.subset", `"throughput_2k"`},
	} {
		cmd, err := ParseCommand(append([]string{"--model", "m"}, tc.args...), Options{})
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if got := fieldJSON(t, cmd.Scenario, tc.path); got != tc.want {
			t.Errorf("%q: %s = %s, want %s", tc.args, tc.path, got, tc.want)
		}
	}
	mt := []string{"--model", "m", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--multi-turn", "--num-prompts", "20",
		"--random-input-len", "64", "--random-output-len", "32", "--multi-turn-min-turns", "2", "--multi-turn-max-turns", "6",
		"--multi-turn-delay-ms", "250", "--multi-turn-concurrency", "8", "--request-rate", "5"}
	cmd, err := ParseCommand(mt, Options{})
	if err != nil {
		t.Fatalf("--multi-turn: %v", err)
	}
	for path, want := range map[string]string{
		"dataset.conversations.conversations":  `20`,
		"dataset.conversations.turns":          `{"uniform":{"max":6,"min":2}}`,
		"dataset.conversations.input_len":      `64`,
		"dataset.conversations.output_len":     `32`,
		"dataset.conversations.think_time_ms":  `250`,
		"dataset.conversations.session_header": `"X-Session-ID"`,
		"load.max_concurrency":                 `8`,
		"load.request_rate":                    `"inf"`,
		"sampling.extra_body":                  `{"min_tokens":32}`,
		"metrics.steady_state":                 `false`,
	} {
		if got := fieldJSON(t, cmd.Scenario, path); got != want {
			t.Errorf("--multi-turn: %s = %s, want %s", path, got, want)
		}
	}
	if !slices.ContainsFunc(cmd.Warnings, func(w string) bool { return strings.Contains(w, "--request-rate is not used with --multi-turn") }) {
		t.Errorf("no warning about --request-rate: %q", cmd.Warnings)
	}
	cmd, err = ParseCommand([]string{"--compare", "a.json", "b.json", "--dry-run"}, Options{})
	if err != nil || !slices.Equal(cmd.Compare, []string{"a.json", "b.json"}) || !cmd.DryRun {
		t.Errorf("--compare and --dry-run: %+v, %v", cmd, err)
	}
}

// vllm-bench's checks, and its flags vbench refuses, name the flag.
func TestRustFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		want        string
		unsupported bool
	}{
		{[]string{"--steady-state-threshold", "0"}, "--steady-state-threshold 0: must be in (0, 1]", false},
		{[]string{"--steady-state-threshold", "1.5"}, "--steady-state-threshold 1.5: must be in (0, 1]", false},
		{[]string{"--steady-state-min-window", "-1"}, "--steady-state-min-window -1: must be at least 0", false},
		{[]string{"--sweep-max-concurrency", "1,,2"}, "--sweep-max-concurrency", false},
		{[]string{"--sweep-max-concurrency", "0"}, "a concurrency is at least 1", false},
		{[]string{"--sweep-request-rate", "0"}, "want a positive number or inf", false},
		{[]string{"--sweep-summary-percentiles", "101"}, "want numbers in [0, 100]", false},
		{[]string{"--num-runs", "-2"}, "want a non-negative integer", false},
		{[]string{"--compare", "a.json"}, "--compare: takes two files, FILE_A FILE_B, got 1", false},
		{[]string{"--profile-batch-threshold", "8"}, "--profile-batch-threshold 8: requires --profile", false},
		{[]string{"--profile", "--profile-duration", "3"}, "--profile-duration 3: needs --profile-batch-threshold", false},
		{[]string{"--multi-turn"}, "--multi-turn: needs --backend openai-chat", false},
		{[]string{"--backend", "openai-chat", "--multi-turn", "--dataset-name", "sharegpt", "--dataset-path", "x"}, "--multi-turn: vllm-bench's multi-turn mode with --dataset-name sharegpt is not supported yet", true},
		{[]string{"--backend", "openai-chat", "--multi-turn", "--multi-turn-min-turns", "5", "--multi-turn-max-turns", "2"}, "--multi-turn-min-turns: 5 is above the most turns, 2", false},
		{[]string{"--backend", "openai-chat", "--multi-turn", "--multi-turn-prefix-global-ratio", "0.2"}, "prefix-sharing multi-turn mode", true},
		{[]string{"--backend", "openai-chat", "--multi-turn", "--per-turn-input-len", "10"}, "later turns 10 tokens long while the first is 1024", true},
		{[]string{"--backend", "openai-chat", "--multi-turn", "--random-range-ratio", "0.5"}, "needs a fixed --random-output-len here", true},
		{[]string{"--max-model-len", "0"}, "a length is at least 1", false},
		{[]string{"--random-cache-hit-fraction", "0.4", "--random-cache-ratio", "0.5"}, "the bimodal cache mode needs --prompt-token-ids", false},
	} {
		_, err := ParseCommand(tc.args, Options{})
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) || e.Unsupported != tc.unsupported {
			t.Errorf("%q: error %v, want one containing %q (unsupported %v)", tc.args, err, tc.want, tc.unsupported)
		}
	}
	// clap takes no abbreviations: vLLM's still mean what they meant.
	if cmd, err := ParseCommand([]string{"--dataset-name", "hf", "--dataset-path", "d", "--no-st"}, Options{}); err != nil || fieldJSON(t, cmd.Scenario, "dataset.hf.no_stream") != "true" {
		t.Errorf("--no-st: %v", err)
	}
}
