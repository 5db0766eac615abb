package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Format is the value of a records file header's "format" member: it marks
// the header line and versions the file layout: the header, then one line
// per record, with the run's server samples ({"server_sample": …}, see
// ServerSampleKey) on lines of their own among them.
const Format = "vbench-records/1"

// startLayout is RFC 3339 with all nine digits of the nanoseconds.
const startLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Header is the first line of a records file written by FileSink. With it
// every record's run-relative times become wall-clock times (StartUnixNs +
// a record's nanoseconds), so the records of runs made on several machines
// can be merged.
type Header struct {
	// Format is always the constant Format.
	Format string `json:"format"`
	// Start is the wall-clock time the run started, in UTC, RFC 3339 with
	// nanoseconds; StartUnixNs is the same instant in Unix nanoseconds.
	Start       string `json:"start"`
	StartUnixNs int64  `json:"start_unix_ns"`
	// Host is the name of the machine that ran the client.
	Host string `json:"host"`
	// Shard is "k/n": the file holds shard k (0-based) of a run split
	// over n clients; "0/1" for a run on one client.
	Shard string `json:"shard"`
	// ScenarioHash is the hash of the run's scenario.
	ScenarioHash string `json:"scenario_hash"`
	// Version is the vbench version that wrote the file.
	Version string `json:"vbench_version"`
	// Scenario is the run's resolved scenario with its secrets redacted,
	// as the result JSON holds it, so that the file alone can be folded
	// into a result (omitted when unknown).
	Scenario json.RawMessage `json:"scenario,omitempty"`
	// ModelID and TokenizerID are the result's model_id and tokenizer_id
	// (the model the run resolved, the client tokenizer it used), so that
	// the records alone rebuild the result JSON (vbench merge); omitted
	// when unknown.
	ModelID     string `json:"model_id,omitempty"`
	TokenizerID string `json:"tokenizer_id,omitempty"`
	// StartAt is the start instant the shards of a run agreed on (vbench
	// run --start-at), RFC 3339 on the reference clock; omitted for a run
	// that started when it was ready.
	StartAt string `json:"start_at,omitempty"`
	// Clock is this client's clock offset to the shards' reference clock,
	// measured before the run; nil when none was measured.
	Clock *ClockOffset `json:"clock,omitempty"`
}

// ClockOffset is one measurement of a client's wall-clock offset to a
// reference clock (shard 0's), by Cristian's method.
type ClockOffset struct {
	// Reference is the reference clock's address (host:port).
	Reference string `json:"reference"`
	// OffsetNs is the local clock minus the reference clock, in
	// nanoseconds (positive: the local clock is ahead).
	OffsetNs int64 `json:"offset_ns"`
	// UncertaintyNs bounds the error of OffsetNs: half the round trip of
	// the sample it comes from.
	UncertaintyNs int64 `json:"uncertainty_ns"`
	// Samples is the number of round trips measured.
	Samples int `json:"samples"`
}

// RunEndKey is the one member of the line a run writes last, after its
// records: {"run_end": {...}} (RunEnd). A file without it is from a run
// that was killed, or from an older vbench.
const RunEndKey = "run_end"

// RunEnd is what a run knows only at its end.
type RunEnd struct {
	// DurationNs is the run's duration (vLLM's benchmark_duration), from
	// its start until its last request finished, in nanoseconds.
	DurationNs int64 `json:"duration_ns"`
	// Planned is the number of requests the run (the shard, for a
	// sharded run) was to send; Sent the number it sent.
	Planned int `json:"planned"`
	Sent    int `json:"sent"`
	// Interrupted reports that the run stopped before it sent every
	// request.
	Interrupted bool `json:"interrupted,omitempty"`
	// ClockAfter is the clock offset measured again after the run (nil
	// when none was measured).
	ClockAfter *ClockOffset `json:"clock_after,omitempty"`
}

// Duration is DurationNs as a time.Duration.
func (e *RunEnd) Duration() time.Duration { return time.Duration(e.DurationNs) }

// SetStart sets Start and StartUnixNs from t.
func (h *Header) SetStart(t time.Time) {
	h.Start = t.UTC().Format(startLayout)
	h.StartUnixNs = t.UnixNano()
}

// StartTime is the run's start as a time.Time (zero when unknown).
func (h *Header) StartTime() time.Time {
	if h.StartUnixNs == 0 {
		return time.Time{}
	}
	return time.Unix(0, h.StartUnixNs)
}

// FileSink streams a run's records to a JSONL file as they complete: the
// header line when the run starts, then one line per record, and between
// them the server samples the run takes (ServerSample). Each line goes to
// the file with a single write as soon as its record arrives, so when the
// process is killed the file holds the header and every record sunk
// before, each on a whole line. A write that fails (a full disk) is cut
// back to the last whole line, the sink drops what follows, and OnError's
// function hears of it. Use it as one of the run's sinks (it implements
// run.Sink and run.Starter); its methods are safe for concurrent use.
type FileSink struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	header  Header
	buf     bytes.Buffer
	enc     *json.Encoder
	n       int
	size    int64 // bytes of whole lines written
	err     error
	onError func(error)
}

// CreateFile creates (or truncates) the records file at path, creating
// its directory, for a run described by h; the run's start is filled in
// by Start.
func CreateFile(path string, h Header) (*FileSink, error) {
	return create(path, h, os.O_TRUNC)
}

// CreateNewFile is CreateFile for a path that must not exist yet: when it
// does, the error wraps fs.ErrExist and the file is left as it was.
func CreateNewFile(path string, h Header) (*FileSink, error) {
	return create(path, h, os.O_EXCL)
}

// create opens path for writing with O_CREATE and flag (O_TRUNC or O_EXCL).
func create(path string, h Header, flag int) (*FileSink, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create records directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create records file: %w", err)
	}
	h.Format = Format
	s := &FileSink{f: f, path: path, header: h}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s, nil
}

// Path is the file's path.
func (s *FileSink) Path() string { return s.path }

// OnError sets a function called once, with the error, when a line
// cannot be encoded or written (a run stops on it rather than run on without its records). Set
// it before the first record.
func (s *FileSink) OnError(f func(error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onError = f
}

// Start writes the header line with the run's wall-clock start.
func (s *FileSink) Start(start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header.SetStart(start)
	s.writeLine(&s.header, "header")
}

// Record writes rec as one line. After a failed write the sink drops the
// records that follow; Close reports the error.
func (s *FileSink) Record(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writeLine(rec, "record") {
		s.n++
	}
}

// Annotate changes the header before the run starts (Start writes it).
func (s *FileSink) Annotate(f func(h *Header)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.header)
}

// End writes the run's end line ({"run_end": ...}), after its records.
func (s *FileSink) End(e RunEnd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeLine(runEndLine{e}, "run end")
}

// runEndLine is the line End writes.
type runEndLine struct {
	End RunEnd `json:"run_end"`
}

// ServerSampleKey is the one member of a records-file line that holds a
// sample of the server's load gauges instead of a record:
// {"server_sample": {"at_ns": …, "kv_cache_usage": …, "running": …,
// "waiting": …}} (promscrape.ServerSample).
const ServerSampleKey = "server_sample"

// ServerSample is one reading of the server's load gauges, taken every
// metrics.scrape_interval during the timed phase (package promscrape reads
// it): vLLM's KV-cache usage and its running and waiting request counts.
// Running and Waiting are summed over the server's label sets (engines,
// models); KVCacheUsage is their mean, so that it stays a fraction of the
// whole KV cache when several engines (data parallelism) each report
// their own. A gauge the server does not expose is -1.
type ServerSample struct {
	// At is when the scrape's response arrived, on the run's clock (the
	// same zero as Record's times).
	At time.Duration `json:"at_ns"`
	// KVCacheUsage is vllm:kv_cache_usage_perc (a fraction in [0, 1]), or
	// the older vllm:gpu_cache_usage_perc when the server has only that.
	KVCacheUsage float64 `json:"kv_cache_usage"`
	// Running is vllm:num_requests_running.
	Running float64 `json:"running"`
	// Waiting is vllm:num_requests_waiting.
	Waiting float64 `json:"waiting"`
}

// Empty reports a sample that holds none of the gauges.
func (s ServerSample) Empty() bool { return s.KVCacheUsage < 0 && s.Running < 0 && s.Waiting < 0 }

// ServerSample writes a sample of the server's gauges as one
// {"server_sample": ...} line; it may be called while records are sunk.
func (s *FileSink) ServerSample(smp ServerSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeLine(serverSampleLine{smp}, "server sample")
}

// serverSampleLine is the line ServerSample writes.
type serverSampleLine struct {
	Sample ServerSample `json:"server_sample"`
}

func (s *FileSink) writeLine(v any, what string) bool {
	if s.err != nil {
		return false
	}
	s.buf.Reset()
	if err := s.enc.Encode(v); err != nil {
		s.err = fmt.Errorf("write %s %d to %s: %w", what, s.n, s.path, err)
		if s.onError != nil {
			s.onError(s.err)
		}
		return false
	}
	if n, err := s.f.Write(s.buf.Bytes()); err != nil {
		s.err = fmt.Errorf("write %s %d to %s: %w", what, s.n, s.path, err)
		if n > 0 {
			// Part of the line went out: cut it off, so the file
			// ends with a whole line.
			if terr := s.f.Truncate(s.size); terr != nil {
				s.err = fmt.Errorf("%w (and its partial line could not be cut off: %v)", s.err, terr)
			} else if _, serr := s.f.Seek(s.size, io.SeekStart); serr != nil {
				s.err = fmt.Errorf("%w (%v)", s.err, serr)
			}
		}
		if s.onError != nil {
			s.onError(s.err)
		}
		return false
	}
	s.size += int64(s.buf.Len())
	return true
}

// Count is the number of records written.
func (s *FileSink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Close syncs and closes the file and returns the first error of any
// write.
func (s *FileSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	if serr := s.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("sync %s: %w", s.path, serr)
	}
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", s.path, cerr)
	}
	return err
}

// File is a records file read back by ReadFile.
type File struct {
	// Header is the file's header line, nil for a file without one
	// (written before vbench wrote headers, or by WriteJSONL).
	Header *Header
	// Records are the records, in file order (completion order for a
	// streamed file).
	Records []*Record
	// ServerSamples are the values of the file's server-sample lines
	// (FileSink.ServerSample), in file order, as JSON objects: this package
	// does not know their type (promscrape.ServerSample decodes them).
	ServerSamples []json.RawMessage
	// End is the file's run-end line, nil when it has none (the run was
	// killed before its end).
	End *RunEnd
	// Truncated reports that the last line was cut short (the writer was
	// killed while writing it) and was left out.
	Truncated bool
}

// ReadFile reads the records file at path: its header, if it has one, and
// its records, as ReadJSONL reads them, except that a last line cut short
// by a killed writer is left out and reported in File.Truncated.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rf, err := readJSONL(f, true)
	if err != nil {
		return rf, fmt.Errorf("%s: %w", path, err)
	}
	return rf, nil
}

// isServerSample returns the sample of a server-sample line; false for
// any other line (a record that merely mentions the key is a record).
func isServerSample(line []byte) (json.RawMessage, bool) {
	if !bytes.Contains(line, []byte(`"`+ServerSampleKey+`"`)) {
		return nil, false
	}
	var l struct {
		Sample json.RawMessage `json:"server_sample"`
	}
	if err := json.Unmarshal(line, &l); err != nil || len(l.Sample) == 0 || l.Sample[0] != '{' {
		return nil, false
	}
	return l.Sample, true
}

// isRunEnd returns the value of a run-end line; false for any other
// line.
func isRunEnd(line []byte) (*RunEnd, bool) {
	if !bytes.Contains(line, []byte(`"`+RunEndKey+`"`)) {
		return nil, false
	}
	var l struct {
		End *RunEnd `json:"run_end"`
	}
	if err := json.Unmarshal(line, &l); err != nil || l.End == nil {
		return nil, false
	}
	return l.End, true
}

// isHeader reports whether a JSON object line is a records file header.
func isHeader(line []byte) (*Header, bool) {
	if !bytes.Contains(line, []byte(`"format"`)) {
		return nil, false
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil || !strings.HasPrefix(h.Format, "vbench-records/") {
		return nil, false
	}
	return &h, true
}

// ReadHeader reads the header line of the records file at path alone; nil
// (and no error) when the file's first line is not a header.
func ReadHeader(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h, _ := isHeader(bytes.TrimSpace(line))
	return h, nil
}
