package schema_test

import (
	"bytes"
	"io/fs"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"

	"github.com/vbench/vbench/schema"
)

// TestVersion checks that the Go constant repeats the version the CUE
// declares.
func TestVersion(t *testing.T) {
	data, err := fs.ReadFile(schema.FS, "scenario.cue")
	if err != nil {
		t.Fatal(err)
	}
	v := cuecontext.New().CompileBytes(data, cue.Filename("scenario.cue"))
	if err := v.Err(); err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	got, err := v.LookupPath(cue.MakePath(cue.Def("#Version"))).String()
	if err != nil {
		t.Fatalf("#Version: %v", err)
	}
	if got != schema.Version {
		t.Errorf("#Version = %q, Version = %q", got, schema.Version)
	}
	field, err := v.LookupPath(cue.ParsePath("#Scenario.schema")).String()
	if err != nil {
		t.Fatalf("#Scenario.schema: %v", err)
	}
	if field != schema.Version {
		t.Errorf("#Scenario.schema = %q, want %q", field, schema.Version)
	}
}

// TestFormatted checks that every embedded file is formatted as `cue fmt`
// would.
func TestFormatted(t *testing.T) {
	files, err := fs.Glob(schema.FS, "*.cue")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no embedded .cue files")
	}
	for _, name := range files {
		data, err := fs.ReadFile(schema.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		formatted, err := format.Source(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(formatted, data) {
			t.Errorf("%s is not formatted; run cue fmt (or format.Source) on it", name)
		}
	}
}
