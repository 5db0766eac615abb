package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// claimFiles, with fresh, takes the first name whose result and records
// files are both free, creates the records file there and says so when it
// is not the first; without fresh it keeps the name and replaces the
// records file.
func TestClaimFilesFreshName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	sc := scenario.Default()
	files := runFiles{result: path, records: recordsPath(path)}
	var said []string
	say := func(s string) { said = append(said, s) }

	got, sink, err := claimFiles(sc, files, true, say)
	if err != nil || got.result != path || got.records != filepath.Join(dir, "r.records.jsonl") || sink == nil || len(said) != 0 {
		t.Fatalf("first: %+v %v, said %q", got, err, said)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	// The first records file exists now, and only the records of the -2
	// name: the next run takes -3.
	if err := os.WriteFile(filepath.Join(dir, "r-2.records.jsonl"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, sink, err = claimFiles(sc, files, true, say)
	if err != nil || got.result != filepath.Join(dir, "r-3.json") || got.records != filepath.Join(dir, "r-3.records.jsonl") {
		t.Fatalf("second: %+v %v", got, err)
	}
	sink.Close()
	if len(said) != 1 || !strings.Contains(said[0], path+" already exists: vbench does not overwrite results, so this one is written to "+got.result) {
		t.Errorf("said %q", said)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "r-2.records.jsonl")); string(b) != "keep" {
		t.Errorf("r-2.records.jsonl was replaced")
	}

	// Not fresh (output.overwrite, or an experiment's planned name): the
	// name stays and its records file is replaced.
	if err := os.WriteFile(files.records, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, sink, err = claimFiles(sc, files, false, say)
	if err != nil || got != files || sink == nil {
		t.Fatalf("not fresh: %+v %v", got, err)
	}
	sink.Close()
	if b, _ := os.ReadFile(files.records); string(b) == "old" {
		t.Errorf("records file not replaced")
	}
	// Nothing saved: nothing claimed.
	if got, sink, err := claimFiles(sc, runFiles{}, true, say); err != nil || sink != nil || got.result != "" {
		t.Errorf("nothing saved: %+v %v %v", got, sink, err)
	}
}

// writeResult, with fresh, never replaces a result that appeared during the
// run: it takes the next free name and says so; without fresh it replaces.
func TestWriteResultFresh(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	var said []string
	say := func(s string) { said = append(said, s) }
	if got, err := writeResult(runFiles{result: path}, []byte("one"), true, false, say); err != nil || got != path || len(said) != 0 {
		t.Fatalf("first: %q %v %q", got, err, said)
	}
	got, err := writeResult(runFiles{result: path}, []byte("two"), true, false, say)
	if err != nil || got != filepath.Join(dir, "r-2.json") || len(said) != 1 || !strings.Contains(said[0], "was created during the run") {
		t.Fatalf("second: %q %v %q", got, err, said)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("first result replaced: %q", b)
	}
	if got, err := writeResult(runFiles{result: path}, []byte("new"), false, false, say); err != nil || got != path {
		t.Fatalf("explicit: %q %v", got, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("explicit name not replaced: %q", b)
	}
}

func TestNotSentText(t *testing.T) {
	for _, tt := range []struct {
		notSent, planned int
		want             string
	}{
		{0, 20, ""},
		{18, 20, "Requests not sent: 18 of 20 (the run was interrupted first; they are not counted as failed)\n"},
	} {
		if got := notSentText(tt.notSent, tt.planned); got != tt.want {
			t.Errorf("notSentText(%d, %d) = %q, want %q", tt.notSent, tt.planned, got, tt.want)
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

// With output.append_result each run's records go to a file of their own:
// the records an earlier appended result names are never truncated.
func TestClaimFilesAppendKeepsRecords(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	sc := scenario.Default()
	sc.Output.AppendResult = true
	files := runFiles{result: path, records: recordsPath(path)}
	if err := os.WriteFile(files.records, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, sink, err := claimFiles(sc, files, false, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	sink.Close()
	if got.result != path || got.records != filepath.Join(dir, "r-2.records.jsonl") {
		t.Errorf("claimed %+v, want the result appended to r.json and records in r-2.records.jsonl", got)
	}
	if b, _ := os.ReadFile(files.records); string(b) != "earlier\n" {
		t.Errorf("the earlier records were changed: %q", b)
	}
}
