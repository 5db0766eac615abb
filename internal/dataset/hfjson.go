package dataset

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// readJSONRows yields the rows of the JSON or JSON Lines file at p (named
// name in errors) as the datasets library's json builder reads them: a
// file starting with '[' is a list of objects (or of strings, each then a
// row {"text": s}); any other is JSON Lines, one object per line (blank
// lines skipped). A ".gz", ".zst", ".bz2" or ".lz4" file is decompressed. JSON Lines are read
// lazily; a list is read whole, as the library does.
func readJSONRows(ctx context.Context, name, p string) iter.Seq2[hfRow, error] {
	return func(yield func(hfRow, error) bool) {
		f, err := os.Open(p)
		if err != nil {
			yield(nil, err)
			return
		}
		defer f.Close()
		r, closeR, err := decompressed(name, p, f)
		if err != nil {
			yield(nil, err)
			return
		}
		defer closeR()
		if r != io.Reader(f) {
			// A truncated or corrupt compressed file would otherwise show
			// as invalid JSON at its last line, or as the decompressor's
			// bare error: say what it is.
			cr := &readErrReader{r: r}
			r = cr
			inner := yield
			yield = func(row hfRow, err error) bool {
				if err != nil && cr.err != nil {
					c := compressionOf(name, p)
					err = fmt.Errorf("%s: truncated or corrupt %s data (%v): expected a whole %s-compressed file, as its extension says", name, c, cr.err, c)
				}
				return inner(row, err)
			}
		}
		br := bufio.NewReaderSize(r, 1<<20)
		head, _ := br.Peek(512)
		head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
		trimmed := bytes.TrimLeft(head, " \t\r\n")
		switch {
		case len(trimmed) > 0 && trimmed[0] == '[':
			data, err := io.ReadAll(br)
			if err != nil {
				yield(nil, fmt.Errorf("%s: %v", name, err))
				return
			}
			jsonListRows(ctx, name, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), yield)
		default:
			jsonLinesRows(ctx, name, br, yield)
		}
	}
}

// decompressed is f's content, decompressed as the extension of its name
// (p, or name when p is a blob without one) says: gzip, zstd, bzip2 or
// lz4, as the datasets library opens them; any other file as it is. A
// compression vbench does not read (xz) is an error saying so, rather
// than invalid JSON.
func decompressed(name, p string, f io.Reader) (io.Reader, func(), error) {
	compressions := []string{".gz", ".zst", ".bz2", ".lz4", ".xz"}
	ext := path.Ext(p)
	if !slices.Contains(compressions, ext) {
		ext = path.Ext(name)
	}
	switch ext {
	case ".gz":
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not a gzip file: %v", name, err)
		}
		return zr, func() { _ = zr.Close() }, nil
	case ".zst":
		zr, err := zstd.NewReader(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not a zstd file: %v", name, err)
		}
		return zr, zr.Close, nil
	case ".bz2":
		return bzip2.NewReader(f), func() {}, nil
	case ".lz4":
		return lz4.NewReader(f), func() {}, nil
	case ".xz":
		return nil, nil, fmt.Errorf("%s: xz-compressed, which vbench does not read: decompress it (xz -d) and point --dataset-path at the directory", name)
	}
	return f, func() {}, nil
}

// readErrReader is a reader that keeps its first error other than io.EOF.
type readErrReader struct {
	r   io.Reader
	err error
}

func (e *readErrReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// compressionOf names the compression decompressed reads a file with.
func compressionOf(name, p string) string {
	ext := path.Ext(p)
	if _, ok := compressionNames[ext]; !ok {
		ext = path.Ext(name)
	}
	return compressionNames[ext]
}

// compressionNames names the compressions by file extension.
var compressionNames = map[string]string{".gz": "gzip", ".zst": "zstd", ".bz2": "bzip2", ".lz4": "lz4", ".xz": "xz"}

// jsonListRows yields the elements of a JSON list.
func jsonListRows(ctx context.Context, name string, data []byte, yield func(hfRow, error) bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '['
		yield(nil, fmt.Errorf("%s:%s: invalid JSON: %v", name, lineCol(data, dec.InputOffset()), err))
		return
	}
	strs := false
	for n := 0; dec.More(); n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			yield(nil, ctx.Err())
			return
		}
		start := entryStart(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			yield(nil, jsonListError(name, data, n, start, err))
			return
		}
		var row hfRow
		switch {
		case raw[0] == '{':
			if strs {
				yield(nil, fmt.Errorf("%s:%s: row %d: expected a string, as the rows before it, found an object", name, lineCol(data, start), n))
				return
			}
			if err := json.Unmarshal(raw, &row); err != nil {
				yield(nil, fmt.Errorf("%s:%s: row %d: %v", name, lineCol(data, start), n, err))
				return
			}
		case raw[0] == '"' && (n == 0 || strs):
			strs = true
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				yield(nil, fmt.Errorf("%s:%s: row %d: %v", name, lineCol(data, start), n, err))
				return
			}
			row = hfRow{"text": s}
		default:
			yield(nil, fmt.Errorf("%s:%s: row %d: expected an object, found a JSON %s", name, lineCol(data, start), n, jsonKind(raw)))
			return
		}
		if !yield(row, nil) {
			return
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		yield(nil, jsonListError(name, data, -1, dec.InputOffset(), err))
		return
	}
	if off := skipJSONSpace(data, int(dec.InputOffset())); off < len(data) {
		yield(nil, fmt.Errorf("%s:%s: unexpected data after the list of rows", name, lineCol(data, int64(off))))
	}
}

// jsonListError words a decoding error in a JSON list of rows.
func jsonListError(name string, data []byte, n int, start int64, err error) error {
	where := ""
	if n >= 0 {
		where = fmt.Sprintf(" row %d:", n)
	}
	if e, ok := jsonSyntaxError(name, data, where, "rows", start, err); ok {
		return e
	}
	return fmt.Errorf("%s:%s:%s %v", name, lineCol(data, start), where, err)
}

// jsonSyntaxError words a truncated file (at its end) or a syntax error
// (at its byte) in a JSON list of things as one line; ok is false for
// another error. where names the element (" row 3:"), start its offset.
func jsonSyntaxError(name string, data []byte, where, things string, start int64, err error) (_ error, ok bool) {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%s:%s:%s truncated JSON: the file ends inside the list of %s", name, lineCol(data, int64(len(data))), where, things), true
	case errors.As(err, &syn):
		// A Decoder's offsets are not the file's: find the bad byte by
		// decoding the whole file (on this error path only).
		pos := start
		var v any
		var whole *json.SyntaxError
		if errors.As(json.Unmarshal(data, &v), &whole) {
			pos = whole.Offset - 1
		}
		return fmt.Errorf("%s:%s:%s invalid JSON: %v", name, lineCol(data, pos), where, err), true
	}
	return nil, false
}

// jsonLinesRows yields the objects of a JSON Lines file.
func jsonLinesRows(ctx context.Context, name string, r *bufio.Reader, yield func(hfRow, error) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	rows := 0
	for line := 1; sc.Scan(); line++ {
		if line%1024 == 0 && ctx.Err() != nil {
			yield(nil, ctx.Err())
			return
		}
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(b) == 0 {
			continue
		}
		if b[0] != '{' {
			if !json.Valid(b) {
				yield(nil, fmt.Errorf("%s:%d: %w", name, line, invalidJSON(b)))
				return
			}
			yield(nil, fmt.Errorf("%s:%d: a JSON %s, expected an object (one per line)", name, line, jsonKind(b)))
			return
		}
		var row hfRow
		if err := json.Unmarshal(b, &row); err != nil {
			yield(nil, fmt.Errorf("%s:%d: %w", name, line, invalidJSON(b)))
			return
		}
		rows++
		if !yield(row, nil) {
			return
		}
	}
	if err := sc.Err(); err != nil {
		yield(nil, fmt.Errorf("%s: %v", name, err))
		return
	}
	if rows == 0 && !isJSONLinesName(name) {
		// A .jsonl file without rows has none, as the datasets library
		// reads it (a split may hold an empty shard); a .json file must
		// hold a list or objects.
		yield(nil, fmt.Errorf("%s: the file is empty; expected JSON rows (a list of objects, or one object per line)", name))
	}
}

// isJSONLinesName reports whether a file name says JSON Lines (.jsonl,
// possibly compressed).
func isJSONLinesName(name string) bool {
	for _, ext := range []string{".gz", ".zst", ".bz2", ".lz4", ".xz"} {
		name = strings.TrimSuffix(name, ext)
	}
	return strings.HasSuffix(strings.ToLower(name), ".jsonl")
}
