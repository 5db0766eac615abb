package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

func models(reqs []dataset.Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.Model
	}
	return out
}

func TestAssignLoRA(t *testing.T) {
	mods := []string{"sql-lora", "chat-lora", "code-lora"}
	tests := []struct {
		name       string
		mods       []string
		assignment string
		seed       int64
		want       []string
	}{
		{"none", nil, "random", 0, []string{"", "", "", "", ""}},
		{"round-robin", mods, "round-robin", 0, []string{"sql-lora", "chat-lora", "code-lora", "sql-lora", "chat-lora"}},
		// Python 3.11: random.seed(0); [random.choice(names) for _ in range(5)].
		{"random seed 0", mods, "random", 0, []string{"chat-lora", "chat-lora", "sql-lora", "chat-lora", "code-lora"}},
		{"random seed 7", mods, "random", 7, []string{"chat-lora", "sql-lora", "chat-lora", "code-lora", "sql-lora"}},
		// random.seed(-7) seeds as random.seed(7).
		{"random negative seed", mods, "random", -7, []string{"chat-lora", "sql-lora", "chat-lora", "code-lora", "sql-lora"}},
		{"one module", []string{"only"}, "random", 3, []string{"only", "only", "only", "only", "only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs := make([]dataset.Request, 5)
			assignLoRA(reqs, scenario.Target{LoraModules: tt.mods, LoraAssignment: tt.assignment}, pyGlobalRandom(tt.seed))
			if got := models(reqs); !slices.Equal(got, tt.want) {
				t.Errorf("models %q, want %q", got, tt.want)
			}
		})
	}
}

// Random LoRA assignment continues vLLM's Python random stream, which a
// kind drawing from it (custom, sonnet, sharegpt, spec_bench) leaves where vbench
// cannot follow: refused up front, round-robin allowed.
func TestLoRARandomRefusedWithPythonRandomKinds(t *testing.T) {
	for _, tt := range []struct {
		src     string
		refused bool
	}{
		{"dataset: custom: path: \"p.jsonl\"\ntarget: {lora_modules: [\"a\", \"b\"], lora_assignment: \"random\"}\n", true},
		{"dataset: sonnet: {}\ntarget: {lora_modules: [\"a\", \"b\"], lora_assignment: \"random\"}\n", true},
		{"dataset: custom: path: \"p.jsonl\"\ntarget: {lora_modules: [\"a\", \"b\"], lora_assignment: \"round-robin\"}\n", false},
		{"target: {lora_modules: [\"a\", \"b\"], lora_assignment: \"random\"}\n", false},
	} {
		sc, err := scenario.LoadBytes("s.cue", []byte(tt.src), scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = checkRun(sc)
		if got := err != nil && strings.Contains(err.Error(), "lora_assignment"); got != tt.refused {
			t.Errorf("%q: checkRun = %v, want refused %v", tt.src, err, tt.refused)
		}
	}
}
