package cli_test

import (
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/report"
)

func init() { scriptCmds["jsonkeys"] = jsonkeys }

// jsonkeys FILE WANT checks that the JSON object in FILE has exactly the
// top-level keys listed in the file WANT (one per line; blank lines and
// lines starting with # skipped), in that order. A key ending in "*"
// stands for one or more consecutive keys with that prefix (the
// statistics of a metric, whose percentiles vary).
func jsonkeys(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonkeys FILE WANT")
	}
	got, err := report.TopKeys([]byte(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	var want []string
	for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	i := 0
	for _, w := range want {
		prefix, glob := strings.CutSuffix(w, "*")
		switch {
		case i >= len(got):
			ts.Fatalf("%s: keys end after %q, want %q next\nkeys: %q", args[0], got[len(got)-1], w, got)
		case glob && strings.HasPrefix(got[i], prefix):
			for i < len(got) && strings.HasPrefix(got[i], prefix) {
				i++
			}
		case got[i] == w:
			i++
		default:
			ts.Fatalf("%s: key %d is %q, want %q\nkeys: %q", args[0], i, got[i], w, got)
		}
	}
	if i < len(got) {
		ts.Fatalf("%s: unexpected keys after the last wanted one: %q", args[0], got[i:])
	}
	fmt.Fprintf(ts.Stdout(), "%d keys\n", len(got))
}
