package argv

import (
	"strings"
	"testing"
)

// The blazedit flags format back to themselves, and only when they differ
// from vLLM's defaults.
func TestFormatBlazedit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char"}, "--dataset-name hf --dataset-path vdaita/edit_5k_char"},
		{[]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char", "--blazedit-min-distance", "0.0", "--blazedit-max-distance", "1"},
			"--dataset-name hf --dataset-path vdaita/edit_5k_char"},
		{[]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_10k_char", "--blazedit-max-distance", "0.75", "--blazedit-min-distance", "1e-1"},
			"--dataset-name hf --dataset-path vdaita/edit_10k_char --blazedit-min-distance 0.1 --blazedit-max-distance 0.75"},
	} {
		s, err := Parse(tc.args, Options{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if h := s.Dataset.HF; h == nil || h.BlazeditMinDistance < 0 || h.BlazeditMaxDistance > 1 {
			t.Fatalf("%q: dataset %+v", tc.args, s.Dataset)
		}
		out, err := Format(s)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if got := strings.Join(out, " "); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, got, tc.want)
		}
		back, err := Parse(out, Options{})
		if err != nil || back.Hash() != s.Hash() {
			t.Errorf("%q: round trip changed the scenario (%v)", tc.args, err)
		}
	}
	// Without the flags, the scenario has vLLM's window, which is also the
	// schema's default.
	s, err := Parse([]string{"--dataset-name", "hf", "--dataset-path", "vdaita/edit_5k_char"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Dataset.HF; h.BlazeditMinDistance != 0 || h.BlazeditMaxDistance != 1 {
		t.Errorf("default window %v..%v, want 0..1", h.BlazeditMinDistance, h.BlazeditMaxDistance)
	}
}
