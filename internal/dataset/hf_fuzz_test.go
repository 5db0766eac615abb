package dataset

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzHFReaders feeds arbitrary bytes to the parquet and JSON readers:
// they return rows or a one-line error naming the file, never panic; the
// parallel parquet reader yields exactly what a single worker yields, and
// the JSON reader exactly the rows encoding/json reads (refJSONRows), or
// fails where it fails.
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
	f.Add([]byte("\xef\xbb\xbf [\"a\", \"b\"]"))
	f.Add([]byte("\xef\xbb\xbf{\"a\": 1e400}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "x") // a fuzz worker runs one input at a time
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		collect := func(name string, rows iter.Seq2[hfRow, error]) ([]hfRow, error) {
			var got []hfRow
			for row, err := range rows {
				if err != nil {
					if !strings.HasPrefix(err.Error(), name) || strings.Contains(err.Error(), "\n") {
						t.Errorf("%s: error %q does not name the file on one line", name, err)
					}
					return got, err
				}
				got = append(got, row)
			}
			return got, nil
		}
		// Parquet: the parallel reader yields what one worker does.
		ctx := context.Background()
		rows, err := collect("x.parquet", readParquetRows(ctx, "x.parquet", p))
		one, oneErr := collect("x.parquet", readParquetRowsN(ctx, "x.parquet", p, 1))
		if (err == nil) != (oneErr == nil) || !reflect.DeepEqual(rows, one) {
			t.Fatalf("parquet: %d rows (%v) with 4 workers, %d (%v) with one", len(rows), err, len(one), oneErr)
		}
		// JSON: the rows encoding/json reads (refJSONRows), or an error.
		rows, err = collect("x.jsonl", readJSONRows(ctx, "x.jsonl", p))
		want, ok := refJSONRows(b)
		switch {
		case ok && err != nil:
			t.Fatalf("%q: error %v; the reference reads %d rows", b, err, len(want))
		case ok && (len(rows) != len(want) || len(rows) > 0 && !reflect.DeepEqual(rows, want)):
			t.Fatalf("%q: rows %v, the reference %v", b, rows, want)
		case !ok && err == nil:
			t.Fatalf("%q: rows %v; the reference fails", b, rows)
		}
	})
}
