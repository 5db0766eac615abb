package argv

import (
	"testing"

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
