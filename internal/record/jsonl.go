package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// WriteJSONL writes recs as JSON Lines: one record object per line, each
// line ending in "\n", fields as in Record's json tags (times in integer
// nanoseconds).
func WriteJSONL(w io.Writer, recs []*Record) error {
	jw := NewJSONLWriter(w)
	for _, r := range recs {
		if err := jw.Write(r); err != nil {
			return err
		}
	}
	return jw.Flush()
}

// JSONLWriter streams records as JSON Lines. It buffers its output: call
// Flush when done (and whenever the lines written so far must reach the
// underlying writer). It is safe for concurrent use; records are written in
// the order Write is called.
type JSONLWriter struct {
	mu  sync.Mutex
	bw  *bufio.Writer
	enc *json.Encoder
	n   int
	err error
}

// NewJSONLWriter returns a JSONLWriter writing to w.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONLWriter{bw: bw, enc: enc}
}

// Write appends one record line. After a failed write every later call
// returns the same error.
func (jw *JSONLWriter) Write(r *Record) error {
	jw.mu.Lock()
	defer jw.mu.Unlock()
	if jw.err != nil {
		return jw.err
	}
	if r == nil {
		jw.err = fmt.Errorf("write record %d: nil record", jw.n)
		return jw.err
	}
	if err := jw.enc.Encode(r); err != nil {
		jw.err = fmt.Errorf("write record %d: %w", jw.n, err)
		return jw.err
	}
	jw.n++
	return nil
}

// Flush writes any buffered lines to the underlying writer.
func (jw *JSONLWriter) Flush() error {
	jw.mu.Lock()
	defer jw.mu.Unlock()
	if jw.err != nil {
		return jw.err
	}
	if err := jw.bw.Flush(); err != nil {
		jw.err = fmt.Errorf("flush records: %w", err)
	}
	return jw.err
}

// Count is the number of records written so far.
func (jw *JSONLWriter) Count() int {
	jw.mu.Lock()
	defer jw.mu.Unlock()
	return jw.n
}

// ReadJSONL reads records written by WriteJSONL, JSONLWriter or FileSink.
// A header line (see Header) first in the file is skipped, and so are the
// server-sample lines (see FileSink.ServerSample) and the run-end line
// (FileSink.End; ReadFile returns them).
// Blank lines are skipped; every other line must hold exactly one JSON object. Unknown
// fields are ignored, so files from newer versions still read. Errors name
// the line.
func ReadJSONL(r io.Reader) ([]*Record, error) {
	f, err := readJSONL(r, false)
	return f.Records, err
}

// readJSONL reads a records file. With lenient, an unterminated last line
// that ends in the middle of a JSON value (the writer was killed while
// writing it) is left out and reported as File.Truncated instead of being
// an error.
func readJSONL(r io.Reader, lenient bool) (*File, error) {
	br := bufio.NewReader(r)
	f := &File{}
	first := true
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return f, fmt.Errorf("read records: line %d: %w", line, err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if h, ok := isHeader(t); ok {
				if !first {
					return f, fmt.Errorf("read records: line %d: a header line after the first line", line)
				}
				f.Header = h
			} else if smp, ok := isServerSample(t); ok {
				f.ServerSamples = append(f.ServerSamples, smp)
			} else if end, ok := isRunEnd(t); ok {
				if f.End != nil {
					return f, fmt.Errorf("read records: line %d: a second run-end line", line)
				}
				f.End = end
			} else {
				rec, perr := parseRecordLine(t)
				if perr != nil {
					if lenient && err != nil && errors.Is(perr, io.ErrUnexpectedEOF) {
						f.Truncated = true
						return f, nil
					}
					return f, fmt.Errorf("read records: line %d: %w", line, perr)
				}
				f.Records = append(f.Records, rec)
			}
			first = false
		}
		if err != nil { // io.EOF
			return f, nil
		}
	}
}

func parseRecordLine(b []byte) (*Record, error) {
	if b[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var rec Record
	if err := dec.Decode(&rec); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value on the line")
	}
	return &rec, nil
}
