package argv

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--backend", "openai", "--base-url", "http://127.0.0.1:8000", "--model", "vbench-sim", "--tokenizer", "o200k_base",
			"--dataset-name", "random", "--num-prompts", "50", "--random-input-len", "64", "--random-output-len", "32", "--seed", "0",
			"--save-result", "--result-dir", "D"},
			"--base-url http://127.0.0.1:8000 --model vbench-sim --tokenizer o200k_base --random-input-len 64 --random-output-len 32 --num-prompts 50 --save-result --result-dir D"},
		{[]string{"--input-len", "9", "--output_len=3", "--random-range-ratio", `{"input": 0.1, "output": 0.2}`},
			`--random-input-len 9 --random-output-len 3 --random-range-ratio {"input": 0.1, "output": 0.2}`},
		{[]string{"--top-p", "-0.5", "--label=-x", "--tokenizer-mode=", "--temperature", "1e-7", "--request-rate", "1e21"},
			"--tokenizer-mode= --request-rate 1e+21 --temperature 1e-07 --top-p=-0.5 --label=-x"},
		{[]string{"--metadata", "b=2", "-a=1 ", "--header=-h=v", "--goodput", "ttft:1.5", "e2el:2"},
			"--header  -h=v --goodput e2el:2 ttft:1.5 --metadata b=2  -a=1"},
		{[]string{"--extra-body.stop+", "a,b", "--extra-body.n", "1k"}, `--extra-body {"n":1000,"stop":["a","b"]}`},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "9", "--percentile-metrics", "e2el", "--metric-percentiles", "50,99.9"},
			"--ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 9 --percentile-metrics e2el --metric-percentiles 50,99.9"},
		{[]string{"--insecure", "--ignore-eos", "--vbench-extras", "--append-result"}, "--insecure --ignore-eos --append-result"},
		{[]string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--output-len", "-1", "--disable-shuffle", "--no-oversample",
			"--skip-chat-template", "--chat-template-kwargs", `{"enable_thinking": false}`},
			`--dataset-name custom --dataset-path p.jsonl --no-oversample --skip-chat-template --disable-shuffle --custom-output-len=-1 --chat-template-kwargs {"enable_thinking":false}`},
		{[]string{"--dataset-name", "custom", "--dataset-path", "p.jsonl"}, "--dataset-name custom --dataset-path p.jsonl"},
		{[]string{"--dataset-name", "sonnet", "--dataset-path", "s.txt", "--sonnet-prefix-len", "0", "--sonnet-input-len", "300", "--output-len", "5"},
			"--dataset-name sonnet --dataset-path s.txt --sonnet-input-len 300 --sonnet-prefix-len 0"},
		{[]string{"--dataset-name", "burstgpt", "--dataset-path", "t.csv", "--seed", "3"}, "--seed 3 --dataset-name burstgpt --dataset-path t.csv"},
		{[]string{"--dataset-name", "spec_bench", "--dataset-path", "q.jsonl", "--spec-bench-category", "math", "--output-len", "7", "--no-oversample", "--disable-shuffle"},
			"--dataset-name spec_bench --dataset-path q.jsonl --no-oversample --disable-shuffle --spec-bench-output-len 7 --spec-bench-category math"},
		{[]string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--backend", "vllm", "--timed-trace-sec-multiplier", "0.001",
			"--timed-trace-chunk-hash-size", "512", "--timed-trace-label-hash-ids", "blocks", "--no-self-timed", "--request-rate", "4"},
			"--backend vllm --dataset-name timed_trace --dataset-path t.jsonl --timed-trace-chunk-hash-size 512 --timed-trace-sec-multiplier 0.001 --timed-trace-label-hash-ids blocks --no-self-timed --request-rate 4"},
		{[]string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--self-timed"}, "--dataset-name timed_trace --dataset-path t.jsonl --self-timed"},
		{[]string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl"}, "--dataset-name timed_trace --dataset-path t.jsonl"},
		{[]string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--speed-bench-config", "throughput_2k", "--speed-bench-category", "coding",
			"--output-len", "7", "--speed-bench-output-len", "9", "--skip-chat-template", "--chat-template-kwargs", `{"a": 1}`, "--disable-shuffle"},
			`--dataset-name speed_bench --dataset-path sb --skip-chat-template --disable-shuffle --speed-bench-dataset-subset throughput_2k --speed-bench-output-len 9 --speed-bench-category coding --chat-template-kwargs {"a":1}`},
		{[]string{"--dataset-name", "speed_bench", "--dataset-path", "sb", "--speed-bench-dataset-subset", "qualitative", "--speed-bench-output-len", "4096"},
			"--dataset-name speed_bench --dataset-path sb"},
		{[]string{"--plot-dataset-stats", "--save-result"}, "--save-result --plot-dataset-stats"},
		{[]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char", "--blazedit-min-distance", "0.0", "--blazedit-max-distance", "1"},
			"--dataset-name hf --dataset-path vdaita/edit_5k_char"},
		{[]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_10k_char", "--blazedit-max-distance", "0.75", "--blazedit-min-distance", "1e-1"},
			"--dataset-name hf --dataset-path vdaita/edit_10k_char --blazedit-min-distance 0.1 --blazedit-max-distance 0.75"},
		{[]string{"--profile", "--disable-tqdm"}, "--profile --disable-tqdm"},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "25,50"}, "--plot-timeline"},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "10, 62.5"}, "--plot-timeline --timeline-itl-thresholds 10,62.5"},
		{[]string{"--lora-assignment", "round-robin", "--lora-modules", "a", "b"}, "--lora-modules a b --lora-assignment round-robin"},
	} {
		s, err := Parse(tc.args, Options{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		out, err := Format(s)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if got := strings.Join(out, " "); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, got, tc.want)
		}
		back, err := Parse(out, Options{})
		if err != nil {
			t.Fatalf("re-parse %q: %v", out, err)
		}
		if back.Hash() != s.Hash() {
			t.Errorf("%q: round trip changed the scenario:\n%s\n%s", tc.args, s.Canonical(), back.Canonical())
		}
	}
}

// Scenario files that have a command line round-trip through it.
func TestFormatScenarioFiles(t *testing.T) {
	for _, src := range []string{
		"",
		"target: {backend: \"openai-chat\", endpoint: \"/v1/chat/completions\", headers: {\"X-Key\": \"s\", \"-odd\": \"v\"}}\n",
		"load: {request_rate: 0.5, burstiness: \"inf\", max_concurrency: 3, num_warmups: 1}\nseed: 4294967295\n",
		"dataset: random: {range_ratio: {input: 0.5, output: 0}, prefix_len: 3}\n",
		"sampling: {extra_body: {a: [1, {b: null}], c: 1.5e-7, d: \"x y\"}, logprobs: 0, top_k: 0}\n",
		"output: {metadata: {\"\": \"empty key\", k: \"v=w\"}, label: \"--config\", result_filename: \"-r.json\"}\n",
		"metrics: {goodput: {tpot: 0}, percentile_metrics: [\"e2el\", \"ttft\", \"e2el\"], metric_percentiles: [0.001, 100]}\n",
		"load: {ramp_up: {strategy: \"exponential\", start_rps: 1, end_rps: 1000}}\n",
	} {
		s, err := scenario.LoadBytes("s.cue", []byte(src), scenario.Options{})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		args, err := Format(s)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		back, err := Parse(args, Options{})
		if err != nil {
			t.Fatalf("%q: parse %q: %v", src, args, err)
		}
		if back.Hash() != s.Hash() {
			t.Errorf("%q: round trip through %q changed the scenario:\n%s\n%s", src, args, s.Canonical(), back.Canonical())
		}
	}
}

// The shipped kimi-8k scenario gives the command line its comment shows.
func TestFormatKimi(t *testing.T) {
	s, err := scenario.LoadFiles([]string{"../../scenarios/kimi-8k.cue"}, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	args, err := Format(s)
	if err != nil {
		t.Fatal(err)
	}
	want := "--backend vllm --base-url http://127.0.0.1:8000 --model nvidia/Kimi-K2.5-NVFP4 --random-input-len 8192 --random-output-len 1024 " +
		"--num-prompts 4096 --max-concurrency 1400 --ignore-eos --percentile-metrics ttft,tpot,itl,e2el --save-result"
	if got := strings.Join(args, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if d := Dropped(s); !slices.Equal(d, []string{`name "kimi-8k"`}) {
		t.Errorf("Dropped = %q", d)
	}
}

func TestFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"target: simulator: {}\n", "target.simulator: the built-in simulator has no vllm bench serve form"},
		{"repeat: count: 2\n", "sweep/repeat/compare: an experiment has no vllm bench serve form"},
		{"target: ca_file: \"ca.pem\"\n", "target.ca_file: vllm bench serve has no flag for a CA file"},
		{"target: request_timeout: 30\n", "target.request_timeout: vllm bench serve has no flag for the request timeout (its client waits up to 6 hours)"},
		{"tokenizer: revision: \"main\"\n", "tokenizer.revision: vllm bench serve has no flag"},
		{"dataset: spec_bench: {path: \"q.jsonl\", skip_chat_template: true}\n", "dataset.spec_bench.skip_chat_template: has no vllm bench serve form: vllm bench serve applies the chat template"},
		{"dataset: sonnet: {}\n", "dataset.sonnet.path: vllm bench serve needs --dataset-path for sonnet"},
		{"dataset: custom: {path: \"p.jsonl\", enable_multimodal_chat: true}\n", "dataset.custom.enable_multimodal_chat: vbench serve does not support --enable-multimodal-chat yet"},

		{"target: headers: {\"a\": \" b\"}\n", `target.headers "a": has no vllm bench serve form`},
		{"output: metadata: {\"a=b\": \"c\"}\n", `output.metadata "a=b": has no vllm bench serve form`},
		{"load: ramp_up: {strategy: \"linear\", start_rps: 1, end_rps: 2}\n", ""},
	} {
		s, err := scenario.LoadBytes("s.cue", []byte(tc.src), scenario.Options{})
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		_, err = Format(s)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.src, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.src, err, tc.want)
		}
	}
}

// A scenario built in Go can hold what a file cannot; Format still refuses.
func TestFormatSeedRange(t *testing.T) {
	s := scenario.Default()
	s.Seed = -1
	if _, err := Format(s); err == nil || !strings.Contains(err.Error(), "seed -1: vllm bench serve takes seeds from 0 to 4294967295") {
		t.Errorf("err = %v", err)
	}
}

func TestDropped(t *testing.T) {
	s, err := scenario.LoadBytes("s.cue", []byte("name: \"n\"\noutput: records: false\n"), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := Dropped(s); !slices.Equal(got, []string{`name "n"`, "output.records false"}) {
		t.Errorf("Dropped = %q", got)
	}
	if got := Dropped(scenario.Default()); got != nil {
		t.Errorf("Dropped(default) = %q", got)
	}
}

// vbench serve's --overwrite sets output.overwrite; vllm bench serve has no
// such flag, so Format leaves it out and Dropped names it.
func TestOverwrite(t *testing.T) {
	s, err := Parse([]string{"--overwrite", "--save-result"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Output.Overwrite {
		t.Fatal("--overwrite did not set output.overwrite")
	}
	args, err := Format(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, []string{"--save-result"}) {
		t.Errorf("Format = %q, want only --save-result", args)
	}
	if d := Dropped(s); !slices.Contains(d, "output.overwrite true") {
		t.Errorf("Dropped = %q, want output.overwrite true", d)
	}
	if def, _ := Parse(nil, Options{}); def.Output.Overwrite || slices.Contains(Dropped(def), "output.overwrite true") {
		t.Error("output.overwrite set without the flag")
	}
}
