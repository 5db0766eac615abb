package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFileSinkRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.records.jsonl")
	s, err := CreateFile(path, Header{Host: "h1", Shard: "0/1", ScenarioHash: "sha256:ab", Version: "v9",
		Scenario: json.RawMessage(`{"seed":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 4, 5, 6, 7, 80, time.FixedZone("X", 3600))
	s.Start(start)
	want := sampleRecords()
	for i, r := range want {
		s.Record(r)
		// Each record is in the file as soon as Record returns.
		f, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Records) != i+1 || f.Header == nil || f.Truncated {
			t.Fatalf("after %d records the file reads %d records, header %v, truncated %v", i+1, len(f.Records), f.Header, f.Truncated)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Count() != len(want) || s.Path() != path {
		t.Errorf("Count %d, Path %s", s.Count(), s.Path())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	wantHeader := `{"format":"vbench-records/1","start":"2026-03-04T04:06:07.000000080Z","start_unix_ns":` +
		`1772597167000000080,"host":"h1","shard":"0/1","scenario_hash":"sha256:ab","vbench_version":"v9","scenario":{"seed":1}}`
	if first != wantHeader {
		t.Errorf("header line\n got %s\nwant %s", first, wantHeader)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Records, want) {
		t.Errorf("records differ:\n got %+v\nwant %+v", f.Records, want)
	}
	if !f.Header.StartTime().Equal(start) {
		t.Errorf("StartTime %v, want %v", f.Header.StartTime(), start)
	}
	// ReadJSONL skips the header.
	recs, err := ReadJSONL(strings.NewReader(string(data)))
	if err != nil || len(recs) != len(want) {
		t.Errorf("ReadJSONL: %d records, %v", len(recs), err)
	}
}

func TestReadFileTruncated(t *testing.T) {
	head := `{"format":"vbench-records/1","start":"x","start_unix_ns":1,"host":"h","shard":"0/1","scenario_hash":"","vbench_version":"v"}` + "\n"
	tests := []struct {
		name      string
		in        string
		n         int
		header    bool
		truncated bool
		wantErr   string
	}{
		{"header only", head, 0, true, false, ""},
		{"no header", "{\"index\": 1}\n", 1, false, false, ""},
		{"cut mid record", head + "{\"index\": 1}\n{\"index\": 2, \"chunks_ns\": [1, 2", 1, true, true, ""},
		{"cut mid string", head + "{\"index\": 1}\n{\"index\": 2, \"error\": \"bro", 1, true, true, ""},
		{"cut header", head[:20], 0, false, true, ""},
		{"complete last line without newline", head + "{\"index\": 1}", 1, true, false, ""},
		{"bad last line with newline", head + "{\"index\": 1}\n{\"index\": 2,\n", 1, true, false, "line 3"},
		{"bad unterminated line that is no cut", head + "{\"index\": 1} x", 0, true, false, "line 2"},
		{"header not first", "{\"index\": 1}\n" + head, 1, false, false, "line 2: a header line after the first line"},
		{"other format member", `{"index": 3, "format": "x"}` + "\n", 1, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := ReadFile(path)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if len(f.Records) != tt.n || (f.Header != nil) != tt.header || f.Truncated != tt.truncated {
				t.Errorf("%d records, header %v, truncated %v; want %d, %v, %v", len(f.Records), f.Header != nil, f.Truncated, tt.n, tt.header, tt.truncated)
			}
			// The strict reader refuses a cut line.
			if _, err := ReadJSONL(strings.NewReader(tt.in)); tt.truncated && err == nil {
				t.Error("ReadJSONL accepted a truncated line")
			}
		})
	}
}

func TestFileSinkWriteError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	s, err := CreateFile(path, Header{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(time.Unix(0, 1))
	s.Record(&Record{Index: 0})
	// Closing the file under the sink makes the next write fail.
	if err := s.f.Close(); err != nil {
		t.Fatal(err)
	}
	s.Record(&Record{Index: 1})
	s.Record(&Record{Index: 2})
	if s.Count() != 1 {
		t.Errorf("Count %d, want 1", s.Count())
	}
	if err := s.Close(); err == nil || !strings.Contains(err.Error(), "write record 1 to "+path) {
		t.Errorf("Close = %v, want the first write error", err)
	}
	if _, err := CreateFile(filepath.Join(path, "x.jsonl"), Header{}); err == nil {
		t.Error("CreateFile under a regular file succeeded")
	}
}
