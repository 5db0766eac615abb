package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFile(t *testing.T) {
	old := syscall.Umask(0o077) // the umask must not apply
	defer syscall.Umask(old)
	tests := []struct {
		name     string
		existing []byte // nil: no file yet
		perm     fs.FileMode
		data     string
	}{
		{"new file", nil, 0o644, "hello\n"},
		{"replace keeps nothing old", []byte("old content that is longer"), 0o600, "new"},
		{"empty content", []byte("x"), 0o640, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.json")
			if tt.existing != nil {
				if err := os.WriteFile(path, tt.existing, 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte(tt.data), tt.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != tt.data {
				t.Errorf("content = %q, %v; want %q", got, err, tt.data)
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != tt.perm {
				t.Errorf("mode = %v, %v; want %v", st.Mode().Perm(), err, tt.perm)
			}
			assertOnly(t, dir, "out.json")
		})
	}
}

func TestCleanupWithoutCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "blob")
	if err := os.WriteFile(path, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("partial download")); err != nil {
		t.Fatal(err)
	}
	if err := f.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "keep" {
		t.Errorf("destination = %q, want it untouched", got)
	}
	assertOnly(t, dir, "blob")
	// After a Commit, Cleanup does nothing.
	f, err = Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("done"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "done" {
		t.Errorf("destination = %q, want the committed content", got)
	}
	assertOnly(t, dir, "blob")
}

func TestMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "no", "such", "f"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	assertOnly(t, dir)
}

// assertOnly checks that dir holds exactly names: no temporary file is
// left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("directory holds %v, want %v", got, names)
	}
	for i := range got {
		if got[i] != names[i] {
			t.Fatalf("directory holds %v, want %v", got, names)
		}
	}
}
