package argv

import (
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/backend"
)

// The tests parse as the program does: with the backend registry's
// implemented kinds (package cli passes them the same way).
func init() { SetImplementedBackends(backend.SupportedNames()) }

// TestBackendChoicesMatchRegistry checks --backend against the backend
// registry: vLLM's choices in vLLM's order, and the implemented ones.
func TestBackendChoicesMatchRegistry(t *testing.T) {
	f := flagByName["--backend"]
	if !slices.Equal(f.choices, backend.Names()) {
		t.Errorf("--backend choices %q\nregistry %q", f.choices, backend.Names())
	}
	if !slices.Equal(f.supported, backend.SupportedNames()) {
		t.Errorf("--backend implemented %q\nregistry %q", f.supported, backend.SupportedNames())
	}
}

// TestSetImplementedBackends checks that the implemented set drives the
// refusal, help and Format, and that a choice becomes usable once the
// registry implements it.
func TestSetImplementedBackends(t *testing.T) {
	defer SetImplementedBackends(backend.SupportedNames())
	args := []string{"--backend", "openai-audio", "--endpoint", "/v1/audio/transcriptions"}
	SetImplementedBackends([]string{"vllm", "openai"})
	if _, err := Parse(args, Options{}); err == nil || !strings.Contains(err.Error(), "not supported yet (vbench serve implements vllm, openai so far)") {
		t.Fatalf("Parse(%q) = %v, want not supported", args, err)
	}
	SetImplementedBackends([]string{"openai", "openai-audio"})
	s, err := Parse(args, Options{})
	if err != nil {
		t.Fatalf("Parse(%q) with openai-audio implemented: %v", args, err)
	}
	if _, err := Format(s); err != nil {
		t.Errorf("Format with openai-audio implemented: %v", err)
	}
	if _, err := Parse([]string{"--backend", "vllm"}, Options{}); err == nil || !strings.Contains(err.Error(), "implements openai, openai-audio so far") {
		t.Errorf("Parse(--backend vllm) = %v, want not supported naming openai, openai-audio", err)
	}
}
