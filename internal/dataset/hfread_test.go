package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/pierrec/lz4/v4"
)

// pqTurn and pqConvRow are a ShareGPT-like parquet schema with the
// shapes the decoder must handle: a list of structs, a list of strings,
// optional values, a map and integer columns.
type pqTurn struct {
	From  string `parquet:"from"`
	Value string `parquet:"value"`
}

type pqConvRow struct {
	ID            string           `parquet:"id"`
	Conversations []pqTurn         `parquet:"conversations,list"`
	Tags          []string         `parquet:"tags,list"`
	Score         int64            `parquet:"score"`
	Small         int32            `parquet:"small"`
	Ratio         float64          `parquet:"ratio"`
	OK            bool             `parquet:"ok"`
	Note          *string          `parquet:"note,optional"`
	Meta          map[string]int32 `parquet:"meta"`
}

// writeParquet writes rows to a parquet file at p, in row groups of
// groupRows rows, with the writer's options (snappy compression first).
func writeParquet[T any](t testing.TB, p string, rows []T, groupRows int, opts ...parquet.WriterOption) {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, append([]parquet.WriterOption{parquet.Compression(&parquet.Snappy)}, opts...)...)
	for start := 0; start < len(rows); start += groupRows {
		if _, err := w.Write(rows[start:min(start+groupRows, len(rows))]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func collectRows(t *testing.T, seq func(func(hfRow, error) bool)) ([]hfRow, error) {
	t.Helper()
	var rows []hfRow
	for r, err := range seq {
		if err != nil {
			return rows, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func TestParquetRows(t *testing.T) {
	note := "n"
	in := []pqConvRow{
		{ID: "a", Conversations: []pqTurn{{"human", "hi there"}, {"gpt", "hello"}}, Tags: []string{"x", "y"}, Score: 3, Small: -2, Ratio: 0.5, OK: true, Note: &note, Meta: map[string]int32{"k": 7}},
		{ID: "b", Conversations: []pqTurn{}, Tags: nil, Score: 1 << 40},
		{ID: "c", Conversations: []pqTurn{{"human", "only"}}, Tags: []string{""}, Meta: map[string]int32{}},
	}
	p := filepath.Join(t.TempDir(), "d.parquet")
	writeParquet(t, p, in, 2)
	got, err := collectRows(t, readParquetRows(context.Background(), "d.parquet", p))
	if err != nil {
		t.Fatal(err)
	}
	want := []hfRow{
		{"id": "a", "conversations": []any{map[string]any{"from": "human", "value": "hi there"}, map[string]any{"from": "gpt", "value": "hello"}},
			"tags": []any{"x", "y"}, "score": 3.0, "small": -2.0, "ratio": 0.5, "ok": true, "note": "n", "meta": map[string]any{"k": 7.0}},
		{"id": "b", "conversations": []any{}, "tags": []any{}, "score": float64(1 << 40), "small": 0.0, "ratio": 0.0, "ok": false, "note": nil, "meta": map[string]any{}},
		{"id": "c", "conversations": []any{map[string]any{"from": "human", "value": "only"}}, "tags": []any{""}, "score": 0.0, "small": 0.0, "ratio": 0.0, "ok": false, "note": nil, "meta": map[string]any{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
}

// pqDictRow has dictionary-encoded and optional list columns.
type pqDictRow struct {
	Lang  string   `parquet:"lang,dict"`
	Words []string `parquet:"words,list,optional"`
	N     *int64   `parquet:"n,optional"`
}

// TestParquetPageVersions reads data pages of both versions (pyarrow
// writes version 1 by default), compressed with gzip or zstd, with
// dictionary encoding and optional values.
func TestParquetPageVersions(t *testing.T) {
	n := int64(9)
	in := []pqDictRow{{Lang: "en", Words: []string{"a", "b"}, N: &n}, {Lang: "fr"}, {Lang: "en", Words: []string{}}}
	want := []hfRow{{"lang": "en", "words": []any{"a", "b"}, "n": 9.0}, {"lang": "fr", "words": nil, "n": nil}, {"lang": "en", "words": []any{}, "n": nil}}
	for _, tc := range []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"v1 gzip", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.Compression(&parquet.Gzip)}},
		{"v2 zstd", []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Zstd)}},
	} {
		p := filepath.Join(t.TempDir(), "d.parquet")
		writeParquet(t, p, in, 2, tc.opts...)
		got, err := collectRows(t, readParquetRows(context.Background(), "d.parquet", p))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, %v\nwant %v", tc.name, got, err, want)
		}
	}
}

// TestParquetBadFiles: one line naming the file and what was expected.
func TestParquetBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, good, []pqConvRow{{ID: "a"}, {ID: "b"}}, 10)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"empty.parquet":     "",
		"text.parquet":      "this is not parquet at all, just text",
		"truncated.parquet": string(data[:len(data)/2]),
		"corrupt.parquet":   string(append(append([]byte{}, data[:8]...), append(bytes.Repeat([]byte{0xff}, len(data)-16), data[len(data)-8:]...)...)),
		// parquet-go panics reading this page (a slice bound out of range).
		"panics.parquet": string(data[:80]) + "\x00" + string(data[81:]),
	})
	for name, want := range map[string]string{
		"empty.parquet":     "empty.parquet: the file is empty; expected a parquet file",
		"text.parquet":      "text.parquet: not a readable parquet file",
		"truncated.parquet": "truncated.parquet: not a readable parquet file",
		"corrupt.parquet":   "corrupt.parquet: not a readable parquet file",
		"panics.parquet":    "panics.parquet: a corrupt parquet file: runtime error: slice bounds out of range",
	} {
		_, err := collectRows(t, readParquetRows(context.Background(), name, filepath.Join(dir, name)))
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want %q...", name, err, want)
		}
	}
}

func TestJSONRows(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{
		"list.json":     "[{\"a\": 1, \"b\": [\"x\"]},\n {\"a\": null}]",
		"strs.json":     `["one", "two"]`,
		"lines.jsonl":   "{\"a\": \"x\"}\n\n{\"a\": true}\n",
		"bom.jsonl":     "\xef\xbb\xbf{\"a\": 1}\n",
		"trunc.json":    "[{\"a\": 1},\n {\"a\": 2",
		"badline.jsonl": "{\"a\": 1}\n{\"a\": \n",
		"scalar.jsonl":  "{\"a\": 1}\n42\n",
		"mixed.json":    `[{"a": 1}, 3]`,
		"empty.jsonl":   "",
		"blank.jsonl":   "\n \n",
		"blank.json":    "\n\n  \n",
		"object.json":   "{\"data\": [\n{\"a\": 1}\n]}\n",
		"after.json":    `[{"a": 1}] x`,
	})
	ok := map[string][]hfRow{
		"list.json":   {{"a": 1.0, "b": []any{"x"}}, {"a": nil}},
		"strs.json":   {{"text": "one"}, {"text": "two"}},
		"lines.jsonl": {{"a": "x"}, {"a": true}},
		"bom.jsonl":   {{"a": 1.0}},
		// An empty JSON Lines shard has no rows, as the datasets library
		// reads it.
		"empty.jsonl": nil,
		"blank.jsonl": nil,
	}
	for name, want := range ok {
		got, err := collectRows(t, readJSONRows(context.Background(), name, filepath.Join(dir, name)))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
	bad := map[string]string{
		"trunc.json":    "trunc.json:2:9: row 1: truncated JSON: the file ends inside the list of rows",
		"badline.jsonl": "badline.jsonl:2: invalid JSON",
		"scalar.jsonl":  "scalar.jsonl:2: a JSON number, expected an object (one per line)",
		"mixed.json":    "mixed.json:1:12: row 1: expected an object, found a JSON number",
		"blank.json":    "blank.json: the file is empty; expected JSON rows",
		"object.json":   "object.json:1: invalid JSON",
		"after.json":    "after.json:1:12: unexpected data after the list of rows",
	}
	for name, want := range bad {
		_, err := collectRows(t, readJSONRows(context.Background(), name, filepath.Join(dir, name)))
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want %q...", name, err, want)
		}
	}
}

// Compressed JSON Lines files are read as the datasets library opens them
// (gzip, zstd, bzip2, lz4, by extension); xz is refused by name rather
// than read as invalid JSON.
func TestReadJSONRowsCompressed(t *testing.T) {
	const line = "{\"prompt\": \"a compressed row\"}\n"
	compress := map[string]func(w io.Writer) io.WriteCloser{
		"rows.jsonl.gz":  func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) },
		"rows.jsonl.zst": func(w io.Writer) io.WriteCloser { z, _ := zstd.NewWriter(w); return z },
		"rows.jsonl.lz4": func(w io.Writer) io.WriteCloser { return lz4.NewWriter(w) },
	}
	dir := t.TempDir()
	for name, newW := range compress {
		var b bytes.Buffer
		w := newW(&b)
		if _, err := io.WriteString(w, line); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// printf '{"prompt": "a bzip2 row"}\n' | bzip2 -9 | xxd -p (the
	// standard library has no bzip2 writer).
	bz2, _ := hex.DecodeString("425a6839314159265359ccbb677300000c59800010500010103022d49a20002281b4806f542869a600064ba88f6a57209430ef440be2ee48a70a1219976cee60")
	if err := os.WriteFile(filepath.Join(dir, "rows.jsonl.bz2"), bz2, 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rows.jsonl.gz": "a compressed row", "rows.jsonl.zst": "a compressed row", "rows.jsonl.lz4": "a compressed row", "rows.jsonl.bz2": "a bzip2 row"}
	for name, prompt := range want {
		got, err := collectRows(t, readJSONRows(context.Background(), name, filepath.Join(dir, name)))
		if err != nil || !reflect.DeepEqual(got, []hfRow{{"prompt": prompt}}) {
			t.Errorf("%s: %v, %v; want the row with %q", name, got, err, prompt)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.jsonl.xz"), []byte("\xfd7zXZ\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := collectRows(t, readJSONRows(context.Background(), "rows.jsonl.xz", filepath.Join(dir, "rows.jsonl.xz")))
	if err == nil || !strings.Contains(err.Error(), "rows.jsonl.xz: xz-compressed, which vbench does not read") {
		t.Errorf("xz: err = %v, want a refusal naming the compression", err)
	}
}
