package report

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestResultFileName(t *testing.T) {
	eight := 8
	base := FileNameInput{Backend: "openai", RequestRate: math.Inf(1), ModelID: "meta-llama/Llama-3.1-8B", Date: "20260102-030405"}
	tests := []struct {
		name string
		mod  func(*FileNameInput)
		want string
	}{
		{"inf rate", func(*FileNameInput) {}, "openai-infqps-Llama-3.1-8B-20260102-030405.json"},
		{"integral rate", func(in *FileNameInput) { in.RequestRate = 10 }, "openai-10.0qps-Llama-3.1-8B-20260102-030405.json"},
		{"fractional rate", func(in *FileNameInput) { in.RequestRate = 0.5 }, "openai-0.5qps-Llama-3.1-8B-20260102-030405.json"},
		{"tiny rate", func(in *FileNameInput) { in.RequestRate = 1e-05 }, "openai-1e-05qps-Llama-3.1-8B-20260102-030405.json"},
		{"concurrency", func(in *FileNameInput) { in.MaxConcurrency = &eight }, "openai-infqps-concurrency8-Llama-3.1-8B-20260102-030405.json"},
		{"label", func(in *FileNameInput) { in.Label = "exp1" }, "exp1-infqps-Llama-3.1-8B-20260102-030405.json"},
		{"model without org", func(in *FileNameInput) { in.ModelID = "stories260K" }, "openai-infqps-stories260K-20260102-030405.json"},
		{"ramp-up", func(in *FileNameInput) {
			in.RampUp = &RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 20}
			in.MaxConcurrency = &eight
		}, "openai-ramp-up-linear-1qps-20qps-concurrency8-Llama-3.1-8B-20260102-030405.json"},
		{"result filename", func(in *FileNameInput) { in.ResultFilename = "x.json" }, "x.json"},
		{"result dir", func(in *FileNameInput) { in.ResultDir = "out" }, "out/openai-infqps-Llama-3.1-8B-20260102-030405.json"},
		{"dir and filename", func(in *FileNameInput) { in.ResultDir = "out/"; in.ResultFilename = "x.json" }, "out/x.json"},
		{"absolute filename wins", func(in *FileNameInput) { in.ResultDir = "out"; in.ResultFilename = "/tmp/x.json" }, "/tmp/x.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base
			tt.mod(&in)
			if got := ResultFileName(in); got != tt.want {
				t.Errorf("ResultFileName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteResultFile(t *testing.T) {
	tests := []struct {
		name     string
		existing *string
		append   bool
		data     string
		want     string
	}{
		{"new file", nil, false, `{"a": 1}`, `{"a": 1}`},
		{"overwrite", ptr(`{"old": 0}`), false, `{"a": 1}`, `{"a": 1}`},
		{"append to missing", nil, true, `{"a": 1}`, `{"a": 1}`},
		{"append to empty", ptr(""), true, `{"a": 1}`, `{"a": 1}`},
		{"append to non-empty", ptr(`{"old": 0}`), true, `{"a": 1}`, "{\"old\": 0}\n{\"a\": 1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "nested", "result.json")
			if tt.existing != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(*tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteResultFile(path, []byte(tt.data), tt.append); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			wantPerm := os.FileMode(0o644)
			if tt.existing != nil {
				wantPerm = 0o600
			}
			if st.Mode().Perm() != wantPerm {
				t.Errorf("mode = %v, want %v", st.Mode().Perm(), wantPerm)
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the result (temp file left behind?)", len(entries))
			}
		})
	}
}

func TestWriteResultFileAppendTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	for _, doc := range []string{`{"n": 1}`, `{"n": 2}`, `{"n": 3}`} {
		if err := WriteResultFile(path, []byte(doc), true); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	if want := "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}"; string(got) != want {
		t.Errorf("file = %q, want %q", got, want)
	}
}

func TestWriteResultFileErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A regular file where the directory should be.
	if err := WriteResultFile(filepath.Join(blocker, "r.json"), []byte("{}"), false); err == nil {
		t.Error("writing under a regular file succeeded")
	}
	// A directory where the result file should be.
	if err := WriteResultFile(dir, []byte("{}"), true); err == nil {
		t.Error("appending to a directory succeeded")
	}
}

func ptr[T any](v T) *T { return &v }
