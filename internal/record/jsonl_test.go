package record

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func sampleRecords() []*Record {
	ms := time.Millisecond
	return []*Record{
		{Index: 0, RequestID: "bench-1-0", Intended: 0, Released: 1 * ms, Start: 2 * ms,
			Chunks: []time.Duration{50 * ms, 55 * ms, 61 * ms}, End: 61 * ms, PromptLen: 64, OutputTokens: 3,
			GeneratedText: "a <b> & \"c\"\n😀", Success: true, Status: 200},
		{Index: 1, Intended: 10 * ms, Released: 10 * ms, Start: 12 * ms, PromptLen: 63,
			Error: "Traceback (most recent call last):\n  ...", Status: 500},
		{Index: 2},
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	want := sampleRecords()
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, want); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(want) {
		t.Errorf("%d lines, want %d", n, len(want))
	}
	if !strings.Contains(buf.String(), `"a <b> & \"c\"\n😀"`) {
		t.Errorf("text not written verbatim: %s", buf.String())
	}
	got, err := ReadJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestJSONLWriterStreaming(t *testing.T) {
	var buf bytes.Buffer
	jw := NewJSONLWriter(&buf)
	recs := sampleRecords()
	var wg sync.WaitGroup
	for _, r := range recs {
		wg.Go(func() {
			if err := jw.Write(r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := jw.Flush(); err != nil {
		t.Fatal(err)
	}
	if jw.Count() != len(recs) {
		t.Errorf("Count = %d", jw.Count())
	}
	got, err := ReadJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, want %d", len(got), len(recs))
	}
	seen := map[int]bool{}
	for _, r := range got {
		seen[r.Index] = true
	}
	if len(seen) != len(recs) {
		t.Errorf("indexes %v", seen)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func TestJSONLWriterErrors(t *testing.T) {
	boom := errors.New("disk full")
	jw := NewJSONLWriter(failWriter{boom})
	if err := jw.Write(&Record{}); err != nil {
		t.Fatalf("buffered write failed early: %v", err)
	}
	if err := jw.Flush(); !errors.Is(err, boom) {
		t.Errorf("Flush = %v, want %v", err, boom)
	}
	if err := jw.Write(&Record{}); !errors.Is(err, boom) {
		t.Errorf("Write after failure = %v, want the sticky error", err)
	}
	if err := NewJSONLWriter(&bytes.Buffer{}).Write(nil); err == nil {
		t.Error("nil record accepted")
	}
	if err := WriteJSONL(failWriter{boom}, sampleRecords()); !errors.Is(err, boom) {
		t.Errorf("WriteJSONL = %v, want %v", err, boom)
	}
}

func TestReadJSONL(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int
		wantErr string
	}{
		{"empty", "", 0, ""},
		{"blank lines and no final newline", "\n{\"index\": 1}\n\n  \n{\"index\": 2}", 2, ""},
		{"crlf", "{\"index\": 1}\r\n{\"index\": 2}\r\n", 2, ""},
		{"unknown fields ignored", `{"index": 1, "future_field": [1, 2]}`, 1, ""},
		{"bad json", "{\"index\": 1}\n{\"index\": \n", 1, "line 2"},
		{"not an object", "{\"index\": 1}\nnull\n", 1, "line 2: not a JSON object"},
		{"array", "[1]\n", 0, "line 1: not a JSON object"},
		{"two values", `{"index": 1} {"index": 2}`, 0, "line 1: more than one value"},
		{"wrong type", `{"index": "one"}`, 0, "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadJSONL(strings.NewReader(tt.in))
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if len(got) != tt.n {
				t.Errorf("read %d records, want %d", len(got), tt.n)
			}
		})
	}
}

func FuzzReadJSONL(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, sampleRecords()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("{\"chunks_ns\": [1, 2, 3]}\n\n{}"))
	f.Add([]byte("null\n"))
	f.Add([]byte("{\"index\": 1e400}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadJSONL(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever was read must write and read back unchanged.
		var out bytes.Buffer
		if err := WriteJSONL(&out, recs); err != nil {
			t.Fatalf("write back: %v", err)
		}
		again, err := ReadJSONL(&out)
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if !reflect.DeepEqual(normalize(again), normalize(recs)) {
			t.Fatalf("round trip changed the records")
		}
	})
}

// normalize maps empty chunk slices to nil: omitempty drops an empty
// slice, which then reads back as nil.
func normalize(recs []*Record) []*Record {
	for _, r := range recs {
		if len(r.Chunks) == 0 {
			r.Chunks = nil
		}
	}
	return recs
}
