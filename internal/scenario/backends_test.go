package scenario

import (
	"slices"
	"testing"
)

// TestSchemaBackends checks the backend enumerations read from the schema:
// vLLM's twelve in its order, then vbench's two, and the two subsets
// validation uses.
func TestSchemaBackends(t *testing.T) {
	all := Backends()
	if len(all) != 14 || all[0] != "vllm" || all[2] != "openai-chat" || all[11] != "vllm-rerank" || all[12] != "openai-responses" || all[13] != "anthropic-messages" {
		t.Errorf("Backends() = %q", all)
	}
	compatible, completions := OpenAICompatibleBackends(), CompletionsBackends()
	if !slices.Equal(compatible, []string{"vllm", "openai", "openai-chat"}) || !slices.Equal(completions, []string{"vllm", "openai"}) {
		t.Errorf("OpenAICompatibleBackends() = %q, CompletionsBackends() = %q", compatible, completions)
	}
	all[0] = "changed"
	if Backends()[0] != "vllm" {
		t.Error("Backends() returned the shared slice")
	}
}

func TestOrList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := orList(tc.in); got != tc.want {
			t.Errorf("orList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
