package experiment

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	existing := filepath.Join(dir, "have.json")
	for _, p := range []string{file, existing} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		out     scenario.Output
		planned bool
		wantErr string // "" = ok
	}{
		{"nothing saved", scenario.Output{ResultDir: filepath.Join(file, "sub")}, false, ""},
		{"dir under a file", scenario.Output{SaveResult: true, ResultDir: filepath.Join(file, "sub")}, false, "results cannot be written to " + filepath.Join(file, "sub")},
		{"append under a file", scenario.Output{AppendResult: true, ResultDir: file}, false, "results cannot be written to " + file},
		{"filename with a dir under a file", scenario.Output{SaveResult: true, ResultDir: dir, ResultFilename: "file/r.json"}, false, "results cannot be written to " + file},
		{"new dir", scenario.Output{SaveResult: true, ResultDir: filepath.Join(dir, "new", "d")}, false, ""},
		{"explicit name exists", scenario.Output{SaveResult: true, ResultDir: dir, ResultFilename: "have.json"}, false, "result file " + existing + " (--result-filename, output.result_filename) already exists"},
		{"absolute name exists", scenario.Output{SaveResult: true, ResultFilename: existing}, false, "result file " + existing + " (--result-filename, output.result_filename) already exists"},
		{"exists, overwrite", scenario.Output{SaveResult: true, ResultDir: dir, ResultFilename: "have.json", Overwrite: true}, false, ""},
		{"exists, append", scenario.Output{SaveResult: true, AppendResult: true, ResultDir: dir, ResultFilename: "have.json"}, false, ""},
		{"exists, planned by an experiment", scenario.Output{SaveResult: true, ResultDir: dir, ResultFilename: "have.json"}, true, ""},
		{"explicit name is new", scenario.Output{SaveResult: true, ResultDir: dir, ResultFilename: "new.json"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := &scenario.Scenario{Output: tt.out}
			err := checkOutput(sc, tt.planned)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrOutput)):
				t.Fatalf("error %v, want one containing %q and matching ErrOutput", err, tt.wantErr)
			}
		})
	}
	// Only what was there, and the directory made: no probe file left.
	var names []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "file have.json new" {
		t.Errorf("directory holds %v, want file have.json new", names)
	}
}

func TestCheckPlanOutput(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, overwrite bool) PlannedRun {
		sc := &scenario.Scenario{Output: scenario.Output{SaveResult: true, Overwrite: overwrite}}
		return PlannedRun{Scenario: sc, Path: filepath.Join(dir, name)}
	}
	plan := &Plan{Dir: dir, Runs: []PlannedRun{mk("a.json", false), mk("b.json", false)}}
	if err := checkPlanOutput(plan, false); err != nil {
		t.Fatalf("fresh directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkPlanOutput(plan, false); !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), "b.json already exists") {
		t.Fatalf("existing result: %v", err)
	}
	if err := checkPlanOutput(plan, true); err != nil {
		t.Fatalf("resume or overwrite: %v", err)
	}
	plan.Runs[1] = mk("b.json", true)
	if err := checkPlanOutput(plan, false); err != nil {
		t.Fatalf("output.overwrite: %v", err)
	}
}

func TestWriteResultFilesFreshName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	var stderr bytes.Buffer
	build := func(recs string) ([]byte, error) { return []byte(`{"records": "` + recs + `"}`), nil }
	recs := []*record.Record{{Index: 0, Success: true}}
	spec := resultWrite{Path: path, Fresh: true, Records: recs, Stderr: &stderr}
	got1, r1, err := writeResultFiles(spec, build)
	if err != nil || got1 != path || r1 != filepath.Join(dir, "r.records.jsonl") || stderr.Len() != 0 {
		t.Fatalf("first: %q %q %v, stderr %q", got1, r1, err, stderr.String())
	}
	// Only the records of the -2 name exist: the result goes to -3.
	if err := os.WriteFile(filepath.Join(dir, "r-2.records.jsonl"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	got2, r2, err := writeResultFiles(spec, build)
	if err != nil || got2 != filepath.Join(dir, "r-3.json") || r2 != filepath.Join(dir, "r-3.records.jsonl") {
		t.Fatalf("second: %q %q %v", got2, r2, err)
	}
	if !strings.Contains(stderr.String(), path+" already exists: vbench does not overwrite results, so this one is written to "+got2) {
		t.Errorf("stderr %q", stderr.String())
	}
	if b, _ := os.ReadFile(got2); string(b) != `{"records": "r-3.records.jsonl"}` {
		t.Errorf("result %s names the records %q", got2, b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "r-2.records.jsonl")); string(b) != "keep" {
		t.Errorf("r-2.records.jsonl was replaced")
	}
	if _, err := os.Stat(filepath.Join(dir, "r-2.json")); err == nil {
		t.Errorf("r-2.json written although its records name was taken")
	}

	// Not fresh (an explicit name, checked before the run): replaced.
	spec.Fresh = false
	got3, _, err := writeResultFiles(spec, func(string) ([]byte, error) { return []byte("new"), nil })
	if err != nil || got3 != path {
		t.Fatalf("explicit: %q %v", got3, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("explicit name not replaced: %q", b)
	}
}

func TestWriteNotSent(t *testing.T) {
	for _, tt := range []struct {
		notSent, planned int
		want             string
	}{
		{0, 20, ""},
		{18, 20, "Requests not sent: 18 of 20 (the run was interrupted first; they are not counted as failed)\n"},
	} {
		var b bytes.Buffer
		writeNotSent(&b, tt.notSent, tt.planned)
		if b.String() != tt.want {
			t.Errorf("writeNotSent(%d, %d) = %q, want %q", tt.notSent, tt.planned, b.String(), tt.want)
		}
	}
}

// output.overwrite is a scenario field; false leaves the hash of every
// existing scenario as it was (it is omitted from the canonical form).
func TestOverwriteField(t *testing.T) {
	load := func(src string) *scenario.Scenario {
		t.Helper()
		sc, err := scenario.LoadBytes("s.cue", []byte(src), scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	def, off, on := load(""), load("output: overwrite: false\n"), load("output: overwrite: true\n")
	if !on.Output.Overwrite || off.Output.Overwrite {
		t.Fatalf("overwrite: true → %v, false → %v", on.Output.Overwrite, off.Output.Overwrite)
	}
	if off.Hash() != def.Hash() || on.Hash() == def.Hash() {
		t.Errorf("hashes: default %s, false %s, true %s", def.Hash(), off.Hash(), on.Hash())
	}
	if strings.Contains(string(def.Canonical()), "overwrite") {
		t.Errorf("canonical form of the default names overwrite: %s", def.Canonical())
	}
}
