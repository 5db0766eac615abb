package argv

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// files is a fake file system for --config.
func files(m map[string]string) Options {
	return Options{ReadFile: func(name string) ([]byte, error) {
		if s, ok := m[name]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", name, os.ErrNotExist)
	}}
}

// TestDialect checks that each command line means the same scenario as a
// plainly written one.
func TestDialect(t *testing.T) {
	cfg := files(map[string]string{
		"c.yaml": "num-prompts: 5\nsave_result: true\nignore-eos: false\nmetadata: [a=1, b=2]\n" +
			"extra-body: {temperature: 0, stop: [x]}\nmax-concurrency: 4\n",
		"yaml11.yml":  "save-result: yes\nseed: 0x10\nrequest-rate: 1.5\ndisable-tqdm: on\nlabel: 0.50\n",
		"dotted.yaml": "extra-body.top_k: 5\n",
	})
	for _, tc := range []struct {
		name      string
		args, std []string
		opts      Options
	}{
		{"underscores", []string{"--num_prompts", "5", "--random_input_len=7"}, []string{"--num-prompts", "5", "--random-input-len", "7"}, Options{}},
		{"equals", []string{"--num-prompts=5", "--label=a=b"}, []string{"--num-prompts", "5", "--label", "a=b"}, Options{}},
		{"abbreviation", []string{"--num-prom", "5", "--save-res", "--random-in=7"}, []string{"--num-prompts", "5", "--save-result", "--random-input-len", "7"}, Options{}},
		{"exact beats prefix", []string{"--tokenizer", "o200k_base"}, []string{"--tokenizer=o200k_base"}, Options{}},
		{"last wins", []string{"--num-prompts", "3", "--num-prompts", "5"}, []string{"--num-prompts", "5"}, Options{}},
		{"nargs last wins", []string{"--header", "a=1", "--header", "b=2"}, []string{"--header", "b=2"}, Options{}},
		{"nargs zero values", []string{"--header", "--metadata", "--save-result"}, []string{"--save-result"}, Options{}},
		{"nargs stop at option", []string{"--metadata", "a=1", "b=2", "--label", "x"}, []string{"--label", "x", "--metadata", "a=1", "b=2"}, Options{}},
		{"nargs explicit", []string{"--goodput=ttft:5"}, []string{"--goodput", "ttft:5"}, Options{}},
		{"negative int", []string{"--top-k", "-1"}, []string{"--top-k=-1"}, Options{}},
		{"negative float", []string{"--top-p", "-0.5", "--min-p", "-.5"}, []string{"--top-p=-0.5", "--min-p=-0.5"}, Options{}},
		{"negative exponent", []string{"--temperature", "-1e-3"}, []string{"--temperature=-0.001"}, Options{}},
		{"python int", []string{"--num-prompts", " 1_000 "}, []string{"--num-prompts", "1000"}, Options{}},
		{"python float", []string{"--request-rate", "1e1", "--burstiness", "Infinity"}, []string{"--request-rate", "10", "--burstiness", "inf"}, Options{}},
		{"request rate inf", []string{"--request-rate", "INF"}, nil, Options{}},
		{"probe rate", []string{"--probe-request-rate", "2e1"}, []string{"--probe-request-rate", "20"}, Options{}},
		{"negative probe rate is off", []string{"--probe-request-rate", "-1"}, nil, Options{}},
		{"value with space", []string{"--label", "-x y"}, []string{"--label=-x y"}, Options{}},
		{"dotted", []string{"--extra-body.temperature", "0", "--extra-body.top_k=5"}, []string{"--extra-body", `{"temperature": 0, "top_k": 5}`}, Options{}},
		{"dotted keeps sub-key underscores", []string{"--extra_body.max_tokens", "3"}, []string{"--extra-body", `{"max_tokens": 3}`}, Options{}},
		{"dotted nested", []string{"--extra-body.a.b", "x", "--extra-body.a.c", "true"}, []string{"--extra-body", `{"a": {"b": "x", "c": true}}`}, Options{}},
		{"dotted list", []string{"--extra-body.stop+", "a,b", "--extra-body.stop+=c"}, []string{"--extra-body", `{"stop": ["a", "b", "c"]}`}, Options{}},
		{"dotted human int", []string{"--extra-body.a", "1k", "--extra-body.b", "2K", "--extra-body.c", "25.6k", "--extra-body.d", "1.5K"},
			[]string{"--extra-body", `{"a": 1000, "b": 2048, "c": 25600, "d": "1.5K"}`}, Options{}},
		{"dotted wins over plain", []string{"--extra-body.b", "2", "--extra-body", `{"a": 1}`}, []string{"--extra-body", `{"b": 2}`}, Options{}},
		{"dotted abbreviation", []string{"--extra.b", "2"}, []string{"--extra-body", `{"b": 2}`}, Options{}},
		{"dotted range ratio", []string{"--random-range-ratio.input", "0.1", "--random-range-ratio.output", "0.2"},
			[]string{"--random-range-ratio", `{"input": 0.1, "output": 0.2}`}, Options{}},
		{"config", []string{"--config", "c.yaml", "--num-prompts", "7"},
			[]string{"--num-prompts", "7", "--save-result", "--metadata", "a=1", "b=2", "--extra-body", `{"temperature": 0, "stop": ["x"]}`, "--max-concurrency", "4"}, cfg},
		{"config after flags", []string{"--num-prompts", "7", "--config=c.yaml"},
			[]string{"--num-prompts", "7", "--save-result", "--metadata", "a=1", "b=2", "--extra-body", `{"temperature": 0, "stop": ["x"]}`, "--max-concurrency", "4"}, cfg},
		{"config yaml 1.1", []string{"--config", "yaml11.yml"}, []string{"--save-result", "--seed", "16", "--request-rate", "1.5", "--disable-tqdm", "--label", "0.5"}, cfg},
		{"config dotted key", []string{"--config", "dotted.yaml"}, []string{"--extra-body", `{"top_k": 5}`}, cfg},
		{"range ratio json", []string{"--random-range-ratio", `{"output": 0.3, "input": 0.3}`}, []string{"--random-range-ratio", "0.3"}, Options{}},
		{"empty percentile metrics", []string{"--percentile-metrics", ""}, nil, Options{}},
		{"extra body null", []string{"--extra-body", "null"}, nil, Options{}},
		{"ramp-up rates alone", []string{"--ramp-up-start-rps", "1"}, nil, Options{}},
		{"metadata repeated key", []string{"--metadata", "a=1", "b=2", "a=3"}, []string{"--metadata", "b=2", "a=3"}, Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.args, tc.opts)
			if err != nil {
				t.Fatalf("%q: %v", tc.args, err)
			}
			want, err := Parse(tc.std, tc.opts)
			if err != nil {
				t.Fatalf("%q: %v", tc.std, err)
			}
			if got.Hash() != want.Hash() {
				t.Errorf("%q and %q differ:\n%s\n%s", tc.args, tc.std, got.Canonical(), want.Canonical())
			}
		})
	}
}

func TestMetadataOrder(t *testing.T) {
	cmd, err := ParseCommand([]string{"--metadata", "zeta=1", "alpha=2", "zeta=3", "mid=4"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range cmd.Scenario.Output.Metadata {
		keys = append(keys, kv.Key)
	}
	if got := strings.Join(keys, ","); got != "zeta,alpha,mid" {
		t.Errorf("metadata keys = %s, want zeta,alpha,mid", got)
	}
	if v, _ := cmd.Scenario.Output.Metadata.Get("zeta"); v != "3" {
		t.Errorf("zeta = %q, want 3", v)
	}
	// Format writes the keys back in the same order.
	out, err := Format(cmd.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(out, " "), "--metadata zeta=3 alpha=2 mid=4"; got != want {
		t.Errorf("Format = %s, want %s", got, want)
	}
}

func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--num-prompts", "3", "--num-prom", "5"}, "--num-prompts was given 2 times: the last one wins"},
		{[]string{"--extra-body.a", "1", "--extra-body.a", "2"}, "duplicate key --extra-body.a: the last value wins"},
		{[]string{"--ramp-up-end-rps", "4"}, "--ramp-up-end-rps has no effect without --ramp-up-strategy"},
		{[]string{"--probe-request-rate", "-0.5"}, "--probe-request-rate is negative: no probe requests are sent (as in vllm bench serve)"},
		{[]string{"--timeline-itl-thresholds", "bad"}, "--timeline-itl-thresholds has no effect without --plot-timeline (as in vllm bench serve)"},
	} {
		cmd, err := ParseCommand(tc.args, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(cmd.Warnings, "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("%q: warnings %q, want %q", tc.args, got, tc.want)
		}
	}
	// Overriding a --config flag on the command line is what --config is for.
	cfg := files(map[string]string{"c.yaml": "num_prompts: 3\nseed: 1\n"})
	for _, args := range [][]string{{"--num-prompts", "3"}, {"--config", "c.yaml", "--num-prompts", "7"}} {
		cmd, err := ParseCommand(args, cfg)
		if err != nil || len(cmd.Warnings) > 0 {
			t.Errorf("%q: warnings %q, err %v", args, cmd.Warnings, err)
		}
	}
	cmd, err := ParseCommand([]string{"--config", "c.yaml", "--num-prompts", "7", "--num-prompts", "8"}, cfg)
	if err != nil || len(cmd.Warnings) != 1 || !strings.Contains(cmd.Warnings[0], "--num-prompts was given 2 times") {
		t.Errorf("config plus two repeats: warnings %q, err %v", cmd.Warnings, err)
	}
}

func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		keyword string
	}{
		{[]string{"-h"}, ""},
		{[]string{"--help"}, ""},
		{[]string{"--num-prompts", "5", "--hel"}, ""},
		{[]string{"--help=Random"}, "random"},
	} {
		_, err := Parse(tc.args, Options{})
		var he *HelpError
		if !errors.As(err, &he) || !errors.Is(err, ErrHelp) {
			t.Errorf("%q: err = %v, want a help request", tc.args, err)
			continue
		}
		if he.Keyword != tc.keyword {
			t.Errorf("%q: keyword %q, want %q", tc.args, he.Keyword, tc.keyword)
		}
	}
	// An error before the help flag comes first, as in argparse.
	if _, err := Parse([]string{"--num-prompts", "x", "--help"}, Options{}); errors.Is(err, ErrHelp) || err == nil {
		t.Errorf("error before --help: got %v", err)
	}
}

// TestErrors checks each error: an *Error, one line, naming the flag.
func TestErrors(t *testing.T) {
	cfg := files(map[string]string{"a.yaml": "self-timed: false\n", "list.yaml": "- a\n", "bad.yaml": "a: [\n"})
	for _, tc := range []struct {
		args        []string
		want        string
		unsupported bool
	}{
		{[]string{"--ra", "5"}, "--ra: ambiguous option: could match --ramp-up-end-rps, --ramp-up-start-rps", false},
		{[]string{"--he"}, "--he: ambiguous option: could match --header, --help", false},
		{[]string{"--foo"}, "unrecognized arguments: --foo", false},
		{[]string{"--num-promts", "5"}, "unrecognized arguments: --num-promts 5 (did you mean --num-prompts?)", false},
		{[]string{"extra"}, "unrecognized arguments: extra", false},
		{[]string{"--num-prompts", "1", "2"}, "unrecognized arguments: 2", false},
		{[]string{"--header=a=1", "b=2"}, "unrecognized arguments: b=2", false},
		{[]string{"-x"}, "unrecognized arguments: -x", false},
		{[]string{"--", "--num-prompts", "5"}, "unrecognized arguments: --num-prompts 5", false},
		{[]string{"--num-prompts"}, "--num-prompts: expected one argument", false},
		{[]string{"--num-prompts", "--seed", "1"}, "--num-prompts: expected one argument", false},
		{[]string{"--goodput"}, "--goodput: expected at least one argument", false},
		{[]string{"--extra-body.x"}, "--extra-body.x: expected one argument", false},
		{[]string{"--num-prompts", "ten"}, "--num-prompts ten: invalid int value: 'ten'", false},
		{[]string{"--num-prompts", "1.5"}, "--num-prompts 1.5: invalid int value: '1.5'", false},
		{[]string{"--seed", "99999999999999999999"}, "--seed 99999999999999999999: int value '99999999999999999999' is out of range", false},
		{[]string{"--request-rate", "fast"}, "--request-rate fast: invalid float value: 'fast'", false},
		{[]string{"--save-result=1"}, "--save-result: ignored explicit argument '1'", false},
		{[]string{"-hx"}, "-h/--help: ignored explicit argument 'x'", false},
		{[]string{"--backend", "nope"}, "--backend: invalid choice: 'nope' (choose from vllm, openai, openai-chat, openai-audio", false},
		{[]string{"--ramp-up-strategy", "step"}, "--ramp-up-strategy: invalid choice: 'step' (choose from linear, exponential)", false},
		{[]string{"--dataset-name", "custom_image", "--dataset-path", "i.jsonl"}, "target.backend: dataset custom_image needs backend openai-chat", false},
		{[]string{"--dataset-name", "random-mm"}, "target.backend: dataset random_mm needs backend openai-chat", false},
		{[]string{"--random-mm-bucket-config", "{(1, 2): 0.5}"}, "--random-mm-bucket-config '{(1, 2): 0.5}': invalid value", false},
		{[]string{"--random-mm-limit-mm-per-prompt", `{"image": -1}`}, "the cap of 'image' must be an integer >= 0", false},
		{[]string{"--random-mm-num-mm-items-range-ratio", "1.5"}, "--random-mm-num-mm-items-range-ratio 1.5: invalid value '1.5' (want a ratio in [0, 1])", false},
		{[]string{"--random-batch-size", "0"}, "--random-batch-size 0: must be at least 1, got 0", false},
		{[]string{"--dataset-name", "random-rerank", "--dataset-path", "d.json"}, "--dataset-path d.json: the random-rerank dataset is generated and reads no file", false},
		{[]string{"--dataset-name", "timed_trace"}, "--dataset-name timed_trace: the timed_trace dataset needs --dataset-path (a JSONL trace", false},
		{[]string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions"}, "--backend openai-chat: dataset timed_trace needs backend vllm or openai, got \"openai-chat\"", false},
		{[]string{"--dataset-name", "timed_trace", "--dataset-path", "t.jsonl", "--timed-trace-chunk-hash-size", "0"}, "--timed-trace-chunk-hash-size 0:", false},
		{[]string{"--dataset-name", "prefix_repetition", "--dataset-path", "p.json"}, "--dataset-path p.json: the prefix_repetition dataset is generated and reads no file: leave --dataset-path out (vllm bench serve refuses it too)", false},
		{[]string{"--dataset-path", "p.json"}, "--dataset-path p.json: the random dataset is generated and reads no file", false},
		{[]string{"--dataset-name", "custom"}, "--dataset-name custom: the custom dataset needs --dataset-path (a JSONL file with a prompt per line)", false},
		{[]string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--custom-output-len", "-2"}, "--custom-output-len -2: invalid value -2 (out of bound >=-1)", false},
		{[]string{"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--chat-template-kwargs", "[1]"}, `--chat-template-kwargs [1]: invalid value '[1]' (want a JSON object`, false},
		{[]string{"--lora-modules"}, "--lora-modules: expected at least one argument", false},
		{[]string{"--lora-assignment", "sticky"}, "--lora-assignment: invalid choice: 'sticky' (choose from random, round-robin)", false},
		{[]string{"--self-timed"}, "--self-timed: is only supported with --dataset-name timed_trace (as in vllm bench serve)", false},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", "s.json", "--no-self-timed"}, "--no-self-timed: is only supported with --dataset-name timed_trace", false},
		{[]string{"--use_beam_search"}, "--use-beam-search: not supported yet", true},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "25,50,75"}, "--timeline-itl-thresholds 25,50,75: invalid format: expected 2 ITL threshold values, got 3 (want two comma-separated thresholds in milliseconds, e.g. 25,50)", false},
		{[]string{"--plot-time", "--timeline-itl-thresholds", "25, x"}, "--timeline-itl-thresholds '25, x': invalid format: could not convert string to float: 'x'", false},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds=50"}, "--timeline-itl-thresholds 50: invalid format: expected 2 ITL threshold values, got 1", false},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "10,inf"}, "--timeline-itl-thresholds 10,inf: invalid format: the thresholds must be finite numbers of milliseconds >= 0, got inf", false},
		{[]string{"--config", "a.yaml"}, "--no-self-timed: is only supported with --dataset-name timed_trace", false},
		{[]string{"--max-concurrency", "0"}, "--max-concurrency 0: must be greater than 0", false},
		{[]string{"--seed", "-1"}, "--seed -1: must be between 0 and 4294967295", false},
		{[]string{"--probe-request-rate", "nan"}, "--probe-request-rate nan: invalid value 'nan'", false},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1"}, "--ramp-up-strategy linear: needs both --ramp-up-start-rps and --ramp-up-end-rps", false},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "2", "--request-rate", "5"}, "--request-rate 5: must not be set with --ramp-up-strategy", false},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "5", "--ramp-up-end-rps", "1"}, "--ramp-up-start-rps: must not exceed --ramp-up-end-rps (got 5 > 1)", false},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "-1", "--ramp-up-end-rps", "1"}, "must be non-negative", false},
		{[]string{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "1"}, "--ramp-up-start-rps 0: an exponential ramp-up cannot start at 0", false},
		{[]string{"--header", "novalue"}, "--header: invalid header 'novalue' (want KEY=VALUE", false},
		{[]string{"--metadata", "a=1", "b"}, "--metadata a=1 b: invalid metadata item 'b' (want KEY=VALUE)", false},
		{[]string{"--goodput", "ttft"}, "--goodput ttft: invalid service level objective 'ttft'", false},
		{[]string{"--goodput", "ttft:1 tpot:2"}, "invalid service level objective 'ttft:1 tpot:2'", false},
		{[]string{"--goodput", "itl:5"}, "--goodput itl:5: invalid metric name 'itl' (want ttft, tpot or e2el)", false},
		{[]string{"--goodput", "ttft:-1"}, "--goodput ttft:-1: invalid value -1 for ttft (want a number of milliseconds >= 0)", false},
		{[]string{"--goodput", "ttft:inf"}, "invalid value inf for ttft (want a finite number of milliseconds)", false},
		{[]string{"--extra-body", "[1]"}, "--extra-body [1]: invalid value '[1]' (want a JSON object", false},
		{[]string{"--extra-body", "{"}, "--extra-body {: invalid JSON value '{'", false},
		{[]string{"--extra-body", `{"a": NaN}`}, "invalid JSON value", false},
		{[]string{"--percentile-metrics", "ttft, tpot"}, "--percentile-metrics 'ttft, tpot': unknown metric ' tpot'", false},
		{[]string{"--metric-percentiles", "99,x"}, "--metric-percentiles 99,x: invalid percentile 'x'", false},
		{[]string{"--metric-percentiles", "-1"}, "--metric-percentiles -1: invalid value -1 (out of bound >=0)", false},
		{[]string{"--metric-percentiles", "100.5"}, "--metric-percentiles 100.5: invalid value 100.5 (out of bound <=100)", false},
		{[]string{"--random-range-ratio", "1"}, "--random-range-ratio 1: invalid value '1' (want a ratio in [0, 1)", false},
		{[]string{"--random-range-ratio", `{"input": 0.1}`}, "--random-range-ratio", false},
		{[]string{"--random-range-ratio", `{"input": 0.1, "output": 2}`}, "invalid output ratio 2", false},
		{[]string{"--port", "0"}, "--port 0: invalid value 0 (out of bound >0)", false},
		{[]string{"--num-prompts", "-1"}, "--num-prompts -1: invalid value -1 (out of bound >=0)", false},
		{[]string{"--input-len", "-3"}, "--input-len -3: invalid value -3", false},
		{[]string{"--burstiness", "nan"}, "--burstiness nan: invalid value 'nan'", false},
		{[]string{"--temperature", "inf"}, "--temperature inf: invalid value 'inf': want a finite number", false},
		{[]string{"--request-id-prefix", ""}, "--request-id-prefix '': an empty prefix is not supported yet", false},
		{[]string{"--config", "a.json"}, "--config a.json: the config file must be a .yaml or .yml file", false},
		{[]string{"--config"}, "--config: expected a YAML file", false},
		{[]string{"--config", "a.yaml", "--config", "a.yaml"}, "--config: given more than once", false},
		{[]string{"--config", "missing.yaml"}, "--config missing.yaml: cannot read the config file", false},
		{[]string{"--config", "list.yaml"}, "--config list.yaml: want a YAML mapping", false},
		{[]string{"--config", "bad.yaml"}, "--config bad.yaml: invalid YAML", false},
	} {
		_, err := Parse(tc.args, cfg)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: err = %v (%T), want an *Error", tc.args, err, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, err, tc.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error spans lines: %q", tc.args, err)
		}
		if e.Unsupported != tc.unsupported {
			t.Errorf("%q: Unsupported = %v, want %v", tc.args, e.Unsupported, tc.unsupported)
		}
	}
}

// TestHeaderErrorRedacted checks that a malformed --header names only the
// header's key, never its value.
func TestHeaderErrorRedacted(t *testing.T) {
	for _, args := range [][]string{
		{"--header", "Authorization: Bearer sk-SECRET"},
		{"--header", "Authorization:Bearer sk-SECRET"},
		{"--header", "Authorization sk-SECRET"},
		{"--header", "a=1", "X-Key: sk-SECRET"},
	} {
		_, err := Parse(args, Options{})
		if err == nil {
			t.Fatalf("%q: no error", args)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%q: error shows the secret: %s", args, err)
		}
		if !strings.Contains(err.Error(), "<redacted>") {
			t.Errorf("%q: error does not say the value is redacted: %s", args, err)
		}
	}
}
