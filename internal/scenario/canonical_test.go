package scenario

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rich is a scenario that sets a little of everything, including values
// that are awkward to round-trip (infinity, objects in raw JSON, quoted
// labels, a header secret).
const rich = `
name: "rich"
seed: 42
target: {
	base_url: "https://h:8443"
	backend:  "openai-chat"
	endpoint: "/v1/chat/completions"
	model:    "Qwen/Qwen3-8B"
	headers: {"Authorization": "Bearer s3cret", "_x": "1", "if": "2"}
	simulator: {jitter_ms: 0.5}
}
tokenizer: {name: "o200k_base", revision: "main"}
dataset: hf: {
	path:                  "lmms-lab/LLaVA-OneVision-Data"
	blazedit_min_distance: 0.25
	asr_max_audio_len_sec: "inf"
}
load: {
	num_prompts:  10
	request_rate: "inf"
	burstiness:   "inf"
	ramp_up: {strategy: "linear", start_rps: 1, end_rps: 5}
}
sampling: {
	temperature: 0.7
	top_k:       -1
	extra_body: {chat_template_kwargs: {enable_thinking: false}, n: 1.0}
}
metrics: {
	percentile_metrics: ["ttft", "e2el"]
	metric_percentiles: [50, 99.9]
	goodput: {ttft: 200, e2el: 1e4}
}
output: {metadata: {"run": "nightly", "<tag>": "&"}}
sweep: {axes: {"load.max_concurrency": [1, 8], "target.headers.Authorization": ["Bearer other", "Bearer third"]}, mode: "zip"}
repeat: {count: 3}
compare: {
	variants: {
		old: target: {base_url: "http://old:8000", headers: {"Authorization": "Bearer old"}}
		new: target: base_url: "http://new:8000"
	}
	baseline: "old"
	gates: [{metric: "p99_ttft_ms", max_increase: "5%"}, {metric: "output_throughput", max_decrease: "2.5%"}]
}
`

// roundTrip exports s in format, loads the output back and checks that
// the hash survives.
func roundTrip(t *testing.T, s *Scenario, format string) {
	t.Helper()
	out, err := Export(s, format)
	if err != nil {
		t.Fatalf("export %s: %v", format, err)
	}
	back, err := LoadBytes("exported."+format, out, Options{})
	if err != nil {
		t.Fatalf("load exported %s: %v\n%s", format, err, out)
	}
	if got, want := back.Hash(), s.Hash(); got != want {
		t.Errorf("%s round trip changed the hash:\n%s\n%s\nexported:\n%s", format, back.Canonical(), s.Canonical(), out)
	}
}

func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  Source
	}{
		{"defaults", src("d.cue", "")},
		{"rich", src("rich.cue", rich)},
		{"range ratio object", src("r.yaml", "target: {backend: openai-chat, endpoint: /v1/chat/completions}\ndataset: {random_mm: {range_ratio: {input: 0.1, output: 0.9}, bucket_config: {\"1,2,3\": 1}}}\n")},
		{"timed trace self-timed", src("t.json", `{"target": {"backend": "vllm"}, "dataset": {"timed_trace": {"path": "t.jsonl", "self_timed": false, "sec_multiplier": 0.001}}}`)},
		{"strings that look like other types", src("s.yaml", "name: \"123\"\ntarget: {model: \"true\", host: \"null\", served_model_name: \"1e3\", request_id_prefix: \"- x\"}\noutput: {label: \"a: b\", metadata: {\"1\": \"#\"}}\n")},
	}
	for _, tt := range tests {
		for _, format := range Formats {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				roundTrip(t, mustLoad(t, Options{}, tt.src), format)
			})
		}
	}
}

func TestExportFormats(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("q.cue", "load: num_prompts: 5\n"))
	tests := []struct {
		format string
		want   []string // substrings of the output, in order
	}{
		{"cue", []string{"// A resolved vbench scenario", "schema: \"vbench.dev/scenario/v1alpha1\"", "num_prompts:", "request_rate:", `"inf"`}},
		{"json", []string{"{\n  \"schema\": \"vbench.dev/scenario/v1alpha1\",", "\"num_prompts\": 5,", "\"request_rate\": \"inf\""}},
		{"yaml", []string{"schema: vbench.dev/scenario/v1alpha1\n", "  num_prompts: 5\n", "  request_rate: inf\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			t.Parallel()
			out, err := Export(s, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			rest := string(out)
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			again, err := Export(s, tt.format)
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("second export differs (err %v)", err)
			}
		})
	}
	if _, err := Export(s, "toml"); err == nil || !strings.Contains(err.Error(), `unknown format "toml"`) {
		t.Errorf("Export(toml) error = %v, want unknown format", err)
	}
}

// sortedKeys reports whether every object in canonical JSON has its keys
// in ascending order.
func sortedKeys(t *testing.T, data []byte) bool {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		last   string
		key    bool // the next string token is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			t.Fatal(err)
		}
		top := len(stack) - 1
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				if top >= 0 && stack[top].object {
					stack[top].key = true
				}
				stack = append(stack, frame{object: true, key: true})
				continue
			case '[':
				if top >= 0 && stack[top].object {
					stack[top].key = true
				}
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:top]
				continue
			}
		case string:
			if top >= 0 && stack[top].object && stack[top].key {
				if stack[top].last != "" && tok <= stack[top].last {
					return false
				}
				stack[top].last, stack[top].key = tok, false
				continue
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].key = true
		}
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("rich.cue", rich))
	c := s.Canonical()
	if !sortedKeys(t, c) {
		t.Errorf("keys not sorted: %s", c)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, c); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(compact.Bytes(), c) {
		t.Errorf("canonical form has insignificant whitespace: %s", c)
	}
	if !bytes.Contains(c, []byte(`"<tag>":"&"`)) {
		t.Errorf("canonical form escapes HTML: %s", c)
	}
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(s.Hash()) {
		t.Errorf("hash %q is not sha256:<64 hex>", s.Hash())
	}
}

func TestHashStable(t *testing.T) {
	t.Parallel()
	// The same scenario written four ways, and loaded twice.
	want := mustLoad(t, Options{}, src("a.cue", "target: backend: \"vllm\"\nload: {num_prompts: 10, request_rate: 2}\n")).Hash()
	tests := []struct {
		name string
		srcs []Source
		opts Options
	}{
		{"same file again", []Source{src("a.cue", "target: backend: \"vllm\"\nload: {num_prompts: 10, request_rate: 2}\n")}, Options{}},
		{"yaml, other order", []Source{src("a.yaml", "load:\n  request_rate: 2.0\n  num_prompts: 10\ntarget:\n  backend: vllm\n")}, Options{}},
		{"defaults spelled out", []Source{src("a.json", `{"target": {"backend": "vllm", "port": 8000}, "load": {"num_prompts": 10, "request_rate": 2, "burstiness": 1}, "dataset": {"random": {}}}`)}, Options{}},
		{"split over files and --set", []Source{src("a.cue", "target: backend: \"vllm\"\n"), src("b.yaml", "load: {num_prompts: 99}\n")},
			Options{Sets: []string{"load.num_prompts=10", "load.request_rate=2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := mustLoad(t, tt.opts, tt.srcs...).Hash(); got != want {
				t.Errorf("hash %s, want %s", got, want)
			}
		})
	}
}

func TestHashChanges(t *testing.T) {
	t.Parallel()
	base := mustLoad(t, Options{}, src("rich.cue", rich))
	seen := map[string]string{base.Hash(): "base"}
	tests := []struct {
		name   string
		change func(*Scenario)
	}{
		{"name", func(s *Scenario) { s.Name = "other" }},
		{"seed", func(s *Scenario) { s.Seed++ }},
		{"port", func(s *Scenario) { s.Target.Port++ }},
		{"header value", func(s *Scenario) { s.Target.Headers["Authorization"] = "Bearer x" }},
		{"header name", func(s *Scenario) { s.Target.Headers["authorization"] = s.Target.Headers["Authorization"] }},
		{"insecure", func(s *Scenario) { s.Target.Insecure = true }},
		{"simulator", func(s *Scenario) { s.Target.Simulator.ITLMs = 11 }},
		{"tokenizer mode", func(s *Scenario) { s.Tokenizer.Mode = "slow" }},
		{"dataset path", func(s *Scenario) { s.Dataset.Spec = json.RawMessage(`{"path": "x"}`) }},
		{"dataset kind", func(s *Scenario) { s.Dataset = Dataset{Name: "random", Spec: randomDefaults()} }},
		{"num prompts", func(s *Scenario) { s.Load.NumPrompts++ }},
		{"request rate", func(s *Scenario) { s.Load.RequestRate = 3 }},
		{"max concurrency set", func(s *Scenario) { n := 1; s.Load.MaxConcurrency = &n }},
		{"temperature", func(s *Scenario) { *s.Sampling.Temperature = 0 }},
		{"extra body", func(s *Scenario) { s.Sampling.ExtraBody["n"] = 2.0 }},
		{"percentile order", func(s *Scenario) { s.Metrics.PercentileMetrics = []string{"e2el", "ttft"} }},
		{"goodput", func(s *Scenario) { s.Metrics.Goodput["tpot"] = 1 }},
		{"records", func(s *Scenario) { s.Output.Records = false }},
		{"sweep value", func(s *Scenario) { s.Sweep.Axes["load.max_concurrency"][1] = json.RawMessage("9") }},
		{"repeat", func(s *Scenario) { s.Repeat.FixedSeed = true }},
		{"variant", func(s *Scenario) { s.Compare.Variants["new"] = json.RawMessage(`{}`) }},
		{"gate", func(s *Scenario) { s.Compare.Gates[0].MaxIncrease = "6%" }},
		{"no compare", func(s *Scenario) { s.Compare = nil }},
	}
	for _, tt := range tests {
		c := base.clone()
		tt.change(c)
		h := c.Hash()
		if prev, ok := seen[h]; ok {
			t.Errorf("%s: hash equals that of %s", tt.name, prev)
		}
		seen[h] = tt.name
	}
	if again := mustLoad(t, Options{}, src("rich.cue", rich)).Hash(); again != base.Hash() {
		t.Errorf("changing copies changed the base: %s != %s", again, base.Hash())
	}
}

func TestRedacted(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("rich.cue", rich))
	hash := s.Hash()
	r := s.Redacted()
	for k, v := range r.Target.Headers {
		if v != RedactedValue {
			t.Errorf("header %s = %q, want redacted", k, v)
		}
	}
	for _, format := range Formats {
		out, err := Export(r, format)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"s3cret", "Bearer old", "Bearer other"} {
			if bytes.Contains(out, []byte(secret)) {
				t.Errorf("redacted %s export contains %q:\n%s", format, secret, out)
			}
		}
	}
	if bytes.Contains(r.Canonical(), []byte("s3cret")) {
		t.Errorf("redacted canonical form contains the secret")
	}
	if s.Target.Headers["Authorization"] != "Bearer s3cret" || s.Hash() != hash {
		t.Errorf("Redacted changed the original")
	}
	if r.Hash() == hash {
		t.Errorf("redacted scenario has the original's hash")
	}
	if string(r.Compare.Variants["new"]) != string(s.Compare.Variants["new"]) {
		t.Errorf("variant without headers changed: %s", r.Compare.Variants["new"])
	}
	if err := r.Validate(); err != nil {
		t.Errorf("redacted scenario is invalid: %v", err)
	}
}

// TestRedactedBaseURL checks that Redacted hides the password of every
// target base_url but keeps the rest of the URL.
func TestRedactedBaseURL(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("rich.cue", rich))
	s.Target.BaseURL = "https://alice:pw-s3cret@h:8443"
	if s.Compare == nil {
		s.Compare = &Compare{}
	}
	s.Compare.Variants = map[string]json.RawMessage{
		"v": json.RawMessage(`{"target":{"base_url":"https://bob:pw-s3cret@other"}}`),
	}
	s.Sweep = &Sweep{Axes: map[string][]json.RawMessage{
		"target.base_url": {json.RawMessage(`"http://carol:pw-s3cret@a"`), json.RawMessage(`"http://b"`)},
		"target":          {json.RawMessage(`{"base_url":"http://dave:pw-s3cret@c"}`)},
	}}
	r := s.Redacted()
	if r.Target.BaseURL != "https://alice:xxxxx@h:8443" {
		t.Errorf("base_url = %q, want the password redacted", r.Target.BaseURL)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("pw-s3cret")) {
		t.Errorf("redacted scenario holds a URL password:\n%s", out)
	}
	for _, user := range []string{"bob:xxxxx@other", "carol:xxxxx@a", `"http://b"`, "dave:xxxxx@c"} {
		if !bytes.Contains(out, []byte(user)) {
			t.Errorf("redacted scenario lacks %s:\n%s", user, out)
		}
	}
	if s.Target.BaseURL != "https://alice:pw-s3cret@h:8443" {
		t.Errorf("Redacted changed the original")
	}
	for in, want := range map[string]string{
		"":                   "",
		"http://h:8000":      "http://h:8000",
		"http://user@h":      "http://user@h",
		"http://u:p@h/x?q=1": "http://u:xxxxx@h/x?q=1",
		"http://u:p@h%zz":    RedactedValue,
		"u:p@h:8000":         RedactedValue, // no scheme: Go parses "u" as one
		"h:8000":             "h:8000",
		"//u:p@h:8000":       "//u:xxxxx@h:8000",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// RedactArgv hides the values of secret options, in both forms, and
// leaves every other word alone.
func TestRedactArgv(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"vllm", "serve", "m", "--api-key", "sk-1", "--port", "8000"}, []string{"vllm", "serve", "m", "--api-key", RedactedValue, "--port", "8000"}},
		{[]string{"x", "--hf-token=hf_abc", "--hf_token", "hf_def"}, []string{"x", "--hf-token=" + RedactedValue, "--hf_token", RedactedValue}},
		{[]string{"x", "--max-num-batched-tokens", "4096", "--tokenizer", "t", "--ssl-keyfile", "k.pem"}, []string{"x", "--max-num-batched-tokens", "4096", "--tokenizer", "t", "--ssl-keyfile", "k.pem"}},
		{[]string{"x", "--db-password", "p", "--client-secret=s", "--api-key"}, []string{"x", "--db-password", RedactedValue, "--client-secret=" + RedactedValue, "--api-key"}},
	} {
		if got := RedactArgv(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("RedactArgv(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	s := &Scenario{Target: Target{Server: &Server{Command: []string{"vllm", "serve", "--api-key", "sk-1"},
		Args: map[string]json.RawMessage{"hf_token": json.RawMessage(`"hf_x"`), "max_num_seqs": json.RawMessage("8")}}}}
	r := s.Redacted()
	if r.Target.Server.Command[3] != RedactedValue || string(r.Target.Server.Args["hf_token"]) != `"`+RedactedValue+`"` || string(r.Target.Server.Args["max_num_seqs"]) != "8" {
		t.Errorf("redacted server %+v", r.Target.Server)
	}
	if s.Target.Server.Command[3] != "sk-1" {
		t.Error("Redacted changed the scenario")
	}
}
