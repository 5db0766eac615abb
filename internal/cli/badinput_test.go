package cli_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/pierrec/lz4/v4"

	"github.com/vbench/vbench/internal/cli"
)

// badInput is one bad input a new user may give vbench, and what vbench
// must do with it: exit with a code and say what is wrong (and where) in
// a message matching stderr. Add a row for each defect found by trying
// vbench out; files are written to a temporary working directory.
//
// Every row is checked for a panic or a Go stack trace on stderr; a row
// that fails (exit code not 0) must end stderr with one line, "vbench: "
// and the error, which names the place (file:line:col, a flag, a field
// path or a file and its line) and which the row's stderr matches.
type badInput struct {
	name string
	// issue is the issue item the row pins ("11.1" is issue 11, item 1).
	issue string
	// files are written to the working directory (binary content is
	// fine); a name ending in "/" is made a directory instead, standing
	// for a file that cannot be read as one (chmod 000 does not stop
	// root, which tests may run as).
	files map[string]string
	// copies are files copied into the working directory: name there →
	// path from this package's directory.
	copies map[string]string
	args   []string
	exit   int
	// stderr and stdout are regular expressions (multi-line mode) that
	// must match; an empty one is not checked. When the row fails, stderr
	// is matched against the error line alone and starts "^vbench: ".
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
		stderr: `^vbench: tokenizer\.name \(--tokenizer\): unknown tokenizer "o300k_base"; did you mean o200k_base\?`},
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
	// Issue 22, item 4: bad input of every kind, each answered with the
	// exit code and one line naming the place and what is allowed.

	// Malformed CUE: file:line:col.
	{name: "CUE unclosed brace", issue: "22.4",
		files: map[string]string{"s.cue": "load: {num_prompts: 5\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:23: expected '}', found 'EOF'$`},
	{name: "CUE stray comma", issue: "22.4",
		files: map[string]string{"s.cue": "load: num_prompts: 5,,\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:22: expected operand, found ','$`},
	{name: "CUE unknown top-level field lists the fields", issue: "22.4",
		files: map[string]string{"s.cue": "benchmark: {}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:1: benchmark: field not allowed \(allowed: compare, dataset, load, .*, target, tokenizer\)$`},
	{name: "CUE unknown dataset kind lists the kinds", issue: "22.4",
		files: map[string]string{"s.cue": "dataset: mooncake: {}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:10: dataset\.mooncake: field not allowed \(allowed: burstgpt, conversations, custom, .*, sharegpt, sonnet, spec_bench, speed_bench, timed_trace\)$`},
	{name: "CUE field of another dataset kind", issue: "22.4",
		files: map[string]string{"s.cue": "dataset: sharegpt: {path: \"sg.json\", input_len: 5}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:38: dataset\.sharegpt\.input_len: field not allowed \(allowed: disable_shuffle, enable_multimodal_chat, no_oversample, output_len, path\)$`},
	{name: "JSON scenario with a wrong type", issue: "22.4",
		files: map[string]string{"s.json": `{"load": {"num_prompts": "x"}}`},
		args:  []string{"vet", "s.json"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.json:1:26: load\.num_prompts: conflicting values "x" and int \(mismatched types string and int\)$`},

	// Malformed YAML: file:line:col where the parser found it.
	{name: "YAML tab indentation", issue: "22.4",
		files: map[string]string{"s.yaml": "load:\n  num_prompts: 5\n\tmax_concurrency: 2\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:3:1: found a tab character that violates indentation$`},
	{name: "YAML unclosed flow sequence", issue: "22.4",
		files: map[string]string{"s.yaml": "metrics:\n  percentile_metrics: [ttft, tpot\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:2:23: while parsing a flow sequence started here: did not find expected ',' or '\]' at the end of the file$`},
	{name: "YAML unclosed quote", issue: "22.4",
		files: map[string]string{"s.yaml": "target:\n  model: \"vbench-sim\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:2:10: while scanning a quoted scalar started here: found unexpected end of stream$`},
	{name: "YAML with two documents", issue: "22.4",
		files: map[string]string{"s.yaml": "load:\n  num_prompts: 5\n---\nload:\n  num_prompts: 6\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:3:1: a second YAML document: a scenario file holds one \(remove the --- separator, or give each document its own file and pass them all\)$`},
	{name: "YAML duplicate key", issue: "22.4",
		files: map[string]string{"s.yaml": "load:\n  num_prompts: 5\n  num_prompts: 6\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:2:16: load\.num_prompts: conflicting values 6 and 5 \(also s\.yaml:3:16\)$`},

	// Wrong types.
	{name: "string for an integer in CUE", issue: "22.4",
		files: map[string]string{"s.cue": "load: num_prompts: \"ten\"\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:20: load\.num_prompts: conflicting values "ten" and int \(mismatched types string and int\)$`},
	{name: "fraction for an integer", issue: "22.4",
		files: map[string]string{"s.cue": "load: num_prompts: 2.5\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:20: load\.num_prompts: conflicting values 2\.5 and int \(mismatched types float and int\)$`},
	{name: "YAML list for an integer", issue: "22.4",
		files: map[string]string{"s.yaml": "load:\n  num_prompts: [1, 2]\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:2:16: load\.num_prompts: conflicting values \[1,2\] and int \(mismatched types list and int\)$`},
	{name: "YAML scalar for a struct", issue: "22.4",
		files: map[string]string{"s.yaml": "load: 5\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:1:7: load: conflicting values 5 and \{\.\.\.\} \(mismatched types int and struct\)$`},
	{name: "YAML headers as a list", issue: "22.4",
		files: map[string]string{"s.yaml": "target:\n  headers:\n    - X-A=1\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:3:5: target\.headers: conflicting values .* \(mismatched types list and struct\)$`},
	{name: "YAML request rate that is not a rate", issue: "22.4",
		files: map[string]string{"s.yaml": "load:\n  request_rate: fast\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:2:17: load\.request_rate: invalid value "fast" \(want one of number, "inf"\)$`},
	{name: "unknown backend", issue: "22.4",
		files: map[string]string{"s.cue": "target: backend: \"tgi\"\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:18: target\.backend: invalid value "tgi" \(want one of "anthropic-messages", .*, "vllm-rerank"\)$`},
	{name: "unknown speed_bench subset", issue: "22.4",
		files: map[string]string{"s.cue": "dataset: speed_bench: {path: \"sb\", subset: \"tiny\"}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:44: dataset\.speed_bench\.subset: invalid value "tiny" \(want one of "qualitative", .*\)$`},

	// Impossible combinations.
	{name: "two dataset kinds", issue: "22.4",
		files: map[string]string{"s.cue": "dataset: random: {}\ndataset: sonnet: {}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:2:10: dataset: exactly one dataset kind may be set, got random and sonnet$`},
	{name: "ramp-up with a request rate", issue: "22.4",
		files: map[string]string{"s.cue": "load: {ramp_up: {strategy: \"linear\", start_rps: 1, end_rps: 5}, request_rate: 10}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:8: load\.ramp_up: load\.ramp_up needs load\.request_rate "inf" \(the ramp sets the rate\), got 10$`},
	{name: "two files set different values", issue: "22.4",
		files: map[string]string{"a.cue": "load: num_prompts: 5\n", "b.yaml": "load:\n  num_prompts: 6\n"},
		args:  []string{"vet", "a.cue", "b.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: a\.cue:1:20: load\.num_prompts: conflicting values 6 and 5 \(also b\.yaml:2:16\)$`},
	{name: "image dataset with a text backend", issue: "22.4",
		files: map[string]string{"s.cue": "dataset: custom_image: path: \"i.jsonl\"\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue: target\.backend: dataset custom_image needs backend openai-chat, .* or infinity-embeddings-clip, got "openai"$`},
	{name: "chat backend on the completions endpoint", issue: "22.4",
		files: map[string]string{"s.cue": "target: backend: \"openai-chat\"\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: target\.endpoint "/v1/completions": the OpenAI Chat Completions API URL must end with one of: \{'chat/completions', 'profile'\} \(e\.g\. /v1/chat/completions\)$`},
	{name: "trace context with a traceparent header", issue: "22.4",
		files: map[string]string{"s.cue": "metrics: trace_context: true\ntarget: headers: traceparent: \"00-x\"\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:2:18: target\.headers\.traceparent: metrics\.trace_context sends a traceparent of its own with every request: remove this header or set metrics\.trace_context: false$`},
	{name: "sweep over a misspelt field: one line", issue: "22.4",
		files: map[string]string{"s.cue": "sweep: axes: {\"load.max_concurency\": [1, 2, 4]}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:39: sweep\.axes\."load\.max_concurency"\[0\]: load\.max_concurency: field not allowed \(did you mean max_concurrency\?\)$`},
	{name: "ramp-up flags with a request rate", issue: "22.4",
		args: []string{"serve", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--request-rate", "10"}, exit: cli.ExitUsage,
		stderr: `^vbench: --request-rate 10: must not be set with --ramp-up-strategy`},

	// Bad flag values: the flag, its value and what it takes.
	{name: "--num-prompts not a number", issue: "22.4",
		args: []string{"serve", "--num-prompts", "ten"}, exit: cli.ExitUsage,
		stderr: `^vbench: --num-prompts ten: invalid int value: 'ten'$`},
	{name: "--max-concurrency 0", issue: "22.4",
		args: []string{"serve", "--max-concurrency", "0"}, exit: cli.ExitUsage,
		stderr: `^vbench: --max-concurrency 0: must be greater than 0`},
	{name: "--random-range-ratio out of range", issue: "22.4",
		args: []string{"serve", "--random-range-ratio", "1.5"}, exit: cli.ExitUsage,
		stderr: `^vbench: --random-range-ratio 1\.5: invalid value '1\.5' \(want a ratio in \[0, 1\)`},
	{name: "--backend unknown", issue: "22.4",
		args: []string{"serve", "--backend", "tgi"}, exit: cli.ExitUsage,
		stderr: `^vbench: --backend: invalid choice: 'tgi' \(choose from vllm, openai, openai-chat, `},
	{name: "--port out of range", issue: "22.4",
		args: []string{"serve", "--port", "99999"}, exit: cli.ExitUsage,
		stderr: `^vbench: --port 99999: invalid value 99999 \(out of bound <65536\)$`},
	{name: "--request-rate negative", issue: "22.4",
		args: []string{"serve", "--request-rate", "-1"}, exit: cli.ExitUsage,
		stderr: `^vbench: --request-rate -1: invalid value -1 \(out of bound >0\)$`},
	{name: "--percentile-metrics unknown metric", issue: "22.4",
		args: []string{"serve", "--percentile-metrics", "ttft,p99"}, exit: cli.ExitUsage,
		stderr: `^vbench: --percentile-metrics ttft,p99: unknown metric 'p99' \(want a comma-separated list of ttft, tpot, itl, e2el, `},
	{name: "--dataset-name unknown", issue: "22.4",
		args: []string{"serve", "--dataset-name", "mooncake"}, exit: cli.ExitUsage,
		stderr: `^vbench: --dataset-name: invalid choice: 'mooncake' \(choose from sharegpt, burstgpt, sonnet, random, `},
	{name: "misspelt serve flag", issue: "22.4",
		args: []string{"serve", "--num-promts", "5"}, exit: cli.ExitUsage,
		stderr: `^vbench: unrecognized arguments: --num-promts 5 \(did you mean --num-prompts\?\) \(see 'vbench serve --help'\)$`},
	{name: "unknown vet flag", issue: "22.4",
		files: map[string]string{"s.cue": "\n"},
		args:  []string{"vet", "s.cue", "--bogus"}, exit: cli.ExitUsage,
		stderr: `^vbench: unknown flag: --bogus \(see 'vbench vet --help'\)$`},
	{name: "--set without a value", issue: "22.4",
		files: map[string]string{"s.cue": "\n"},
		args:  []string{"vet", "s.cue", "--set", "load.num_prompts"}, exit: cli.ExitUsage,
		stderr: `^vbench: --set load\.num_prompts: want path=value, e.g\. load\.num_prompts=10$`},
	{name: "--set of an unknown field lists the fields", issue: "22.4",
		files: map[string]string{"s.cue": "\n"},
		args:  []string{"vet", "s.cue", "--set", "load.rate=5"}, exit: cli.ExitUsage,
		stderr: `^vbench: --set load\.rate=5: load\.rate: field not allowed \(allowed: burstiness, early_stop, max_concurrency, max_model_len, num_prompts, .*, request_rate, shard\)$`},
	{name: "export format unknown", issue: "22.4",
		files: map[string]string{"s.cue": "\n"},
		args:  []string{"export", "s.cue", "--format", "toml"}, exit: cli.ExitUsage,
		stderr: `^vbench: --format toml: unknown format \(want cue, json, yaml or argv\)$`},

	// Bad URLs and hosts.
	{name: "--base-url ftp", issue: "22.4",
		args: []string{"serve", "--base-url", "ftp://x"}, exit: cli.ExitUsage,
		stderr: `^vbench: --base-url ftp://x: base URL "ftp://x" has scheme "ftp" \(want http:// or https://\)$`},
	{name: "--base-url with an unclosed IPv6 bracket", issue: "22.4",
		args: []string{"serve", "--base-url", "http://[::1"}, exit: cli.ExitUsage,
		stderr: `^vbench: --base-url http://\[::1: invalid base URL "http://\[::1": missing '\]' in host$`},
	{name: "base_url without a scheme in a file", issue: "22.4",
		files: map[string]string{"s.yaml": "target:\n  base_url: gpu:8000\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:2:3: target\.base_url: base URL "gpu:8000" has no http:// or https:// scheme \(want e\.g\. http://gpu:8000\)$`},
	{name: "--host with a space", issue: "22.4",
		args: []string{"serve", "--host", "gpu host"}, exit: cli.ExitUsage,
		stderr: `^vbench: --host 'gpu host': invalid host "gpu host": invalid character " " in host name \(want a host name or an IP address\)$`},
	{name: "--endpoint without a leading slash", issue: "22.4",
		args: []string{"serve", "--endpoint", "v1/completions"}, exit: cli.ExitUsage,
		stderr: `^vbench: --endpoint v1/completions: "v1/completions" does not start with / \(want a path such as /v1/completions, which is appended to the base URL\)$`},

	// Header syntax: KEY=VALUE with an HTTP token as the key; values
	// (and what may be a value) are never shown.
	{name: "--header without =", issue: "22.4",
		args: []string{"serve", "--header", "Authorization: Bearer sk-secret"}, exit: cli.ExitUsage,
		stderr: `^vbench: --header: invalid header 'Authorization' \(want KEY=VALUE; the rest of the value is <redacted>\)$`, notStderr: `sk-secret`},
	{name: "--header with an empty key", issue: "22.4",
		args: []string{"serve", "--header", "=v"}, exit: cli.ExitUsage,
		stderr: `^vbench: --header: invalid header name "": want an HTTP token \(letters, digits and .*, no spaces or colons\) mapped to its value$`},
	{name: "--header with a colon before the =", issue: "22.4",
		args: []string{"serve", "--header", "Authorization: Bearer sk-secret=="}, exit: cli.ExitUsage,
		stderr: `^vbench: --header: invalid header name "Authorization\.\.\." \(the rest is not shown\): want an HTTP token`, notStderr: `sk-secret`},
	{name: "header name with a space in a file", issue: "22.4",
		files: map[string]string{"s.cue": "target: headers: {\"X Team\": \"a\"}\n"},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue:1:9: target\.headers: invalid header name "X\.\.\." \(the rest is not shown\): want an HTTP token`},
	{name: "header value with a line break", issue: "22.4",
		files: map[string]string{"s.yaml": "target:\n  headers:\n    X-Team: \"a\\nsecret\"\n"},
		args:  []string{"vet", "s.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.yaml:3:5: target\.headers\."X-Team": the value of header "X-Team" holds a control character such as a line break, which no HTTP header may \(the value is not shown\)$`, notStderr: `secret`},

	// Missing or unreadable files.
	{name: "missing scenario file", issue: "22.4",
		args: []string{"vet", "missing.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: missing\.cue: no such file or directory$`},
	{name: "scenario that is a directory", issue: "22.4",
		files: map[string]string{"s.cue/": ""},
		args:  []string{"vet", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.cue: is a directory$`},
	{name: "scenario of an unknown file type", issue: "22.4",
		files: map[string]string{"s.toml": "[load]\n"},
		args:  []string{"vet", "s.toml"}, exit: cli.ExitUsage,
		stderr: `^vbench: s\.toml: unsupported file type "\.toml": want \.cue, \.yaml, \.yml or \.json$`},
	{name: "missing --config file", issue: "22.4",
		args: []string{"serve", "--config", "missing.yaml"}, exit: cli.ExitUsage,
		stderr: `^vbench: --config missing\.yaml: cannot read the config file: open missing\.yaml: no such file or directory$`},
	{name: "missing tokenizer path", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./no-such-tokenizer")},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: tokenizer\.name \(--tokenizer\): \./no-such-tokenizer: no such tokenizer path \(no such file or directory\)$`},
	{name: "missing custom dataset file", issue: "22.4",
		files: map[string]string{"s.cue": simRun + customDataset},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset custom: dataset\.custom\.path \(--dataset-path\) d\.jsonl: no such file or directory: expected JSON lines, each an object with a "prompt" string$`},
	{name: "burstgpt CSV that is a directory", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: burstgpt: path: \"b.csv\"\n", "b.csv/": ""},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset burstgpt: dataset\.burstgpt\.path \(--dataset-path\) b\.csv is a directory: expected a CSV with BurstGPT's header Timestamp,Model,`},
	{name: "sharegpt file that is a directory", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: sharegpt: path: \"sg.json\"\n", "sg.json/": ""},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset sharegpt: dataset\.sharegpt\.path \(--dataset-path\) sg\.json is a directory: expected a JSON list of conversations$`},
	{name: "missing sonnet file", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: sonnet: path: \"poem.txt\"\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset sonnet: dataset\.sonnet\.path \(--dataset-path\) poem\.txt: no such file or directory: expected a text file, lines of a poem$`},
	{name: "missing result to compare", issue: "22.4",
		copies: map[string]string{"a.json": "../experiment/testdata/random-basic.json"},
		args:   []string{"compare", "a.json", "b.json"}, exit: cli.ExitUsage,
		stderr: `^vbench: b\.json: no such file or directory \(want a result JSON file or a directory of them\)$`},
	{name: "truncated result to compare", issue: "22.4",
		files:  map[string]string{"b.json": `{"duration": 1.5, `},
		copies: map[string]string{"a.json": "../experiment/testdata/random-basic.json"},
		args:   []string{"compare", "a.json", "b.json"}, exit: cli.ExitUsage,
		stderr: `^vbench: b\.json: invalid JSON \(unexpected EOF\): want a result JSON of vbench or vllm bench serve$`},

	// Dataset rows: the file, the row or line, and what was expected.
	{name: "custom JSONL truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + customDataset, "d.jsonl": "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompt\": \"c"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset custom: d\.jsonl:3: invalid JSON \(unexpected end of JSON input\): expected one JSON object per line$`},
	{name: "custom JSONL prompt of the wrong type on line 3", issue: "22.4",
		files: map[string]string{"s.cue": simRun + customDataset, "d.jsonl": "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompt\": 5}\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset custom: d\.jsonl:3: "prompt" is a JSON number, expected a string$`},
	{name: "custom JSONL output_tokens of the wrong type", issue: "22.4",
		files: map[string]string{"s.cue": simRun + customDataset, "d.jsonl": "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n{\"prompt\": \"c\", \"output_tokens\": \"x\"}\n"},
		args:  []string{"run", "s.cue", "--set", "dataset.custom.output_len=-1"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset custom: d\.jsonl:3: "output_tokens" is "x", expected a non-negative integer$`},
	{name: "sharegpt JSON truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: sharegpt: path: \"sg.json\"\n", "sg.json": `[{"conversations": [{"from": "human", "value": "hi there"}, {"from": "gpt", "value": "hello"}]}, {"conv`},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset sharegpt: sg\.json:1:10[0-9]: entry 1: truncated JSON: the file ends inside the list of conversations$`},
	{name: "sharegpt turn of the wrong type", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: sharegpt: path: \"sg.json\"\n", "sg.json": `[{"conversations": [{"from": "human", "value": "hi there"}, {"from": "gpt", "value": 5}]}]`},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset sharegpt: sg\.json:1:2: entry 0: conversations\[1\]: expected an object with a string "value", found \{"from": "gpt", "value": 5\}$`},
	{name: "burstgpt CSV without a column", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: burstgpt: path: \"b.csv\"\n", "b.csv": "Timestamp,Model,Request tokens\n1,GPT-4,3\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset burstgpt: b\.csv:1: the header has no "Response tokens" column: expected BurstGPT's header Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type$`},
	{name: "burstgpt CSV count of the wrong type", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: burstgpt: path: \"b.csv\"\n", "b.csv": burstHeader + "1,GPT-4,3,4,7,API log\n2,GPT-4,twelve,4,16,API log\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset burstgpt: b\.csv:3: row 2: the request tokens \(3rd column\) are "twelve": expected a whole number, 0 or more$`},
	{name: "burstgpt CSV truncated row", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: burstgpt: path: \"b.csv\"\n", "b.csv": burstHeader + "1,GPT-4,3,4,7,API log\n2,GPT-4,3"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset burstgpt: b\.csv:3: wrong number of fields: expected BurstGPT's 6-field rows \(Timestamp,Model,`},
	{name: "spec_bench turns of the wrong type", issue: "22.4",
		files: map[string]string{"s.cue": simRun + "dataset: spec_bench: {path: \"q.jsonl\", skip_chat_template: true}\n",
			"q.jsonl": "{\"category\": \"writing\", \"turns\": [\"write a poem\"]}\n{\"category\": \"writing\", \"turns\": \"not a list\"}\n"},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset spec_bench: q\.jsonl:2: "turns" is a JSON string, expected a list that starts with the prompt$`},
	{name: "timed_trace length of the wrong type on line 3", issue: "22.4",
		files: map[string]string{"s.cue": "target: {simulator: {}, backend: \"vllm\"}\ntokenizer: name: \"o200k_base\"\nload: num_prompts: 5\ndataset: timed_trace: path: \"t.jsonl\"\n",
			"t.jsonl": "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 3, \"hash_ids\": [0]}\n{\"timestamp\": 1, \"input_length\": 10, \"output_length\": 3, \"hash_ids\": [0]}\n{\"timestamp\": 2, \"input_length\": \"ten\", \"output_length\": 3, \"hash_ids\": [0]}\n"},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset timed_trace: t\.jsonl:3: "input_length" is "ten", expected a non-negative integer$`},
	{name: "hf JSONL column of the wrong type", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl"), "rows.jsonl": "{\"prompt\": \"a prompt of enough words\"}\n{\"prompt\": \"another prompt of words\"}\n{\"prompt\": 5}\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl row 2: column "prompt": expected a string, found a number$`},
	{name: "hf JSON list truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.json"), "rows.json": `[{"prompt": "a prompt of enough words"}, {"prompt": "anoth`},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.json:1:59: row 1: truncated JSON: the file ends inside the list of rows$`},
	{name: "hf parquet truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.parquet"), "rows.parquet": truncated(promptParquet(), 0.5)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.parquet: not a readable parquet file: truncated \(it starts with the magic PAR1 but does not end with it\): expected a whole parquet file, copy or download it again$`},
	{name: "hf parquet that is JSON", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.parquet"), "rows.parquet": promptRows(3)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.parquet: not a readable parquet file: no magic PAR1 at its start: expected a parquet file, as its extension says$`},
	{name: "hf parquet column of the wrong type", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.parquet"), "rows.parquet": intPromptParquet()},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.parquet row 2: column "prompt": expected a string, found a number$`},
	{name: "hf gzip truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.gz"), "rows.jsonl.gz": truncated(compress("gz", promptRows(200)), 0.5)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.gz: truncated or corrupt gzip data \(unexpected EOF\): expected a whole gzip-compressed file, as its extension says$`},
	{name: "hf gzip that is not gzip", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.gz"), "rows.jsonl.gz": promptRows(3)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.gz: not a gzip file: gzip: invalid header$`},
	{name: "hf zstd corrupt", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.zst"), "rows.jsonl.zst": promptRows(3)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.zst: truncated or corrupt zstd data \(invalid input: magic number mismatch\): expected a whole zstd-compressed file, as its extension says$`},
	{name: "hf zstd truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.zst"), "rows.jsonl.zst": truncated(compress("zst", promptRows(200)), 0.5)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.zst: truncated or corrupt zstd data \(unexpected EOF\): expected a whole zstd-compressed file`},
	{name: "hf bzip2 corrupt", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.bz2"), "rows.jsonl.bz2": "BZh91AY&SY" + promptRows(3)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.bz2: truncated or corrupt bzip2 data \([^)]+\): expected a whole bzip2-compressed file, as its extension says$`},
	{name: "hf lz4 truncated", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.lz4"), "rows.jsonl.lz4": truncated(compress("lz4", promptRows(200)), 0.5)},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.lz4: truncated or corrupt lz4 data \(unexpected EOF\): expected a whole lz4-compressed file, as its extension says$`},
	{name: "hf xz, which vbench does not read", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.jsonl.xz"), "rows.jsonl.xz": "\xfd7zXZ\x00"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.jsonl\.xz: xz-compressed, which vbench does not read: decompress it \(xz -d\) and point --dataset-path at the directory$`},
	{name: "hf CSV, which vbench does not read", issue: "22.4",
		files: map[string]string{"s.cue": simRun + hfDataset("rows.csv"), "rows.csv": "prompt\nhello there\n"},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: dataset hf: rows\.csv: not a parquet, JSON or JSON Lines file \(by its extension\); vbench reads those$`},

	// Tokenizers: an error page saved as tokenizer.json, components vbench
	// does not implement, a truncated file, an empty directory.
	{name: "tokenizer.json that is an HTML error page", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok"),
			"tok/tokenizer.json": "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n"},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: tokenizer \./tok \(tok/tokenizer\.json\): tokenizer\.json: an HTML page, not JSON \(an error or login page saved in its place\?\): want a Hugging Face tokenizer\.json, download it again \(with the built-in simulator, `},
	{name: "tokenizer.json with a Unigram model", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok"),
			"tok/tokenizer.json": `{"model": {"type": "Unigram", "vocab": [["a", 0.0]]}}`},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: tokenizer \./tok \(tok/tokenizer\.json\): tokenizer\.json: model "Unigram" is not supported \(vbench implements BPE models only\)`},
	{name: "tokenizer.json with an unsupported pre-tokenizer", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok/tokenizer.json"),
			"tok/tokenizer.json": `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}, "pre_tokenizer": {"type": "BertPreTokenizer"}}`},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: tokenizer \./tok/tokenizer\.json \(\./tok/tokenizer\.json\): tokenizer\.json: pre_tokenizer: pre-tokenizer "BertPreTokenizer" is not supported \(vbench supports ByteLevel, Split, Metaspace, Digits, WhitespaceSplit and Sequence\)`},
	{name: "tokenizer.json with an unsupported normalizer", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok"),
			"tok/tokenizer.json": `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}, "normalizer": {"type": "Precompiled", "precompiled_charsmap": "AA"}}`},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: tokenizer \./tok \(tok/tokenizer\.json\): tokenizer\.json: normalizer: normalizer "Precompiled" is not supported \(vbench supports NFC, NFD, NFKC, NFKD, `},
	{name: "tokenizer.json with an unsupported decoder", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok"),
			"tok/tokenizer.json": `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}, "decoder": {"type": "CTC"}}`},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: tokenizer \./tok \(tok/tokenizer\.json\): tokenizer\.json: decoder: decoder "CTC" is not supported \(vbench supports ByteLevel, `},
	{name: "tokenizer.json truncated", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok"),
			"tok/tokenizer.json": "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1},\n\"merges\": ["},
		args: []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: tokenizer \./tok \(tok/tokenizer\.json\): tokenizer\.json: invalid JSON at line 2, column 12: `},
	{name: "tokenizer directory without a tokenizer", issue: "22.4",
		files: map[string]string{"s.cue": simTokenizer("./tok"), "tok/": ""},
		args:  []string{"run", "s.cue"}, exit: cli.ExitUsage,
		stderr: `^vbench: no local tokenizer: \./tok: no tokenizer\.json or tiktoken file \(looked for tokenizer\.json, tiktoken\.model, qwen\.tiktoken, vocab\.tiktoken and \*\.tiktoken\)`},
}

// simRun is a scenario prefix that runs offline: the built-in simulator,
// a built-in tokenizer and two requests.
const simRun = "target: simulator: {}\ntokenizer: name: \"o200k_base\"\nload: num_prompts: 2\n"

// simTokenizer is simRun with the tokenizer name.
func simTokenizer(name string) string {
	return fmt.Sprintf("target: simulator: {}\ntokenizer: name: %q\nload: num_prompts: 2\n", name)
}

// customDataset reads d.jsonl as the custom dataset.
const customDataset = "dataset: custom: {path: \"d.jsonl\", skip_chat_template: true}\n"

// burstHeader is the BurstGPT CSV header line.
const burstHeader = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"

// hfDataset reads the local file path as an hf dataset.
func hfDataset(path string) string {
	return fmt.Sprintf("dataset: hf: {path: %q, skip_chat_template: true}\n", path)
}

// promptRows is n JSON lines, each {"prompt": ...}.
func promptRows(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"prompt\": \"a prompt of enough words, number %d\"}\n", i)
	}
	return b.String()
}

// compress compresses s as the extension ext (gz, zst, lz4) says.
func compress(ext, s string) string {
	var buf bytes.Buffer
	var w io.WriteCloser
	switch ext {
	case "gz":
		w = gzip.NewWriter(&buf)
	case "zst":
		w, _ = zstd.NewWriter(&buf)
	case "lz4":
		w = lz4.NewWriter(&buf)
	default:
		panic("compress: unknown extension " + ext)
	}
	if _, err := io.WriteString(w, s); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.String()
}

// truncated is the first share of s.
func truncated(s string, share float64) string {
	return s[:int(float64(len(s))*share)]
}

// promptParquet is a parquet file of 50 rows with a string prompt column.
func promptParquet() string {
	type row struct {
		Prompt string `parquet:"prompt"`
	}
	rows := make([]row, 50)
	for i := range rows {
		rows[i].Prompt = fmt.Sprintf("a prompt of enough words, number %d", i)
	}
	return writeParquet(rows)
}

// intPromptParquet is a parquet file whose prompt column holds integers.
func intPromptParquet() string {
	type row struct {
		Prompt int64 `parquet:"prompt"`
	}
	return writeParquet([]row{{1}, {2}, {3}})
}

// writeParquet writes rows as a parquet file.
func writeParquet[T any](rows []T) string {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.String()
}

// stackTrace matches what a panic or a Go stack trace leaves on stderr.
var stackTrace = regexp.MustCompile(`(?m)panic|^goroutine [0-9]+ |\.go:[0-9]+|^runtime\.|fatal error`)

// namesAPlace matches an error line naming a place: file:line, a flag,
// a field path (load.num_prompts) or a file name.
var namesAPlace = regexp.MustCompile(`[\w.-]+:[0-9]+|--[a-z][a-z-]+|\b[a-z_]+\.[a-z_"]+|[\w.-]+\.(cue|ya?ml|json|jsonl|csv|parquet|txt|gz|zst|bz2|lz4|xz)\b`)

func TestBadInput(t *testing.T) {
	if len(badInputs) < 60 {
		t.Errorf("%d rows, want at least 60 (issue 22, item 4)", len(badInputs))
	}
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
				p := filepath.Join(dir, name)
				if strings.HasSuffix(name, "/") {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
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
			code := func() (code int) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("vbench %s panicked: %v\nstderr:\n%s", strings.Join(tc.args, " "), r, stderr.String())
					}
				}()
				return cli.Main(tc.args, p)
			}()
			if code != tc.exit {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.exit, stderr.String())
			}
			if m := stackTrace.FindString(stderr.String()); m != "" {
				t.Errorf("stderr has %q, as a panic or a stack trace leaves:\n%s", m, stderr.String())
			}
			match := func(what, re, got string, want bool) {
				if re != "" && regexp.MustCompile("(?m)"+re).MatchString(got) != want {
					t.Errorf("%s matches %q: %v, want %v; %s:\n%s", what, re, !want, want, what, got)
				}
			}
			if tc.exit != 0 {
				// The error is one line, the last, naming the place.
				lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
				last := lines[len(lines)-1]
				switch {
				case !strings.HasPrefix(tc.stderr, "^vbench: "):
					t.Errorf("stderr %q: want a pattern of the error line, starting ^vbench: ", tc.stderr)
				case !strings.HasPrefix(last, "vbench: "):
					t.Errorf("stderr does not end with one error line (vbench: ...):\n%s", stderr.String())
				case !namesAPlace.MatchString(last):
					t.Errorf("the error names no place (file:line, flag, field or file): %s", last)
				}
				match("the error line", tc.stderr, last, true)
			} else {
				match("stderr", tc.stderr, stderr.String(), true)
			}
			match("stdout", tc.stdout, stdout.String(), true)
			match("stderr", tc.notStderr, stderr.String(), false)
		})
	}
}
