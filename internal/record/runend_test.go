package record

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The header a sharded run annotates before its start, and the run-end
// line it writes after its records, come back from ReadFile; ReadHeader
// reads the header alone; readers of the records skip the end line.
func TestFileSinkRunEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.records.jsonl")
	s, err := CreateFile(path, Header{Host: "h", Shard: "0/1", ScenarioHash: "sha256:x"})
	if err != nil {
		t.Fatal(err)
	}
	clock := &ClockOffset{Reference: "w0:7070", OffsetNs: -12_345, UncertaintyNs: 20_000, Samples: 32}
	s.Annotate(func(h *Header) {
		h.Shard, h.ModelID, h.TokenizerID, h.StartAt, h.Clock = "1/3", "m", "o200k_base", "2026-12-04T12:00:00Z", clock
	})
	s.Start(time.Unix(1796400000, 5))
	recs := sampleRecords()
	// A record whose text mentions the key is still a record.
	recs[0].GeneratedText = `{"run_end": {"duration_ns": 1}}`
	for _, r := range recs {
		s.Record(r)
	}
	end := RunEnd{DurationNs: int64(3 * time.Second), Planned: 3, Sent: 3, ClockAfter: clock}
	s.End(end)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != len(recs) || f.End == nil || !reflect.DeepEqual(*f.End, end) || f.End.Duration() != 3*time.Second {
		t.Fatalf("read %d records, end %+v", len(f.Records), f.End)
	}
	h := f.Header
	if h.Shard != "1/3" || h.ModelID != "m" || h.TokenizerID != "o200k_base" || h.StartAt != "2026-12-04T12:00:00Z" ||
		!reflect.DeepEqual(h.Clock, clock) || h.StartUnixNs != 1796400000_000000005 {
		t.Errorf("header %+v", h)
	}
	alone, err := ReadHeader(path)
	if err != nil || !reflect.DeepEqual(alone, h) {
		t.Errorf("ReadHeader = %+v, %v; want %+v", alone, err, h)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), `{"run_end":{"duration_ns":3000000000,"planned":3,"sent":3,"clock_after":{"reference":"w0:7070","offset_ns":-12345,"uncertainty_ns":20000,"samples":32}}}`+"\n") {
		t.Errorf("the file does not end with the documented run-end line:\n%s", data)
	}
	only, err := ReadJSONL(strings.NewReader(string(data)))
	if err != nil || len(only) != len(recs) {
		t.Errorf("ReadJSONL = %d records, %v", len(only), err)
	}
	// Two end lines are an error; a file without a header has none.
	if err := os.WriteFile(path, append(data, data[strings.LastIndex(string(data[:len(data)-1]), "\n")+1:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "a second run-end line") {
		t.Errorf("two end lines: %v", err)
	}
	if err := os.WriteFile(path, []byte("{\"index\": 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := ReadHeader(path); h != nil || err != nil {
		t.Errorf("ReadHeader of a file without a header = %+v, %v", h, err)
	}
}
