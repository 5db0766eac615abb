package dataset

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzHFReaders feeds arbitrary bytes to the parquet and JSON readers:
// they return rows or a one-line error naming the file, never panic.
func FuzzHFReaders(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "seed.parquet")
	writeParquet(f, good, convRows(5), 2)
	data, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-3])
	f.Add([]byte(`[{"a": 1}, {"b": [1, {"c": null}]}]`))
	f.Add([]byte("{\"a\": \"x\"}\n{\"a\": 2}\n"))
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "x")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, read := range map[string]func(context.Context, string, string) iter.Seq2[hfRow, error]{
			"x.parquet": readParquetRows, "x.jsonl": readJSONRows,
		} {
			for _, err := range read(context.Background(), name, p) {
				if err != nil {
					if !strings.HasPrefix(err.Error(), name) || strings.Contains(err.Error(), "\n") {
						t.Errorf("%s: error %q does not name the file on one line", name, err)
					}
					break
				}
			}
		}
	})
}
