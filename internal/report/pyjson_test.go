package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRoundTripVLLMFiles decodes vLLM's own result files and re-encodes
// them: the bytes must be identical. This checks the float repr against
// thousands of values Python wrote, the ensure_ascii escaping of real
// generated texts, and the separators.
func TestRoundTripVLLMFiles(t *testing.T) {
	for _, name := range []string{"random-basic.json", "random-detailed.json", "chat-detailed.json"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			v, err := DecodePython(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalPython(v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("re-encoded file differs at byte %d", firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
