package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server samples written between the records come back apart from them;
// every reader of the records skips them.
func TestFileSinkServerSamples(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.records.jsonl")
	s, err := CreateFile(path, Header{Host: "h", Shard: "0/1"})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(time.Unix(1, 0))
	recs := sampleRecords()
	// A record whose error mentions the key is still a record.
	recs[0].Error = `upstream said {"server_sample": {"at_ns": 1}}`
	// The samples come from another goroutine while the records are sunk.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 50 {
			s.ServerSample(ServerSample{At: time.Duration(i), KVCacheUsage: 0.5, Running: float64(i), Waiting: -1})
		}
	})
	for _, r := range recs {
		s.Record(r)
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Count() != len(recs) {
		t.Errorf("Count = %d, want %d (samples are not records)", s.Count(), len(recs))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n"+`{"server_sample":{"at_ns":7,"kv_cache_usage":0.5,"running":7,"waiting":-1}}`+"\n") {
		t.Errorf("no sample line of the documented shape in\n%s", data)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != len(recs) || len(f.ServerSamples) != 50 || f.Truncated {
		t.Fatalf("read %d records, %d samples, truncated %v", len(f.Records), len(f.ServerSamples), f.Truncated)
	}
	for i, raw := range f.ServerSamples {
		var g ServerSample
		if err := json.Unmarshal(raw, &g); err != nil || g.At != time.Duration(i) || g.Running != float64(i) {
			t.Errorf("sample %d = %s (%v)", i, raw, err)
		}
	}
	if f.Records[0].Error != recs[0].Error {
		t.Errorf("record 0 error = %q", f.Records[0].Error)
	}
	only, err := ReadJSONL(strings.NewReader(string(data)))
	if err != nil || len(only) != len(recs) {
		t.Errorf("ReadJSONL = %d records, %v", len(only), err)
	}

	// A sample line cut short by a killed writer is the truncated last line.
	cut := string(data) + `{"server_sample":{"at_ns":99,"kv_`
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = ReadFile(path)
	if err != nil || !f.Truncated || len(f.ServerSamples) != 50 {
		t.Errorf("truncated sample: %v, truncated %v, %d samples", err, f.Truncated, len(f.ServerSamples))
	}
}
