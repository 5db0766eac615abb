package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/sim"
)

// simKey is the key of a script's simHolder among its testscript values.
type simKey struct{}

// simHolder holds the simulator simserve started, for checkrecords.
type simHolder struct{ srv *sim.Server }

// wholeRecordLines counts the lines of a records file after its first
// (the header) that end in a newline.
func wholeRecordLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	return max(n-1, 0)
}

func waitRecords(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitrecords FILE N")
	}
	var want int
	if _, err := fmt.Sscan(args[1], &want); err != nil {
		ts.Fatalf("waitrecords: N: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && wholeRecordLines(b) >= want {
			return
		}
	}
	ts.Fatalf("%s did not hold %d records within 30s", args[0], want)
}

// checkRecords checks the records file of a run that was killed while the
// script's simulator served it, once the simulator has no request left
// running (the killed client's open stream is aborted):
//   - the first line is the header (format, shard 0/1, a start time, the
//     scenario hash);
//   - every other line is a whole JSON record, and the file ends with a
//     newline (each record is written with one write, so a kill never
//     leaves half a line);
//   - the records are the successes the simulator completed, no more and
//     no fewer: their number equals the simulator's completed count, and
//     their indexes are distinct;
//   - there is at least one record.
//
// It prints "records N" on success and sets $KILLED_RECORDS to N.
func checkRecords(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: checkrecords FILE")
	}
	srv := ts.Value(simKey{}).(*simHolder).srv
	if srv == nil {
		ts.Fatalf("checkrecords needs a simulator started with simserve")
	}
	for deadline := time.Now().Add(30 * time.Second); srv.Stats().Running > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			ts.Fatalf("the simulator still runs %d requests after 30s", srv.Stats().Running)
		}
	}
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	ts.Check(err)
	if len(b) == 0 || b[len(b)-1] != '\n' {
		ts.Fatalf("%s does not end with a whole line", args[0])
	}
	f, err := record.ReadFile(path)
	ts.Check(err)
	h := f.Header
	if h == nil {
		ts.Fatalf("%s has no header line", args[0])
	}
	if h.Format != record.Format || h.Shard != "0/1" || h.StartUnixNs <= 0 || h.Start == "" || h.ScenarioHash == "" {
		ts.Fatalf("bad header %+v", h)
	}
	completed := int(srv.Stats().Completed)
	seen := map[int]bool{}
	for _, r := range f.Records {
		if !r.Success || seen[r.Index] {
			ts.Fatalf("record %d: success %v, seen before %v", r.Index, r.Success, seen[r.Index])
		}
		seen[r.Index] = true
	}
	if len(f.Records) == 0 {
		ts.Fatalf("%s holds no record", args[0])
	}
	if len(f.Records) != completed {
		ts.Fatalf("%s holds %d records, the simulator completed %d requests", args[0], len(f.Records), completed)
	}
	ts.Logf("%d records, the simulator completed %d and aborted %d", len(f.Records), completed, srv.Stats().Aborted)
	fmt.Fprintf(ts.Stdout(), "records %d\n", len(f.Records))
	ts.Setenv("KILLED_RECORDS", fmt.Sprint(len(f.Records)))
}
