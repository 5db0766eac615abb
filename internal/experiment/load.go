package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
)

// Result is one saved run read back from its result JSON: vLLM's
// (`vllm bench serve --save-result`) or vbench's, which adds the "vbench"
// object.
type Result struct {
	// Path is the result file.
	Path string
	// Keys are the numeric top-level keys, in file order.
	Keys []string
	// Values are the numeric top-level values (the run's summary as the
	// run derived it from its own requests), and the metric table's
	// metrics nested in the "vbench" object (client health) under their
	// table keys.
	Values map[string]float64
	// Samples are the per-request samples of the latency metrics in
	// seconds, keyed by metric name (ttft, tpot, itl, e2el,
	// client_queue_time, e2el_including_client_queue): one unit per
	// successful request, holding its value (all its inter-token latencies
	// for itl). Only filled when asked for, from the run's per-request
	// records when saved next to it, else from the result's per-request
	// arrays (--save-detailed; vLLM keeps latencies and queue_times even
	// without it). Units are in request order, which is dispatch order.
	Samples map[string][][]float64
	// ScenarioHash is vbench's hash of the run's scenario ("" for vLLM's).
	ScenarioHash string
	// Experiment places the run in its experiment (nil when the run was
	// not part of one).
	Experiment *RunInfo
	// MeanConcurrency is the run's mean number of requests in flight,
	// Σ E2EL / duration over the successful requests (0 when unknown); it
	// sizes the blocks of the comparison bootstrap.
	MeanConcurrency float64
	// Workload describes what was sent, for refusing to compare unlike runs.
	Workload Workload
	// Label is the result's label, else its backend.
	Label string
	// Interrupted reports the run was cancelled before it finished (from
	// the "vbench" object's "interrupted").
	Interrupted bool
	// StoppedEarly is why the run stopped early (load.early_stop), ""
	// when it ran to the end.
	StoppedEarly string
	// GPUs is the server's GPU count from the run's scenario
	// (target.gpus); 0 when not given.
	GPUs float64
}

// ErrNotResult is returned (wrapped) by LoadResult for a JSON file that is
// not a serving benchmark result.
var ErrNotResult = errors.New("not a benchmark result")

// LoadResult reads a result JSON, with per-request samples when samples is
// true. A file holding several results (--append-result) or something
// other than a serving result is an error.
func LoadResult(path string, samples bool) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readResult(path, f, samples, nil)
}

// resultOf is the Result of a run just made, from the result document and
// the records it holds in memory: what LoadResult would read back from its
// files.
func resultOf(out *pipeline.Outcome, samples bool) (*Result, error) {
	if out.ResultJSON == nil {
		return nil, fmt.Errorf("the run saved no result")
	}
	return readResult(out.ResultPath, bytes.NewReader(out.ResultJSON), samples, out.Records)
}

// readResult reads the result document in r, saved at path. recs, when not
// nil, are the run's records in request order, used instead of reading
// back the records file the result names.
func readResult(path string, r io.Reader, samples bool, recs []*record.Record) (*Result, error) {
	v, err := report.DecodePython(r)
	if err != nil {
		if errors.Is(err, report.ErrTrailingData) {
			return nil, fmt.Errorf("%s holds several results (written with --append-result?): give one result per file (%w)", path, err)
		}
		if msg, ok := strings.CutPrefix(err.Error(), "decode json: "); ok {
			return nil, fmt.Errorf("%s: invalid JSON (%s): want a result JSON of vbench or vllm bench serve", path, msg)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	obj, ok := v.(*report.Object)
	if !ok {
		return nil, fmt.Errorf("%s: %w (want a JSON object)", path, ErrNotResult)
	}
	for _, k := range []string{metrics.KeyDuration, metrics.KeyCompleted} {
		if _, ok := obj.Get(k); !ok {
			return nil, fmt.Errorf("%s: %w (no %q key)", path, ErrNotResult, k)
		}
	}
	res := &Result{Path: path, Values: map[string]float64{}}
	for _, k := range obj.Keys() {
		if x, ok := number(obj, k); ok {
			res.Keys = append(res.Keys, k)
			res.Values[k] = x
		}
	}
	// The metrics nested in the "vbench" object (client health), by their
	// keys in the metric table.
	for _, d := range metrics.Defs() {
		if len(d.Path) > 1 {
			if x, ok := nestedNumber(obj, d.Path); ok {
				res.Values[d.Key] = x
			}
		}
	}
	res.Label = text(obj, "label")
	if res.Label == "" {
		res.Label = text(obj, "backend")
	}
	var scenarioDataset string
	var recordsFile string
	if vb, ok := obj.Get("vbench"); ok {
		if vo, ok := vb.(*report.Object); ok {
			res.ScenarioHash = text(vo, "scenario_hash")
			recordsFile = text(vo, "records")
			if b, ok := vo.Get("interrupted"); ok {
				res.Interrupted, _ = b.(bool)
			}
			if se, ok := vo.Get("stopped_early"); ok {
				if so, ok := se.(*report.Object); ok {
					res.StoppedEarly = text(so, "reason")
				}
			}
			if e, ok := vo.Get("experiment"); ok {
				info := &RunInfo{}
				if err := reencode(e, info); err != nil {
					return nil, fmt.Errorf("%s: vbench.experiment: %w", path, err)
				}
				res.Experiment = info
			}
			if sc, ok := vo.Get("scenario"); ok {
				if so, ok := sc.(*report.Object); ok {
					if tg, ok := so.Get("target"); ok {
						if to, ok := tg.(*report.Object); ok {
							res.GPUs, _ = number(to, "gpus")
						}
					}
					if ds, ok := so.Get("dataset"); ok {
						b, err := report.MarshalPython(ds)
						if err == nil {
							scenarioDataset = string(b)
						}
					}
				}
			}
		}
	}
	res.Workload = workloadOf(obj, scenarioDataset)
	if samples {
		if recordsFile != "" && recs != nil {
			res.Samples = samplesFromRecords(recs, intArray(obj, "output_lens"))
		} else if recordsFile != "" {
			rp := filepath.Join(filepath.Dir(path), recordsFile)
			if rf, err := os.Open(rp); err == nil {
				recs, err := record.ReadJSONL(rf)
				rf.Close()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", rp, err)
				}
				// A streamed file holds the records in completion order;
				// the samples are in request order.
				slices.SortStableFunc(recs, func(a, b *record.Record) int { return a.Index - b.Index })
				res.Samples = samplesFromRecords(recs, intArray(obj, "output_lens"))
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
		if res.Samples == nil {
			res.Samples = samplesFromArrays(obj)
		}
		if d := res.Values[metrics.KeyDuration]; d > 0 {
			total := 0.0
			for _, u := range res.Samples[metrics.E2EL] {
				total += u[0]
			}
			res.MeanConcurrency = total / d
		}
	}
	return res, nil
}

// reencode converts a decoded JSON value into v through its JSON text.
func reencode(x any, v any) error {
	b, err := report.MarshalPython(x)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// number reads a numeric key (int or float; not a string like "inf").
func number(o *report.Object, key string) (float64, bool) {
	v, _ := o.Get(key)
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// nestedNumber is the number at path: objects down to the last key.
func nestedNumber(o *report.Object, path []string) (float64, bool) {
	for _, k := range path[:len(path)-1] {
		v, _ := o.Get(k)
		next, ok := v.(*report.Object)
		if !ok {
			return 0, false
		}
		o = next
	}
	return number(o, path[len(path)-1])
}

func text(o *report.Object, key string) string {
	v, _ := o.Get(key)
	s, _ := v.(string)
	return s
}

func floatArray(o *report.Object, key string) []float64 {
	v, ok := o.Get(key)
	arr, isArr := v.([]any)
	if !ok || !isArr {
		return nil
	}
	out := make([]float64, len(arr))
	for i, x := range arr {
		switch n := x.(type) {
		case int64:
			out[i] = float64(n)
		case float64:
			out[i] = n
		}
	}
	return out
}

func intArray(o *report.Object, key string) []int {
	f := floatArray(o, key)
	if f == nil {
		return nil
	}
	out := make([]int, len(f))
	for i, v := range f {
		out[i] = int(v)
	}
	return out
}

// samplesFromRecords derives the per-request samples from the run's
// records exactly as the run's summary did (metrics.FromRecord, successes
// only): TTFT, E2EL, the ITLs of each request, client queue time, E2EL plus
// queue time, and TPOT = (E2EL − TTFT) / (output_len − 1) for output_len > 1,
// with output_len the server's completion_tokens, else the result's
// output_lens; TPOT is left out when neither is known.
func samplesFromRecords(recs []*record.Record, outputLens []int) map[string][][]float64 {
	s := map[string][][]float64{}
	tpotKnown := true
	var tpots [][]float64
	for _, r := range recs {
		o := metrics.FromRecord(r)
		if !o.Success {
			continue
		}
		s[metrics.TTFT] = append(s[metrics.TTFT], []float64{o.TTFT})
		s[metrics.E2EL] = append(s[metrics.E2EL], []float64{o.Latency})
		s[metrics.ITL] = append(s[metrics.ITL], o.ITLs)
		s[metrics.ClientQueueTime] = append(s[metrics.ClientQueueTime], []float64{o.QueueTime})
		s[metrics.E2ELIncludingClientQueue] = append(s[metrics.E2ELIncludingClientQueue], []float64{o.Latency + o.QueueTime})
		n := o.OutputTokens
		if n == 0 && r.Index >= 0 && r.Index < len(outputLens) {
			n = outputLens[r.Index]
		}
		if n == 0 {
			tpotKnown = false
		}
		if n > 1 {
			tpots = append(tpots, []float64{(o.Latency - o.TTFT) / float64(n-1)})
		}
	}
	if tpotKnown {
		s[metrics.TPOT] = tpots
	}
	return s
}

// samplesFromArrays derives the per-request samples from a result's
// arrays: a request succeeded when its errors entry is "" (or, without
// errors, when its latency is positive); ttfts, latencies, itls and
// queue_times give TTFT, E2EL, ITL and queue time, and TPOT needs
// output_lens too. Without latencies (older clients), a request's latency
// is its TTFT plus its ITLs: the time of its last chunk, which vLLM's own
// latency differs from by one more clock reading (well under a
// microsecond).
// A metric whose arrays are missing has no samples.
func samplesFromArrays(o *report.Object) map[string][][]float64 {
	lat := floatArray(o, "latencies")
	ttft := floatArray(o, "ttfts")
	queue := floatArray(o, "queue_times")
	outLens := intArray(o, "output_lens")
	var errs []string
	if v, ok := o.Get("errors"); ok {
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				s, _ := e.(string)
				errs = append(errs, s)
			}
		}
	}
	var itls [][]float64
	if v, ok := o.Get("itls"); ok {
		if arr, ok := v.([]any); ok {
			for _, x := range arr {
				var row []float64
				if inner, ok := x.([]any); ok {
					for _, y := range inner {
						switch n := y.(type) {
						case float64:
							row = append(row, n)
						case int64:
							row = append(row, float64(n))
						}
					}
				}
				itls = append(itls, row)
			}
		}
	}
	if lat == nil && ttft != nil && len(itls) == len(ttft) {
		// Older clients kept no latencies: vLLM's latency is the last
		// chunk's time, which is TTFT plus the request's ITLs.
		lat = make([]float64, len(ttft))
		for i := range ttft {
			lat[i] = ttft[i]
			for _, v := range itls[i] {
				lat[i] += v
			}
			if i < len(errs) && errs[i] != "" {
				lat[i] = 0
			}
		}
	}
	n := max(len(lat), len(ttft))
	success := func(i int) bool {
		if i < len(errs) {
			return errs[i] == ""
		}
		return i < len(lat) && lat[i] > 0
	}
	s := map[string][][]float64{}
	add := func(key string, ok bool, v ...float64) {
		if ok {
			s[key] = append(s[key], v)
		}
	}
	for i := range n {
		if !success(i) {
			continue
		}
		add(metrics.E2EL, i < len(lat), at(lat, i))
		add(metrics.TTFT, i < len(ttft), at(ttft, i))
		add(metrics.ClientQueueTime, i < len(queue), at(queue, i))
		add(metrics.E2ELIncludingClientQueue, i < len(queue) && i < len(lat), at(lat, i)+at(queue, i))
		if i < len(itls) {
			s[metrics.ITL] = append(s[metrics.ITL], itls[i])
		}
		if i < len(outLens) && i < len(lat) && i < len(ttft) && outLens[i] > 1 {
			s[metrics.TPOT] = append(s[metrics.TPOT], []float64{(lat[i] - ttft[i]) / float64(outLens[i]-1)})
		}
	}
	return s
}

func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return math.NaN()
}

// Workload is what a result says about the load it sent: the fields that
// must agree for two results to be compared.
type Workload struct {
	// Fields are name/value pairs compared exactly: num_prompts,
	// request_rate, burstiness, max_concurrency, the ramp-up settings, and
	// (vbench results) the scenario's dataset.
	Fields [][2]string
	// MeanInputLen is total_input_tokens / completed (0 when nothing
	// completed), compared within 2 %.
	MeanInputLen float64
}

// workloadOf reads the workload of a result.
func workloadOf(o *report.Object, dataset string) Workload {
	var w Workload
	for _, k := range []string{"num_prompts", "request_rate", "burstiness", "max_concurrency", "ramp_up_strategy",
		"ramp_up_start_rps", "ramp_up_end_rps"} {
		if v, ok := o.Get(k); ok {
			b, err := report.MarshalPython(v)
			if err == nil {
				w.Fields = append(w.Fields, [2]string{k, string(b)})
			}
		}
	}
	if dataset != "" {
		w.Fields = append(w.Fields, [2]string{"dataset", dataset})
	}
	in, _ := number(o, "total_input_tokens")
	if c, _ := number(o, metrics.KeyCompleted); c > 0 {
		w.MeanInputLen = in / c
	}
	return w
}

// Differences lists how w and other differ, e.g. "max_concurrency: 8 vs
// 16". A field only one of them records (the dataset of a vLLM result) is
// not compared, except the ramp-up settings, whose absence means no
// ramp-up.
func (w Workload) Differences(other Workload) []string {
	get := func(fields [][2]string, k string) (string, bool) {
		for _, f := range fields {
			if f[0] == k {
				return f[1], true
			}
		}
		return "", false
	}
	var out []string
	seen := map[string]bool{}
	for _, fields := range [][][2]string{w.Fields, other.Fields} {
		for _, f := range fields {
			k := f[0]
			if seen[k] {
				continue
			}
			seen[k] = true
			a, okA := get(w.Fields, k)
			b, okB := get(other.Fields, k)
			if !okA || !okB {
				if strings.HasPrefix(k, "ramp_up_") {
					out = append(out, fmt.Sprintf("%s: %s vs %s", k, orNone(a, okA), orNone(b, okB)))
				}
				continue
			}
			if a != b {
				out = append(out, fmt.Sprintf("%s: %s vs %s", k, a, b))
			}
		}
	}
	if w.MeanInputLen > 0 && other.MeanInputLen > 0 &&
		math.Abs(w.MeanInputLen-other.MeanInputLen) > 0.02*math.Max(w.MeanInputLen, other.MeanInputLen) {
		out = append(out, fmt.Sprintf("mean input length: %s vs %s tokens",
			strconv.FormatFloat(w.MeanInputLen, 'f', 1, 64), strconv.FormatFloat(other.MeanInputLen, 'f', 1, 64)))
	}
	return out
}

func orNone(s string, ok bool) string {
	if !ok {
		return "none"
	}
	return s
}
