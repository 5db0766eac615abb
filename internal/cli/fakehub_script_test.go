package cli_test

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/hub/hubtest"
)

// scriptCleaner runs a fake hub's cleanup when the script ends.
type scriptCleaner struct{ ts *testscript.TestScript }

func (c scriptCleaner) Cleanup(f func()) { c.ts.Defer(f) }

// fakehub REPO NAME=FILE... starts a loopback fake Hugging Face Hub
// (internal/hub/hubtest) serving the script's files under REPO ("org/name",
// or "datasets/org/name" for a dataset) on main, and points the script's
// HF_ENDPOINT at it with HF_HUB_OFFLINE unset.
func fakehub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fakehub REPO NAME=FILE...")
	}
	files := map[string]string{}
	for _, a := range args[1:] {
		name, file, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("fakehub: %q: want NAME=FILE", a)
		}
		b, err := os.ReadFile(ts.MkAbs(file))
		ts.Check(err)
		files[name] = string(b)
	}
	h := hubtest.New(scriptCleaner{ts})
	h.Add(args[0], "main", files)
	ts.Setenv("HF_ENDPOINT", h.URL())
	ts.Setenv("HF_HUB_OFFLINE", "")
}
