package argv

import (
	"errors"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// The scenario loader refuses the schema fields vbench does not implement
// with the same reason vbench serve gives for their flags: the two tables
// agree, and every refused field's flag is in unsupported.txt.
func TestUnimplementedFieldsAgree(t *testing.T) {
	fields := scenario.UnimplementedFields()
	if len(fields) == 0 {
		t.Fatal("scenario.UnimplementedFields is empty")
	}
	for _, u := range fields {
		reason, ok := unsupported[u.Flag]
		switch {
		case !ok:
			t.Errorf("%s is refused by the scenario loader but its flag %s is not in testdata/unsupported.txt", u.Path, u.Flag)
		case reason != u.Reason:
			t.Errorf("%s: the scenario loader says %q, unsupported.txt says %q for %s", u.Path, u.Reason, reason, u.Flag)
		}
	}
}

// A scenario built in Go with an unimplemented field set (which the
// loader would refuse) has no vllm bench serve form: Format names the flag
// and the same reason.
func TestFormatUnimplemented(t *testing.T) {
	for _, tc := range []struct {
		field string
		set   func(*scenario.Scenario)
		want  string
	}{
		{"dataset.random.batch_size", func(s *scenario.Scenario) { s.Dataset.Spec.(*dataset.RandomSpec).BatchSize = 4 }, "--random-batch-size"},
	} {
		s := scenario.Default()
		tc.set(s)
		_, err := Format(s)
		var e *Error
		want := tc.field + ": vbench serve does not support " + tc.want + " yet (" + unsupported[tc.want] + ")"
		if !errors.As(err, &e) || !e.Unsupported || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", tc.field, err, want)
		}
	}
}
