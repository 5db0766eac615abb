package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// specBenchGolden is testdata/spec_bench_golden.json, written by
// testdata/gen_spec_bench.py: the fixture and vLLM's requests from it.
type specBenchGolden struct {
	Fixture string
	Cases   []struct {
		Name           string
		N              int
		OutputLen      int `json:"output_len"`
		Category       string
		DisableShuffle bool `json:"disable_shuffle"`
		NoOversample   bool `json:"no_oversample"`
		Prefix         string
		Requests       []vllmRequest
	}
}

func TestSpecBenchGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "spec_bench_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden specBenchGolden
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 4 {
		t.Fatalf("the golden file has %d cases", len(golden.Cases))
	}
	path := filepath.Join(t.TempDir(), "question.jsonl")
	if err := os.WriteFile(path, []byte(golden.Fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range golden.Cases {
		t.Run(c.Name, func(t *testing.T) {
			spec := scenario.Dataset{Name: "spec_bench", Spec: &SpecBenchSpec{
				FileOptions: FileOptions{Path: path, DisableShuffle: c.DisableShuffle, NoOversample: c.NoOversample},
				OutputLen:   c.OutputLen, Category: c.Category,
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

func TestSpecBenchSkipChatTemplate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(path, []byte(`{"category": "qa", "turns": ["one two three"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := SpecBenchSpec{FileOptions: FileOptions{Path: path}, OutputLen: 5, SkipChatTemplate: true}
	reqs, err := SpecBench(context.Background(), spec, 1, wsTokenizer{}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].Prompt != "one two three" || reqs[0].PromptLen != 4 || reqs[0].OutputLen != 5 {
		t.Fatalf("requests %+v, want the raw first turn (3 words and BOS)", reqs)
	}
}

func TestSpecBenchErrors(t *testing.T) {
	tests := []struct {
		name, file, category, want string
	}{
		{"empty", "\n\n", "", `q.jsonl: the file is empty: expected JSON lines, each an object with a "turns" list`},
		{"no turns", `{"category": "qa", "turns": ["ok"]}` + "\n" + `{"category": "qa"}`, "", `q.jsonl:2: no "turns": expected an object with a "turns" list that starts with the prompt`},
		{"turns not a list", `{"turns": "hi"}`, "", `q.jsonl:1: "turns" is a JSON string, expected a list that starts with the prompt`},
		{"empty turns", `{"turns": []}`, "", `q.jsonl:1: "turns" is empty: expected a list that starts with the prompt`},
		{"turn not a string", `{"turns": [{"text": "hi"}]}`, "", `q.jsonl:1: the first turn is a JSON object, expected the prompt string`},
		{"truncated", `{"turns": ["ok"]}` + "\n" + `{"turns": ["cut`, "", `q.jsonl:2: invalid JSON (unexpected end of JSON input): expected one JSON object per line`},
		{"an array", `["hi"]`, "", `q.jsonl:1: a JSON array, expected an object with a "turns" list`},
		{"unknown category", `{"category": "qa", "turns": ["a"]}` + "\n" + `{"category": "math", "turns": ["b"]}`, "writing",
			`q.jsonl: no line has "category" "writing" (--spec-bench-category): the file's categories are math, qa`},
		{"no categories", `{"turns": ["a"]}`, "qa", `q.jsonl: no line has "category" "qa" (--spec-bench-category): no line has a "category" string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readSpecBench("q.jsonl", strings.NewReader(tt.file), tt.category)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// Lines outside the category need no prompt, as in vLLM.
	lines, _, err := readSpecBench("q.jsonl", strings.NewReader(`{"category": "qa"}`+"\n"+`{"category": "math", "turns": ["b"]}`), "math")
	if err != nil || len(lines) != 1 || lines[0].Prompt != "b" || lines[0].Line != 2 {
		t.Fatalf("lines %+v, error %v", lines, err)
	}
}

func TestSpecBenchSpecErrors(t *testing.T) {
	for _, tt := range []struct {
		spec scenario.Dataset
		want string
	}{
		{scenario.Dataset{}, `the scenario's dataset "" holds <nil>, not a *dataset.SpecBenchSpec`},
		{scenario.Dataset{Name: "spec_bench", Spec: &SpecBenchSpec{OutputLen: 4}}, "dataset.spec_bench.path (--dataset-path) is empty"},
		{scenario.Dataset{Name: "spec_bench", Spec: &SpecBenchSpec{FileOptions: FileOptions{Path: "q.jsonl"}}},
			"dataset.spec_bench.output_len (--spec-bench-output-len) is 0: it must be positive"},
	} {
		if _, err := newSpecBenchSource(tt.spec); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("newSpecBenchSource(%+v) = %v, want %q", tt.spec, err, tt.want)
		}
	}
	var log bytes.Buffer
	path := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(path, []byte(`{"turns": ["a b"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs, err := SpecBench(context.Background(), SpecBenchSpec{FileOptions: FileOptions{Path: path}, OutputLen: 3}, 0, wsTokenizer{}, "", &log)
	if err != nil || len(reqs) != 1 || !strings.Contains(log.String(), "using all available samples: 1") {
		t.Fatalf("requests %+v, error %v, log %q", reqs, err, log.String())
	}
}

// FuzzReadSpecBench compares readSpecBench with the reference (refBench)
// on arbitrary files and categories.
func FuzzReadSpecBench(f *testing.F) {
	f.Add(`{"category": "qa", "turns": ["a", "b"]}`+"\n\n"+`{"turns": ["c"]}`, "")
	f.Add(`{"category": "qa", "turns": ["a"]}`, "qa")
	f.Add(`{"turns": [1]}`, "")
	f.Fuzz(func(t *testing.T, s, category string) {
		lines, objects, err := readSpecBench("f.jsonl", strings.NewReader(s), category)
		want, wantObjects, bad := refBench(s, category, true)
		checkAgainstRef(t, s, lines, err, want, bad)
		if err == nil && objects != wantObjects {
			t.Fatalf("%q: %d objects, the reference %d", s, objects, wantObjects)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(lines) == 0 {
			t.Fatal("no lines and no error")
		}
		for _, l := range lines {
			if l.Line < 1 || l.OutputTokens != -1 {
				t.Fatalf("line %+v", l)
			}
		}
	})
}
