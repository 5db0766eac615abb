// Package evidence checks, for tests, the evidence tables that account for
// each schema field: a field path mapped to where it takes effect and the
// tests that show it, naming files and Test or Fuzz functions that must
// exist.
package evidence

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// NoEffect starts the evidence of a field that is accepted for vLLM
// compatibility and has no effect by design; such evidence names no test.
const NoEffect = "accepted for vLLM compatibility, no effect by design"

// evidenceFile finds the files an evidence string names: "pkg/file.go"
// (under internal/), "testdata/script/x.txtar" or a bare "x.txtar" (a
// script), or a bare "file.go" (the calling test's package);
// evidenceFunc finds the Test and Fuzz functions it names.
var (
	evidenceFile = regexp.MustCompile(`(?:\b[a-z_]+/)*[a-zA-Z0-9_]+\.(?:go|txtar)\b`)
	evidenceFunc = regexp.MustCompile(`\b(?:Test|Fuzz)[A-Za-z0-9_]+`)
)

// Check checks that every field is one of the schema's leaves, that its
// evidence names files that exist, that every Test or Fuzz function it
// names is in one of them, and that no field is left without a test ("no
// test yet"). It runs in the directory of a package directly under
// internal/.
func Check(t testing.TB, fields map[string]string, leaves []string) {
	t.Helper()
	for path, evidence := range fields {
		if !slices.Contains(leaves, path) {
			t.Errorf("%s is listed, but it is not a schema field", path)
		}
		if strings.Contains(evidence, "no test yet") {
			t.Errorf("%s: implemented without a test (%s)", path, evidence)
		}
		if strings.HasPrefix(evidence, NoEffect) {
			continue
		}
		files := evidenceFile.FindAllString(evidence, -1)
		if len(files) == 0 {
			t.Errorf("%s: the evidence names no file: %s", path, evidence)
			continue
		}
		var texts []string
		for _, f := range files {
			var p string
			switch {
			case strings.HasPrefix(f, "testdata/"):
				p = filepath.Join("..", "..", f)
			case strings.HasSuffix(f, ".txtar"):
				p = filepath.Join("..", "..", "testdata", "script", f)
			case strings.Contains(f, "/"):
				p = filepath.Join("..", f)
			default:
				p = f
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Errorf("%s: the evidence names %s, which does not exist (%v)", path, f, err)
				continue
			}
			texts = append(texts, string(b))
		}
		for _, fn := range evidenceFunc.FindAllString(evidence, -1) {
			if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "func "+fn+"(") }) {
				t.Errorf("%s: the evidence names %s, which is in none of %v", path, fn, files)
			}
		}
	}
}
