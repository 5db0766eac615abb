package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteNewFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "r.json")
	if err := WriteNewFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	err := WriteNewFile(path, []byte("two"))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second write: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("content %q, want the first write's", b)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only r.json (no temporary file left)", len(ents))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestNumberedPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		k    int
		want string
	}{
		{"out/a-20250101-000000.json", 1, "out/a-20250101-000000.json"},
		{"out/a-20250101-000000.json", 2, "out/a-20250101-000000-2.json"},
		{"a.b/r", 3, "a.b/r-3"},
		{"r.json", 0, "r.json"},
	} {
		if got := NumberedPath(tt.path, tt.k); got != tt.want {
			t.Errorf("NumberedPath(%q, %d) = %q, want %q", tt.path, tt.k, got, tt.want)
		}
	}
}
