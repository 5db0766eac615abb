package argv

import (
	"testing"

	"github.com/vbench/vbench/internal/dataset"
)

// Without the blazedit flags, an hf dataset has vLLM's distance window,
// which is also the schema's default. (TestFormat has the flags' round
// trips, TestFlagRows their values.)
func TestBlazeditDefaults(t *testing.T) {
	s, err := Parse([]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := s.Dataset.Spec.(*dataset.HFSpec); !ok || h.BlazeditMinDistance != 0 || h.BlazeditMaxDistance != 1 {
		t.Fatalf("dataset %+v, want the window 0..1", s.Dataset)
	}
}
