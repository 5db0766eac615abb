package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/tokenizer"
)

// splitShard writes the records of f that shard idx of count holds as
// that shard's records file: its header says the shard, starts late
// later than f's and on a clock ahead by offset (so its times are late
// earlier and its start offset later), and its end line is f's less late,
// counting the shard's requests.
func splitShard(t *testing.T, dir string, f *record.File, idx, count int, late, offset time.Duration) string {
	t.Helper()
	h := *f.Header
	h.Shard = fmt.Sprintf("%d/%d", idx, count)
	if offset != 0 {
		h.Clock = &record.ClockOffset{Reference: "shard0:7070", OffsetNs: int64(offset), UncertaintyNs: 20_000, Samples: 32}
	}
	path := filepath.Join(dir, fmt.Sprintf("r-shard%dof%d.records.jsonl", idx, count))
	sink, err := record.CreateNewFile(path, h)
	if err != nil {
		t.Fatal(err)
	}
	sink.Start(f.Header.StartTime().Add(late + offset))
	end := *f.End
	end.Planned, end.Sent = 0, 0
	for i := range f.End.Planned {
		if i%count == idx {
			end.Planned++
		}
	}
	for _, r := range f.Records {
		if r.Index%count == idx {
			sink.Record(shifted(r, -late))
			end.Sent++
		}
	}
	end.DurationNs -= int64(late)
	sink.End(end)
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// runRecords runs the scenario src and reads back its records file.
func runRecords(t *testing.T, src string) (*Outcome, *record.File) {
	t.Helper()
	out, _, err := runScenario(t, src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := record.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	return out, f
}

// TestMergeExact splits one run's records into shards and merges them
// back: the merged summary is the run's own, field by field, whether the
// shards started together or apart, on clocks that agree or not.
func TestMergeExact(t *testing.T) {
	out, _, err := runScenario(t, base+"\nmetrics: {percentile_metrics: [\"ttft\", \"tpot\", \"itl\", \"e2el\"], metric_percentiles: [25, 50, 90, 99]}")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := FoldRecords(out.RecordsPath, countTokens(tok))
	if err != nil {
		t.Fatal(err)
	}
	f, err := record.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		count  int
		late   []time.Duration // shard i's start after the run's
		offset []time.Duration // shard i's clock ahead of shard 0's
	}{
		{name: "one shard", count: 1, late: []time.Duration{0}, offset: []time.Duration{0}},
		{name: "three together", count: 3, late: []time.Duration{0, 0, 0}, offset: []time.Duration{0, 0, 0}},
		{name: "three apart", count: 3, late: []time.Duration{0, 3 * time.Millisecond, time.Millisecond}, offset: []time.Duration{0, 0, 0}},
		{name: "clocks off", count: 3, late: []time.Duration{0, 0, 2 * time.Millisecond}, offset: []time.Duration{0, 250 * time.Millisecond, -170 * time.Millisecond}},
		{name: "more shards than requests", count: 5, late: make([]time.Duration, 5), offset: make([]time.Duration, 5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i := range tc.count {
				paths = append(paths, splitShard(t, dir, f, i, tc.count, tc.late[i], tc.offset[i]))
			}
			m, err := Merge(paths, countTokens(tok))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Summary, whole.Summary) {
				t.Errorf("merged summary differs from the run's:\n got %+v\nwant %+v", m.Summary, whole.Summary)
			}
			if len(m.Records) != len(whole.Records) || !m.ExactDuration || m.Scenario.Hash() != whole.Scenario.Hash() {
				t.Errorf("%d records (want %d), exact %v, scenario %s (want %s)", len(m.Records), len(whole.Records), m.ExactDuration, m.Scenario.Hash(), whole.Scenario.Hash())
			}
			for i, s := range m.Shards {
				if s.Shift != tc.late[i] {
					t.Errorf("shard %d: shift %v, want %v", i, s.Shift, tc.late[i])
				}
			}
			// The merged run writes its result and records, and the
			// records fold again into the same summary.
			res := filepath.Join(dir, "merged.json")
			recs, err := m.Write(res)
			if err != nil {
				t.Fatal(err)
			}
			again, err := FoldRecords(recs, countTokens(tok))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again.Summary, whole.Summary) {
				t.Errorf("the merged records fold into another summary:\n got %+v\nwant %+v", again.Summary, whole.Summary)
			}
			if _, err := m.Write(res); err == nil {
				t.Error("a second Write replaced the merged result")
			}
		})
	}
}

// TestMergeRefuses checks that Merge names what is wrong with a set of
// files that are not the shards of one run.
func TestMergeRefuses(t *testing.T) {
	_, f := runRecords(t, base)
	dir := t.TempDir()
	s0 := splitShard(t, dir, f, 0, 3, 0, 0)
	s1 := splitShard(t, dir, f, 1, 3, 0, 0)
	s2 := splitShard(t, dir, f, 2, 3, 0, 0)
	other := *f
	h := *f.Header
	h.ScenarioHash = "sha256:other"
	other.Header = &h
	odd := splitShard(t, t.TempDir(), &other, 1, 3, 0, 0)
	four := splitShard(t, t.TempDir(), f, 1, 4, 0, 0)
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing", []string{s0, s2}, "missing 1 of the run's 3 shards: 1/3"},
		{"two missing", []string{s1}, "missing 2 of the run's 3 shards: 0/3, 2/3"},
		{"mixed scenarios", []string{s0, odd, s2}, "2 different scenarios"},
		{"twice", []string{s0, s1, s1, s2}, "shard 1/3 is in two files"},
		{"counts differ", []string{s0, four, s2}, "agree on their count"},
		{"none", nil, "no records files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.paths, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Merge = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestMergeRampUp checks that a merged ramp-up run's rps_change_events
// are the single run's: the same rates at the same release times.
func TestMergeRampUp(t *testing.T) {
	out, f := runRecords(t, strings.Replace(base, "load: {num_prompts: 12, max_concurrency: 4}",
		`load: {num_prompts: 12, request_rate: "inf", ramp_up: {strategy: "linear", start_rps: 20, end_rps: 60}}`, 1))
	dir := t.TempDir()
	var paths []string
	for i := range 3 {
		paths = append(paths, splitShard(t, dir, f, i, 3, 0, 0))
	}
	m, err := Merge(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged.json")
	if _, err := m.Write(merged); err != nil {
		t.Fatal(err)
	}
	events := func(path string) string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte(`"rps_change_events": [`))
		if i < 0 {
			t.Fatalf("%s has no rps_change_events", path)
		}
		return string(data[i : i+bytes.IndexByte(data[i:], ']')+1])
	}
	if got, want := events(merged), events(out.ResultPath); got != want || !strings.Contains(want, `"rps": 21`) {
		t.Errorf("merged rps_change_events\n %s\nwant the run's\n %s", got, want)
	}
}

// TestMergeEmptyShard checks that a shard that completed nothing (its
// file has a header and no record) merges with the others, and that
// shards with no record at all are refused.
func TestMergeEmptyShard(t *testing.T) {
	_, f := runRecords(t, base)
	dir := t.TempDir()
	s0 := splitShard(t, dir, f, 0, 2, 0, 0)
	empty := *f
	empty.Records = nil
	s1 := splitShard(t, dir, &empty, 1, 2, 0, 0)
	m, err := Merge([]string{s0, s1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Records) != 6 || m.Summary.Completed != 6 || m.Shards[1].Records != 0 {
		t.Errorf("merged %d records, %d completed; shard 1 has %d", len(m.Records), m.Summary.Completed, m.Shards[1].Records)
	}
	e0 := splitShard(t, t.TempDir(), &empty, 0, 2, 0, 0)
	if _, err := Merge([]string{e0, s1}, nil); err == nil || !strings.Contains(err.Error(), "no records in any of the 2 shards") {
		t.Errorf("two empty shards: %v", err)
	}
}

// TestLocalStart checks the sign of the start's placement: a clock ahead
// of shard 0's by d reaches the agreed instant when it reads d later.
func TestLocalStart(t *testing.T) {
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for _, off := range []time.Duration{0, 250 * time.Millisecond, -170 * time.Millisecond} {
		got := localStart(at, &record.ClockOffset{OffsetNs: int64(off)})
		if want := at.Add(off); !got.Equal(want) {
			t.Errorf("offset %v: local start %v, want %v", off, got, want)
		}
	}
	if got := localStart(at, nil); !got.Equal(at) {
		t.Errorf("no offset: %v", got)
	}
}
