package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/scenario"
)

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
	if err := checkPlanOutput(plan, false); !errors.Is(err, pipeline.ErrOutput) || !strings.Contains(err.Error(), "b.json already exists") {
		t.Fatalf("existing result: %v", err)
	}
	if err := checkPlanOutput(plan, true); err != nil {
		t.Fatalf("resume or overwrite: %v", err)
	}
	// An interrupted earlier run leaves only its streamed records.
	if err := os.Remove(filepath.Join(dir, "b.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.records.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkPlanOutput(plan, false); !errors.Is(err, pipeline.ErrOutput) || !strings.Contains(err.Error(), "a.records.jsonl already exists") {
		t.Fatalf("existing records: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "a.records.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan.Runs[1] = mk("b.json", true)
	if err := checkPlanOutput(plan, false); err != nil {
		t.Fatalf("output.overwrite: %v", err)
	}
}
