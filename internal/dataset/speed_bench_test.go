package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// speedBenchGolden is testdata/speed_bench_golden.json, written by
// testdata/gen_speed_bench.py: the fixture files (by subset) and vLLM's
// requests from them.
type speedBenchGolden struct {
	Fixtures map[string]string
	Cases    []struct {
		Name               string
		Subset             string
		N                  int
		OutputLen          int `json:"output_len"`
		Category           string
		DisableShuffle     bool            `json:"disable_shuffle"`
		NoOversample       bool            `json:"no_oversample"`
		SkipChatTemplate   bool            `json:"skip_chat_template"`
		ChatTemplateKwargs json.RawMessage `json:"chat_template_kwargs"`
		Prefix             string
		Requests           []vllmRequest
	}
}

// writeSpeedBenchDir writes files (subset name: text) as a SPEED-Bench
// directory and returns it.
func writeSpeedBenchDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for subset, text := range files {
		if err := os.WriteFile(filepath.Join(dir, subset+".jsonl"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSpeedBenchGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "speed_bench_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden speedBenchGolden
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 7 || len(golden.Fixtures) != 2 {
		t.Fatalf("the golden file has %d cases and %d fixtures", len(golden.Cases), len(golden.Fixtures))
	}
	dir := writeSpeedBenchDir(t, golden.Fixtures)
	for _, c := range golden.Cases {
		t.Run(c.Name, func(t *testing.T) {
			spec := scenario.Dataset{Name: "speed_bench", Spec: &SpeedBenchSpec{
				FileOptions: FileOptions{Path: dir, DisableShuffle: c.DisableShuffle, NoOversample: c.NoOversample},
				Subset:      c.Subset, OutputLen: c.OutputLen, Category: c.Category,
				SkipChatTemplate: c.SkipChatTemplate, ChatTemplateKwargs: c.ChatTemplateKwargs,
			}}
			// The seed is vLLM's fixed 0 whatever the scenario's.
			reqs, err := Build(context.Background(), spec, Env{Tokenizer: wsTokenizer{}, Seed: 12345, NumPrompts: c.N, IDPrefix: c.Prefix})
			if err != nil {
				t.Fatal(err)
			}
			checkVLLMRequests(t, reqs, c.Requests)
		})
	}
}

func TestSpeedBenchFileErrors(t *testing.T) {
	tests := []struct {
		name, file, category, want string
	}{
		{"empty", "\n\n", "", `q.jsonl: the file is empty: expected JSON lines, each an object with a "messages" list`},
		{"no messages", `{"messages": [{"content": "ok"}]}` + "\n" + `{"category": "qa", "turns": ["x"]}`, "",
			`q.jsonl:2: no "messages": expected a list that starts with a message whose "content" is the prompt`},
		{"messages not a list", `{"messages": "hi"}`, "", `q.jsonl:1: "messages" is a JSON string, expected a list that starts with a message whose "content" is the prompt`},
		{"empty messages", `{"messages": []}`, "", `q.jsonl:1: "messages" is empty: expected a list that starts with a message whose "content" is the prompt`},
		{"message not an object", `{"messages": ["hi"]}`, "", `q.jsonl:1: the first message is a JSON string, expected an object with a "content" string`},
		{"no content", `{"messages": [{"role": "user", "text": "hi"}]}`, "", `q.jsonl:1: the first message has no "content": expected the prompt string`},
		{"content parts", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}`, "",
			`q.jsonl:1: the first message's "content" is a JSON array, expected the prompt string`},
		{"truncated", `{"messages": [{"content": "ok"}]}` + "\n" + `{"messages": [{"content": "cut`, "",
			`q.jsonl:2: invalid JSON (unexpected end of JSON input): expected one JSON object per line`},
		{"a number", `42`, "", `q.jsonl:1: a JSON number, expected an object with a "messages" list`},
		{"unknown category", `{"category": "qa", "messages": [{"content": "a"}]}` + "\n" + `{"category": "coding", "messages": [{"content": "b"}]}`, "math",
			`q.jsonl: no line has "category" "math" (--speed-bench-category): the file's categories are coding, qa`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readSpeedBench("q.jsonl", strings.NewReader(tt.file), tt.category)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// The first message is the prompt whatever its role, and lines outside
	// the category need no prompt, as in vLLM.
	lines, objects, err := readSpeedBench("q.jsonl", strings.NewReader(`{"category": "qa"}`+"\n"+
		`{"category": "math", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "b"}]}`), "math")
	if err != nil || len(lines) != 1 || lines[0].Prompt != "be brief" || lines[0].Line != 2 || objects != 2 {
		t.Fatalf("lines %+v of %d, error %v", lines, objects, err)
	}
}

// vbench dataset reports what the category filter dropped, and the copies
// oversampling added; without a category nothing is filtered.
func TestSpeedBenchCounts(t *testing.T) {
	dir := writeSpeedBenchDir(t, map[string]string{"qualitative": `{"category": "qa", "messages": [{"content": "a"}]}` + "\n\n" +
		`{"category": "math", "messages": [{"content": "b"}]}` + "\n" + `{"category": "qa", "messages": [{"content": "c"}]}` + "\n"})
	for _, tt := range []struct {
		category string
		n        int
		want     Counts
	}{
		{"", 5, Counts{Examined: -1}}, // left alone
		{"qa", 5, Counts{Filtered: true, Examined: 3, Dropped: 1, Oversampled: 3}},
		{"qa", 1, Counts{Filtered: true, Examined: 3, Dropped: 1}},
		{"math", 0, Counts{Filtered: true, Examined: 3, Dropped: 2}},
	} {
		counts := Counts{Examined: -1}
		spec := scenario.Dataset{Name: "speed_bench", Spec: &SpeedBenchSpec{FileOptions: FileOptions{Path: dir}, Subset: "qualitative", OutputLen: 2, Category: tt.category}}
		if _, err := Build(context.Background(), spec, Env{Tokenizer: wsTokenizer{}, NumPrompts: tt.n, Counts: &counts}); err != nil {
			t.Fatal(err)
		}
		if counts != tt.want {
			t.Errorf("category %q, %d prompts: counts %+v, want %+v", tt.category, tt.n, counts, tt.want)
		}
	}
}

func TestSpeedBenchDirErrors(t *testing.T) {
	dir := writeSpeedBenchDir(t, map[string]string{"throughput_1k": `{"messages": [{"content": "a b"}]}` + "\n", "throughput_8k": "\n"})
	file := filepath.Join(dir, "throughput_1k.jsonl")
	for _, tt := range []struct {
		name, path, subset, want string
	}{
		{"missing subset", dir, "qualitative", filepath.Join(dir, "qualitative.jsonl") + ": no such file: --speed-bench-dataset-subset qualitative reads qualitative.jsonl in --dataset-path " + dir + ", which holds the subsets throughput_1k, throughput_8k"},
		{"empty subset", dir, "throughput_8k", filepath.Join(dir, "throughput_8k.jsonl") + `: the file is empty: expected JSON lines, each an object with a "messages" list`},
		{"a file", file, "qualitative", "--dataset-path " + file + " is not a directory: SPEED-Bench is a directory holding <subset>.jsonl files (NVIDIA NeMo Skills' speed-bench prepare.py writes it)"},
		{"no directory", filepath.Join(dir, "nope"), "qualitative", "--dataset-path " + filepath.Join(dir, "nope") + ": no such file or directory (expected the SPEED-Bench directory holding <subset>.jsonl files)"},
		{"no subsets", t.TempDir(), "throughput_2k", "no such file: --speed-bench-dataset-subset throughput_2k reads throughput_2k.jsonl in --dataset-path"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadSpeedBenchDir(tt.path, tt.subset, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// Errors after reading name the subset file and line: a tokenizer
	// without a template fails on the first line.
	spec := SpeedBenchSpec{FileOptions: FileOptions{Path: dir}, Subset: "throughput_1k", OutputLen: 4}
	_, err := SpeedBench(context.Background(), spec, 1, noTemplateTokenizer{}, "", nil)
	if err == nil || !strings.HasPrefix(err.Error(), file+":1: ") {
		t.Fatalf("error %v, want it to name %s:1", err, file)
	}
}

// noTemplateTokenizer is wsTokenizer without a chat template.
type noTemplateTokenizer struct{ wsTokenizer }

func (noTemplateTokenizer) ApplyChatTemplate([]tokenizer.Message, bool, map[string]any) (string, error) {
	return "", errors.New("the tokenizer has no chat template")
}

func TestSpeedBenchSpecErrors(t *testing.T) {
	ok := SpeedBenchSpec{FileOptions: FileOptions{Path: "d"}, Subset: "qualitative", OutputLen: 4096}
	with := func(f func(*SpeedBenchSpec)) scenario.Dataset {
		s := ok
		f(&s)
		return scenario.Dataset{Name: "speed_bench", Spec: &s}
	}
	for _, tt := range []struct {
		spec scenario.Dataset
		want string
	}{
		{scenario.Dataset{}, `the scenario's dataset "" holds <nil>, not a *dataset.SpeedBenchSpec`},
		{with(func(s *SpeedBenchSpec) { s.Path = "" }), "dataset.speed_bench.path (--dataset-path) is empty"},
		{with(func(s *SpeedBenchSpec) { s.Subset = "throughput_4k" }),
			`dataset.speed_bench.subset (--speed-bench-dataset-subset) is "throughput_4k": it must be one of qualitative, throughput_1k, throughput_2k, throughput_8k, throughput_16k, throughput_32k`},
		{with(func(s *SpeedBenchSpec) { s.OutputLen = 0 }), "dataset.speed_bench.output_len (--speed-bench-output-len) is 0: it must be positive"},
		{with(func(s *SpeedBenchSpec) { s.ChatTemplateKwargs = json.RawMessage(`[1]`) }), "dataset.speed_bench.chat_template_kwargs (--chat-template-kwargs): expected a JSON object"},
	} {
		if _, err := newSpeedBenchSource(tt.spec); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("newSpeedBenchSource(%+v) = %v, want %q", tt.spec, err, tt.want)
		}
	}
	if _, err := newSpeedBenchSource(scenario.Dataset{Name: "speed_bench", Spec: &ok}); err != nil {
		t.Fatal(err)
	}
	// Every line with num_prompts <= 0, logged as vLLM logs it; the
	// registry refuses a run without a tokenizer, as vLLM asserts one.
	var log bytes.Buffer
	dir := writeSpeedBenchDir(t, map[string]string{"qualitative": `{"messages": [{"content": "a b"}]}` + "\n"})
	spec := SpeedBenchSpec{FileOptions: FileOptions{Path: dir}, Subset: "qualitative", OutputLen: 3}
	reqs, err := SpeedBench(context.Background(), spec, 0, wsTokenizer{}, "", &log)
	if err != nil || len(reqs) != 1 || !strings.Contains(log.String(), "using all available samples: 1") {
		t.Fatalf("requests %+v, error %v, log %q", reqs, err, log.String())
	}
	if _, err := Build(context.Background(), scenario.Dataset{Name: "speed_bench", Spec: &spec}, Env{NumPrompts: 1}); err == nil || !strings.Contains(err.Error(), "needs a client tokenizer") {
		t.Fatalf("Build without a tokenizer: %v", err)
	}
}

// FuzzReadSpeedBench compares readSpeedBench with the reference
// (refBench) on arbitrary files and categories.
func FuzzReadSpeedBench(f *testing.F) {
	f.Add(`{"category": "qa", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}`+"\n\n"+`{"messages": [{"content": "c"}]}`, "")
	f.Add(`{"category": "qa", "messages": [{"content": "a"}]}`, "qa")
	f.Add(`{"messages": [{"content": 1}]}`, "")
	f.Add(`{"messages": [null]}`, "")
	f.Add(`{"messages": [[]]}`+"\n"+`{"messages": {}}`, "x")
	f.Fuzz(func(t *testing.T, s, category string) {
		lines, objects, err := readSpeedBench("f.jsonl", strings.NewReader(s), category)
		want, wantObjects, bad := refBench(s, category, false)
		checkAgainstRef(t, s, lines, err, want, bad)
		if err == nil && objects != wantObjects {
			t.Fatalf("%q: %d objects, the reference %d", s, objects, wantObjects)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line naming the file", err)
			}
			return
		}
		if len(lines) == 0 {
			t.Fatal("no lines and no error")
		}
		prev := 0
		for _, l := range lines {
			if l.Line <= prev || l.OutputTokens != -1 {
				t.Fatalf("line %+v after line %d", l, prev)
			}
			prev = l.Line
		}
		if objects < len(lines) || objects > strings.Count(s, "\n")+1 {
			t.Fatalf("%d objects read for %d lines kept", objects, len(lines))
		}
	})
}

// max_input_len cuts the longer prompts to their first tokens, so that
// with the tokenizer's special tokens they are max_input_len long, and
// leaves the others alone.
func TestCutPrompts(t *testing.T) {
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 20)
	reqs := []Request{
		{Prompt: long, PromptLen: len(tok.Encode(long, true))},
		{Prompt: "short prompt", PromptLen: len(tok.Encode("short prompt", true))},
	}
	cutPrompts(reqs, 16, tok)
	if reqs[0].PromptLen != 16 || len(tok.Encode(reqs[0].Prompt, true)) != 16 || !strings.HasPrefix(long, reqs[0].Prompt) {
		t.Errorf("long prompt: %d tokens, %q", reqs[0].PromptLen, reqs[0].Prompt)
	}
	if reqs[1].Prompt != "short prompt" || reqs[1].PromptLen != 2 {
		t.Errorf("short prompt changed: %+v", reqs[1])
	}
}
