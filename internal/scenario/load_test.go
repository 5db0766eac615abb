package scenario

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vbench/vbench/schema"
)

// vllmDefaults is the scenario of an empty file, written out by hand from
// `vllm bench serve`'s defaults (upstream vllm/benchmarks/serve.py, add_cli_args), not from the schema.
func vllmDefaults() *Scenario {
	return &Scenario{
		Schema: schema.Version,
		Target: Target{
			Host:           "127.0.0.1",
			Port:           8000,
			Endpoint:       "/v1/completions",
			Backend:        "openai",
			LoraAssignment: "random",
		},
		Tokenizer: Tokenizer{Mode: "auto"},
		Dataset:   Dataset{Name: "random", Spec: randomDefaults()},
		Load:      Load{NumPrompts: 1000, RequestRate: Inf, Burstiness: 1},
		Metrics: Metrics{
			PercentileMetrics: []string{"ttft", "tpot", "itl"},
			MetricPercentiles: []float64{99},
		},
		Output: Output{Records: true, TimelineITLThresholds: []float64{25, 50}},
	}
}

// randomDefaults is the random kind's section with the schema's defaults.
func randomDefaults() map[string]any {
	return map[string]any{"input_len": 1024, "output_len": 128, "range_ratio": map[string]any{"input": 0, "output": 0}, "prefix_len": 0, "batch_size": 1}
}

// mustLoad loads srcs or fails the test.
func mustLoad(t *testing.T, opts Options, srcs ...Source) *Scenario {
	t.Helper()
	s, err := LoadSources(srcs, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

// src is a Source from a string.
func src(name, data string) Source { return Source{Name: name, Data: []byte(data)} }

// equalJSON compares two values by their canonical JSON, reporting both.
func equalJSON(t *testing.T, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := canonicalJSON(g)
	if err != nil {
		t.Fatal(err)
	}
	wc, err := canonicalJSON(w)
	if err != nil {
		t.Fatal(err)
	}
	if string(gc) != string(wc) {
		t.Errorf("got  %s\nwant %s", gc, wc)
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		srcs []Source
	}{
		{"no input", nil},
		{"empty cue", []Source{src("empty.cue", "")}},
		{"empty yaml", []Source{src("empty.yaml", "")}},
		{"empty json object", []Source{src("empty.json", "{}")}},
		{"only comments", []Source{src("c.cue", "// nothing\n")}},
		{"schema version spelled out", []Source{src("v.yaml", "schema: "+schema.Version+"\n")}},
		{"random dataset named without fields", []Source{src("r.cue", "dataset: random: {}\n")}},
		{"package clause", []Source{src("p.cue", "package mine\n")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mustLoad(t, Options{}, tt.srcs...)
			want := vllmDefaults()
			equalJSON(t, got, want)
			// The dataset's spec is package dataset's Go type, which this
			// package's tests see as JSON only; the rest compares exactly.
			g, w := *got, *want
			g.Dataset.Spec, w.Dataset.Spec = nil, nil
			if !reflect.DeepEqual(g, w) {
				t.Errorf("reflect.DeepEqual: scenario differs from vLLM's defaults")
			}
		})
	}
}

func TestDefault(t *testing.T) {
	t.Parallel()
	a := Default()
	if want := vllmDefaults(); !reflect.DeepEqual(a, want) {
		equalJSON(t, a, want)
	}
	a.Metrics.PercentileMetrics[0] = "changed"
	a.Load.NumPrompts = 1
	if b := Default(); b.Metrics.PercentileMetrics[0] != "ttft" || b.Load.NumPrompts != 1000 {
		t.Errorf("Default returned shared state: %+v", b.Metrics)
	}
}

func TestSimulatorDefaults(t *testing.T) {
	t.Parallel()
	want := &Simulator{TTFTMs: 50, ITLMs: 10, OutputLen: 128, Model: "vbench-sim"}
	tests := []struct {
		name string
		src  Source
		want *Simulator
	}{
		{"cue empty struct", src("s.cue", "target: simulator: {}\n"), want},
		{"yaml empty mapping", src("s.yaml", "target: {simulator: {}}\n"), want},
		{"some fields", src("s.cue", "target: simulator: {ttft_ms: 5, jitter_ms: 1.5, seed: 7}\n"),
			&Simulator{TTFTMs: 5, ITLMs: 10, JitterMs: 1.5, OutputLen: 128, Model: "vbench-sim", Seed: 7}},
		{"absent", src("s.cue", "target: backend: \"vllm\"\n"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mustLoad(t, Options{}, tt.src).Target.Simulator
			if !reflect.DeepEqual(got, tt.want) {
				equalJSON(t, got, tt.want)
			}
		})
	}
}

func loadError(t *testing.T, opts Options, srcs ...Source) *Error {
	t.Helper()
	s, err := LoadSources(srcs, opts)
	if err == nil {
		t.Fatalf("load succeeded, want an error; got %s", s.Canonical())
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %q is not an *Error", err, err)
	}
	return e
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		srcs []Source
		opts Options
		want string // the whole Error(), one problem per line
	}{
		{
			name: "misspelt field in cue",
			srcs: []Source{src("scenarios/x.cue", "target: backend: \"vllm\"\nload: {\n\tnum_promts: 10\n}\n")},
			want: "scenarios/x.cue:3:2: load.num_promts: field not allowed (did you mean num_prompts?)",
		},
		{
			name: "misspelt field in yaml",
			srcs: []Source{src("x.yaml", "load:\n  num_promts: 10\n")},
			want: "x.yaml:2:3: load.num_promts: field not allowed (did you mean num_prompts?)",
		},
		{
			name: "misspelt top-level field",
			srcs: []Source{src("x.cue", "laod: num_prompts: 10\n")},
			want: "x.cue:1:1: laod: field not allowed (did you mean load?)",
		},
		{
			name: "wrong type in yaml",
			srcs: []Source{src("x.yaml", "# a comment\ntarget:\n  backend: vllm\nload:\n  num_prompts: ten\n")},
			want: `x.yaml:5:16: load.num_prompts: conflicting values "ten" and int (mismatched types string and int)`,
		},
		{
			name: "wrong type in cue",
			srcs: []Source{src("x.cue", "load: num_prompts: \"ten\"\n")},
			want: `x.cue:1:20: load.num_prompts: conflicting values "ten" and int (mismatched types string and int)`,
		},
		{
			name: "wrong type in json",
			srcs: []Source{src("x.json", `{"load": {"num_prompts": true}}`)},
			want: `x.json:1:26: load.num_prompts: conflicting values true and int (mismatched types bool and int)`,
		},
		{
			name: "out of bound",
			srcs: []Source{src("x.cue", "load: num_prompts: -1\n")},
			want: `x.cue:1:20: load.num_prompts: invalid value -1 (out of bound >=0)`,
		},
		{
			name: "unknown backend",
			srcs: []Source{src("x.cue", "target: backend: \"tgi\"\n")},
			want: `x.cue:1:18: target.backend: invalid value "tgi" (want one of "anthropic-messages", "infinity-embeddings", "infinity-embeddings-clip", "openai", "openai-audio", "openai-chat", "openai-embeddings", "openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec", "openai-responses", "vllm", "vllm-pooling", "vllm-rerank")`,
		},
		{
			name: "request rate neither inf nor number",
			srcs: []Source{src("x.yaml", "load: {request_rate: fast}\n")},
			want: `x.yaml:1:22: load.request_rate: invalid value "fast" (want one of number, "inf")`,
		},
		{
			name: "request rate zero",
			srcs: []Source{src("x.cue", "load: request_rate: 0\n")},
			want: `x.cue:1:21: load.request_rate: invalid value 0 (out of bound >0)`,
		},
		{
			name: "bad percentile metric",
			srcs: []Source{src("x.cue", "metrics: percentile_metrics: [\"ttft\", \"p99\"]\n")},
			want: `x.cue:1:39: metrics.percentile_metrics[1]: invalid value "p99" (want one of "client_queue_time", "e2el", "e2el_including_client_queue", "itl", "tpot", "ttft")`,
		},
		{
			name: "percentile out of range",
			srcs: []Source{src("x.cue", "metrics: metric_percentiles: [50, 100.5]\n")},
			want: `x.cue:1:35: metrics.metric_percentiles[1]: invalid value 100.5 (out of bound <=100)`,
		},
		{
			name: "enumeration of the default and one other value",
			srcs: []Source{src("x.cue", "target: lora_assignment: 1\n")},
			want: `x.cue:1:26: target.lora_assignment: invalid value 1 (want one of "random", "round-robin")`,
		},
		{
			name: "misspelt field inside a disjunction",
			srcs: []Source{src("x.cue", "dataset: random: range_ratio: {input: 0.1, outptu: 0.2}\n")},
			want: "x.cue:1:44: dataset.random.range_ratio.outptu: field not allowed (did you mean output?)",
		},
		{
			name: "not a struct",
			srcs: []Source{src("x.yaml", "- a\n- b\n")},
			want: `x.yaml:1:1: conflicting values {...} and ["a","b"] (mismatched types struct and list)`,
		},
		{
			name: "field of another dataset kind",
			srcs: []Source{src("x.cue", "dataset: sharegpt: {path: \"sg.json\", input_len: 5}\n")},
			want: "x.cue:1:38: dataset.sharegpt.input_len: field not allowed (allowed: disable_shuffle, enable_multimodal_chat, no_oversample, output_len, path)",
		},
		{
			name: "misspelt dataset kind",
			srcs: []Source{src("x.cue", "dataset: randm: {}\n")},
			want: "x.cue:1:10: dataset.randm: field not allowed (did you mean random?)",
		},
		{
			name: "two dataset kinds",
			srcs: []Source{src("x.cue", "dataset: random: {}\ndataset: sonnet: path: \"s.txt\"\n")},
			want: "x.cue:2:10: dataset: exactly one dataset kind may be set, got random and sonnet",
		},
		{
			name: "required path missing",
			srcs: []Source{src("x.cue", "dataset: sharegpt: {}\n")},
			want: "x.cue:1:10: dataset.sharegpt.path: field is required but not present",
		},
		{
			name: "non-concrete value",
			srcs: []Source{src("x.cue", "target: model: string\n")},
			want: "x.cue:1:16: target.model: incomplete value string",
		},
		{
			name: "conflict between two files",
			srcs: []Source{src("a.cue", "load: num_prompts: 10\n"), src("b.yaml", "load:\n  num_prompts: 20\n")},
			want: "a.cue:1:20: load.num_prompts: conflicting values 20 and 10 (also b.yaml:2:16)",
		},
		{
			name: "other schema version",
			srcs: []Source{src("x.yaml", "schema: vbench.dev/scenario/v0\n")},
			want: `x.yaml:1:9: schema: conflicting values "vbench.dev/scenario/v1alpha1" and "vbench.dev/scenario/v0"`,
		},
		{
			name: "cue syntax error",
			srcs: []Source{src("x.cue", "load: {num_prompts: 1\n")},
			want: "x.cue:1:23: expected '}', found 'EOF'",
		},
		{
			name: "yaml syntax error",
			srcs: []Source{src("x.yaml", "load:\n  num_prompts: 1\n bad: [\n")},
			want: "x.yaml:3:2: did not find expected key",
		},
		{
			name: "unresolved reference",
			srcs: []Source{src("x.cue", "load: num_prompts: n\n")},
			want: `x.cue:1:20: load.num_prompts: reference "n" not found`,
		},
		{
			name: "unsupported extension",
			srcs: []Source{src("x.toml", "")},
			want: `x.toml: unsupported file type ".toml": want .cue, .yaml, .yml or .json`,
		},
		{
			name: "set: unknown path",
			opts: Options{Sets: []string{"load.num_promts=10"}},
			want: "--set load.num_promts=10: load.num_promts: field not allowed (did you mean num_prompts?)",
		},
		{
			name: "set: bad type",
			srcs: []Source{src("x.cue", "load: num_prompts: 10\n")},
			opts: Options{Sets: []string{"load.num_prompts=ten"}},
			want: `--set load.num_prompts=ten: load.num_prompts: conflicting values "ten" and int (mismatched types string and int)`,
		},
		{
			name: "set: no value",
			opts: Options{Sets: []string{"load.num_prompts"}},
			want: "--set load.num_prompts: want path=value, e.g. load.num_prompts=10",
		},
		{
			name: "set: bad path",
			opts: Options{Sets: []string{"load..num_prompts=1", "#Scenario.seed=1"}},
			want: "--set #Scenario.seed=1: invalid field path \"#Scenario.seed\": #Scenario is not a regular field name\n" +
				"--set load..num_prompts=1: invalid field path \"load..num_prompts\": illegal token '..'; expected '.'",
		},
		{
			name: "set conflicts with a value the file computes",
			srcs: []Source{src("x.cue", "if true {\n\tload: max_concurrency: 10\n}\n")},
			opts: Options{Sets: []string{"load.max_concurrency=5"}},
			want: "--set load.max_concurrency=5: load.max_concurrency: conflicting values 10 and 5 (also x.cue:1:1, x.cue:2:25)",
		},
		{
			name: "tag: none declared",
			srcs: []Source{src("x.cue", "")},
			opts: Options{Tags: map[string]string{"url": "http://h"}},
			want: "tag url: no field is marked @tag(url)",
		},
		{
			name: "tag: bad int",
			srcs: []Source{src("x.cue", "load: num_prompts: int @tag(n,type=int)\n")},
			opts: Options{Tags: map[string]string{"n": "many"}},
			want: `tag n: invalid value "many" for tag n: want an integer`,
		},
		{
			name: "tag: value out of bound, from the environment",
			srcs: []Source{src("x.cue", "load: num_prompts: *10 | int @tag(n,type=int)\n")},
			opts: Options{Env: func(k string) string { return map[string]string{"VBENCH_N": "-3"}[k] }},
			want: "$VBENCH_N: load.num_prompts: invalid value -3 (out of bound >=0)",
		},
		{
			name: "tag: unsupported option",
			srcs: []Source{src("x.cue", "name: string @tag(n,short=a)\n")},
			want: `x.cue:1:14: unsupported @tag option "short": only type= is supported`,
		},
		{
			name: "several problems at once",
			srcs: []Source{src("x.cue", "target: backend: \"vllm\"\ntarget: port: 0\nload: num_prompts: \"x\"\n")},
			want: "x.cue:2:15: target.port: invalid value 0 (out of bound >0)\n" +
				`x.cue:3:20: load.num_prompts: conflicting values "x" and int (mismatched types string and int)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := loadError(t, tt.opts, tt.srcs...)
			if got := e.Error(); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestErrorRelativePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "scenarios")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(sub, "x.cue")
	if err := os.WriteFile(file, []byte("load: num_promts: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		want string
	}{
		{"under the working directory", dir, "scenarios/x.cue:1:7: load.num_promts: field not allowed (did you mean num_prompts?)"},
		{"outside the working directory", filepath.Join(dir, "elsewhere"), filepath.ToSlash(file) + ":1:7: load.num_promts: field not allowed (did you mean num_prompts?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadFiles([]string{file}, Options{Dir: tt.dir})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := LoadFiles([]string{filepath.Join(dir, "nope.cue")}, Options{Dir: dir})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
	if want := "nope.cue: no such file or directory"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestUnify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		srcs  []Source
		check func(*Scenario) bool
	}{
		{
			name: "cue and yaml",
			srcs: []Source{
				src("target.cue", "target: {backend: \"vllm\", model: \"m\"}\n"),
				src("load.yaml", "load:\n  num_prompts: 10\n  max_concurrency: 4\n"),
			},
			check: func(s *Scenario) bool {
				return s.Target.Backend == "vllm" && s.Target.Model == "m" && s.Load.NumPrompts == 10 && *s.Load.MaxConcurrency == 4
			},
		},
		{
			name: "yml and json",
			srcs: []Source{src("a.yml", "name: x\n"), src("b.json", `{"seed": 7}`)},
			check: func(s *Scenario) bool {
				return s.Name == "x" && s.Seed == 7
			},
		},
		{
			name: "same value in two files",
			srcs: []Source{src("a.cue", "seed: 3\n"), src("b.yaml", "seed: 3\n")},
			check: func(s *Scenario) bool {
				return s.Seed == 3
			},
		},
		{
			name: "references across cue files with different packages",
			srcs: []Source{
				src("a.cue", "package a\n_prompts: 64\nload: num_prompts: _prompts\n"),
				src("b.cue", "package b\nload: max_concurrency: div(load.num_prompts, 2)\n"),
			},
			check: func(s *Scenario) bool {
				return s.Load.NumPrompts == 64 && *s.Load.MaxConcurrency == 32
			},
		},
		{
			name: "definitions, imports and comprehensions",
			srcs: []Source{src("a.cue", `import "strings"

#Model: "Qwen/Qwen3-8B"
name:   strings.ToLower(#Model)
target: model: #Model
metrics: percentile_metrics: [for m in ["ttft", "e2el"] {m}]
`)},
			check: func(s *Scenario) bool {
				return s.Name == "qwen/qwen3-8b" && s.Target.Model == "Qwen/Qwen3-8B" &&
					reflect.DeepEqual(s.Metrics.PercentileMetrics, []string{"ttft", "e2el"})
			},
		},
		{
			name: "a partial default map is not completed",
			srcs: []Source{src("a.yaml", "target: {backend: openai-chat, endpoint: /v1/chat/completions}\ndataset:\n  random_mm:\n    limit_mm_per_prompt: {image: 255}\n    bucket_config: {\"512,512,1\": 1}\n")},
			check: func(s *Scenario) bool {
				return reflect.DeepEqual(dsValue(s, "random_mm.limit_mm_per_prompt"), map[string]any{"image": 255.0}) &&
					reflect.DeepEqual(dsValue(s, "random_mm.bucket_config"), map[string]any{"512,512,1": 1.0})
			},
		},
		{
			name: "yaml infinity",
			srcs: []Source{src("a.yaml", "load:\n  request_rate: .inf\n  burstiness: inf\n")},
			check: func(s *Scenario) bool {
				return s.Load.RequestRate.IsInf() && s.Load.Burstiness.IsInf()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if s := mustLoad(t, Options{}, tt.srcs...); !tt.check(s) {
				t.Errorf("unexpected scenario %s", s.Canonical())
			}
		})
	}
}

func TestSets(t *testing.T) {
	t.Parallel()
	base := src("base.cue", "target: {backend: \"vllm\", headers: {\"X-Key\": \"k\"}}\nload: num_prompts: 100\ndataset: random: input_len: 64\n")
	tests := []struct {
		name  string
		sets  []string
		check func(*Scenario) bool
	}{
		{"number replaces the file's value", []string{"load.num_prompts=10"},
			func(s *Scenario) bool { return s.Load.NumPrompts == 10 }},
		{"plain string needs no quotes", []string{"target.base_url=http://h:8000"},
			func(s *Scenario) bool { return s.Target.BaseURL == "http://h:8000" }},
		{"quoted string", []string{`target.model="a b"`},
			func(s *Scenario) bool { return s.Target.Model == "a b" }},
		{"inf is a string", []string{"load.request_rate=inf"},
			func(s *Scenario) bool { return s.Load.RequestRate.IsInf() }},
		{"float", []string{"load.request_rate=2.5"},
			func(s *Scenario) bool { return s.Load.RequestRate == 2.5 }},
		{"bool", []string{"output.save_result=true"},
			func(s *Scenario) bool { return s.Output.SaveResult }},
		{"list", []string{`metrics.percentile_metrics=["e2el"]`},
			func(s *Scenario) bool { return reflect.DeepEqual(s.Metrics.PercentileMetrics, []string{"e2el"}) }},
		{"quoted label", []string{`target.headers."X-Key"=other`},
			func(s *Scenario) bool { return s.Target.Headers["X-Key"] == "other" }},
		{"new map key", []string{`target.headers.Authorization=Bearer t`},
			func(s *Scenario) bool {
				return s.Target.Headers["Authorization"] == "Bearer t" && s.Target.Headers["X-Key"] == "k"
			}},
		{"dataset replaced whole", []string{`dataset={"sharegpt": {"path": "sg.json"}}`},
			func(s *Scenario) bool { return s.Dataset.Name == "sharegpt" && dsStr(s, "sharegpt.path") == "sg.json" }},
		{"nested field keeps its siblings", []string{"dataset.random.output_len=7"},
			func(s *Scenario) bool {
				return dsNum(s, "random.input_len") == 64 && dsNum(s, "random.output_len") == 7
			}},
		{"later set wins", []string{"load.num_prompts=1", "load.num_prompts=2"},
			func(s *Scenario) bool { return s.Load.NumPrompts == 2 }},
		{"whole struct then a field of it", []string{`load={"num_prompts": 3}`, "load.max_concurrency=2"},
			func(s *Scenario) bool { return s.Load.NumPrompts == 3 && *s.Load.MaxConcurrency == 2 }},
		{"value with = in it", []string{"output.label=a=b"},
			func(s *Scenario) bool { return s.Output.Label == "a=b" }},
		{"empty value is the empty string", []string{"output.label="},
			func(s *Scenario) bool { return s.Output.Label == "" }},
		{"simulator from nothing", []string{"target.simulator={}"},
			func(s *Scenario) bool { return s.Target.Simulator != nil && s.Target.Simulator.TTFTMs == 50 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if s := mustLoad(t, Options{Sets: tt.sets}, base); !tt.check(s) {
				t.Errorf("unexpected scenario %s", s.Canonical())
			}
		})
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	const file = `target: base_url: *"http://127.0.0.1:8000" | string @tag(url)
load: num_prompts: *1000 | int @tag(n,type=int)
output: save_result: *false | bool @tag(save,type=bool)
`
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	tests := []struct {
		name    string
		opts    Options
		url     string
		prompts int
		save    bool
	}{
		{"no values keep the defaults", Options{}, "http://127.0.0.1:8000", 1000, false},
		{"tags", Options{Tags: map[string]string{"url": "http://t:1", "n": "5", "save": "true"}}, "http://t:1", 5, true},
		{"environment", Options{Env: env(map[string]string{"VBENCH_URL": "http://e:2", "VBENCH_N": "6"})}, "http://e:2", 6, false},
		{"tags win over the environment", Options{Tags: map[string]string{"url": "http://t:1"}, Env: env(map[string]string{"VBENCH_URL": "http://e:2"})}, "http://t:1", 1000, false},
		{"empty variable is unset", Options{Env: env(map[string]string{"VBENCH_URL": ""})}, "http://127.0.0.1:8000", 1000, false},
		{"set replaces a tagged field", Options{Sets: []string{"target.base_url=http://s:3"}, Env: env(map[string]string{"VBENCH_URL": "http://e:2"})}, "http://s:3", 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustLoad(t, tt.opts, src("t.cue", file))
			if s.Target.BaseURL != tt.url || s.Load.NumPrompts != tt.prompts || s.Output.SaveResult != tt.save {
				t.Errorf("got url %q, num_prompts %d, save_result %v; want %q, %d, %v",
					s.Target.BaseURL, s.Load.NumPrompts, s.Output.SaveResult, tt.url, tt.prompts, tt.save)
			}
		})
	}
}

// TestShippedScenarios loads and validates every file under scenarios/,
// so a new file is covered without touching this test.
func TestShippedScenarios(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"*.cue", "*.yaml", "*.yml", "*.json"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "scenarios", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("found %d shipped scenarios, want at least quickstart and kimi-8k", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			s, err := LoadFiles([]string{file}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, format := range Formats {
				roundTrip(t, s, format)
			}
		})
	}
}

func TestQuickstart(t *testing.T) {
	t.Parallel()
	s, err := LoadFiles([]string{filepath.Join("..", "..", "scenarios", "quickstart.cue")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case s.Target.Simulator == nil || s.Target.Simulator.TTFTMs != 50 || s.Target.Simulator.ITLMs != 10:
		t.Errorf("simulator = %+v, want ttft 50 ms, itl 10 ms", s.Target.Simulator)
	case s.Target.Backend != "openai" || s.Target.Model != "vbench-sim" || s.Tokenizer.Name != "o200k_base":
		t.Errorf("target %+v, tokenizer %+v", s.Target, s.Tokenizer)
	case dsNum(s, "random.input_len") != 256 || dsNum(s, "random.output_len") != 32 || s.Load.NumPrompts != 200:
		t.Errorf("dataset %+v, num_prompts %d", s.Dataset, s.Load.NumPrompts)
	case s.Load.MaxConcurrency == nil || *s.Load.MaxConcurrency != 64:
		t.Errorf("max_concurrency = %v, want 64", s.Load.MaxConcurrency)
	case !s.Output.SaveResult || s.Output.ResultDir != "results":
		t.Errorf("output = %+v", s.Output)
	}
}

func TestKimi8k(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "scenarios", "kimi-8k.cue")
	tests := []struct {
		name string
		opts Options
		url  string
	}{
		{"default url", Options{}, "http://127.0.0.1:8000"},
		{"VBENCH_URL", Options{Env: func(k string) string {
			if k == "VBENCH_URL" {
				return "http://gpu1:8000"
			}
			return ""
		}}, "http://gpu1:8000"},
		{"--set", Options{Sets: []string{"target.base_url=http://gpu2:8000"}}, "http://gpu2:8000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := LoadFiles([]string{file}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case s.Target.BaseURL != tt.url:
				t.Errorf("base_url = %q, want %q", s.Target.BaseURL, tt.url)
			case s.Target.Backend != "vllm" || s.Target.Model != "nvidia/Kimi-K2.5-NVFP4":
				t.Errorf("target = %+v", s.Target)
			case dsNum(s, "random.input_len") != 8192 || dsNum(s, "random.output_len") != 1024:
				t.Errorf("dataset = %+v", s.Dataset)
			case s.Load.NumPrompts != 4096 || s.Load.MaxConcurrency == nil || *s.Load.MaxConcurrency != 1400:
				t.Errorf("load = %+v", s.Load)
			case !s.Sampling.IgnoreEOS || !s.Output.SaveResult:
				t.Errorf("ignore_eos %v, save_result %v", s.Sampling.IgnoreEOS, s.Output.SaveResult)
			case !reflect.DeepEqual(s.Metrics.PercentileMetrics, []string{"ttft", "tpot", "itl", "e2el"}):
				t.Errorf("percentile_metrics = %q", s.Metrics.PercentileMetrics)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"full", Problem{Pos: Pos{File: "a.cue", Line: 3, Col: 2}, Path: "load.x", Msg: "bad"}, "a.cue:3:2: load.x: bad"},
		{"line only", Problem{Pos: Pos{File: "a.yaml", Line: 3}, Msg: "bad"}, "a.yaml:3: bad"},
		{"source without line", Problem{Pos: Pos{File: "--set a=b"}, Path: "a", Msg: "bad"}, "--set a=b: a: bad"},
		{"no position", Problem{Path: "a", Msg: "bad"}, "a: bad"},
		{"others", Problem{Pos: Pos{File: "a.cue", Line: 1, Col: 1}, Others: []Pos{{File: "b.cue", Line: 2, Col: 2}, {File: "--set x=1"}}, Msg: "bad"},
			"a.cue:1:1: bad (also b.cue:2:2, --set x=1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.p.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
	e := newError(nil, tests[1].p, tests[0].p, tests[0].p)
	if want := "a.cue:3:2: load.x: bad\na.yaml:3: bad"; e.Error() != want {
		t.Errorf("Error() = %q, want sorted, deduplicated %q", e.Error(), want)
	}
	if strings.Contains(e.Error(), "\n\n") {
		t.Errorf("Error() has empty lines: %q", e.Error())
	}
}
