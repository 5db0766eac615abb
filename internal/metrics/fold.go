package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/record"
)

// A request's row in the fold's store: rowFields little-endian 64-bit
// words at Index·rowSize.
const (
	fFlags = iota
	fPromptLen
	fOutputTokens
	fTTFT
	fLatency
	fStart
	fQueue
	fITLOff // position of the first of its inter-token latencies
	fITLN
	fTextOff
	fTextLen
	fErrOff
	fErrLen
	fSendLag // nanoseconds
	fReadLag // nanoseconds
	fCount   // the client tokenizer's count of the text, plus one (0: not counted)
	fSeqs    // a pooling request's input sequences
	fTTFR    // time to first reasoning token, s (flagReasoning)
	fTTFA    // time to first answer token after reasoning, s (flagAnswered)
	fRChunks // reasoning messages
	fRTokens // the server's reasoning tokens
	fAudio   // input audio seconds
	rowFields
	rowSize = 8 * rowFields
)

// Row flags.
const (
	flagRecorded   = 1 << iota // the request was released (sent or not)
	flagSent                   // it was sent: an outcome of the summary
	flagSuccess                // it succeeded
	flagStopString             // it ended on a stop string
	flagStopToken              // it ended on a stop token
	flagReasoning              // its stream carried reasoning
	flagAnswered               // and then answer text
)

// row is one request's row.
type row [rowFields]uint64

func (r *row) f(i int) float64       { return math.Float64frombits(r[i]) }
func (r *row) setF(i int, v float64) { r[i] = math.Float64bits(v) }
func (r *row) has(flag uint64) bool  { return r[fFlags]&flag != 0 }

// rowStore keeps rows by request index in a blob, through a small cache of
// blocks: records arrive in completion order, which is close to request
// order, so the cache takes nearly every write.
type rowStore struct {
	b      blob
	blocks map[int]*rowBlock
	tick   int
}

const (
	blockRows   = 1024
	cacheBlocks = 16
)

type rowBlock struct {
	rows [blockRows]row
	used int
}

func (s *rowStore) block(k int) (*rowBlock, error) {
	s.tick++
	if b, ok := s.blocks[k]; ok {
		b.used = s.tick
		return b, nil
	}
	if len(s.blocks) >= cacheBlocks {
		old, oldK := (*rowBlock)(nil), 0
		for bk, b := range s.blocks {
			if old == nil || b.used < old.used {
				old, oldK = b, bk
			}
		}
		if err := s.write(oldK, old); err != nil {
			return nil, err
		}
		delete(s.blocks, oldK)
	}
	b := &rowBlock{used: s.tick}
	raw := make([]byte, blockRows*rowSize)
	if n, err := s.b.ReadAt(raw, int64(k)*blockRows*rowSize); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	} else if n > 0 {
		decodeRows(raw[:n], b.rows[:n/rowSize])
	}
	s.blocks[k] = b
	return b, nil
}

func (s *rowStore) write(k int, b *rowBlock) error {
	raw := make([]byte, blockRows*rowSize)
	encodeRows(b.rows[:], raw)
	_, err := s.b.WriteAt(raw, int64(k)*blockRows*rowSize)
	return err
}

func (s *rowStore) put(i int, r *row) error {
	b, err := s.block(i / blockRows)
	if err != nil {
		return err
	}
	b.rows[i%blockRows] = *r
	return nil
}

// flush writes every cached block.
func (s *rowStore) flush() error {
	for k, b := range s.blocks {
		if err := s.write(k, b); err != nil {
			return err
		}
	}
	clear(s.blocks)
	return nil
}

func encodeRows(rows []row, raw []byte) {
	for i := range rows {
		for j, w := range rows[i] {
			binary.LittleEndian.PutUint64(raw[i*rowSize+8*j:], w)
		}
	}
}

func decodeRows(raw []byte, rows []row) {
	for i := range rows {
		decodeRow(raw[i*rowSize:], &rows[i])
	}
}

func decodeRow(raw []byte, r *row) {
	for j := range r {
		r[j] = binary.LittleEndian.Uint64(raw[8*j:])
	}
}

// rows yields the rows of requests [from, to) in index order; the row is
// valid until the next. The store must be flushed.
func (s *rowStore) rows(from, to int, errp *error) iter.Seq2[int, *row] {
	return func(yield func(int, *row) bool) {
		r := reader(s.b, int64(from)*rowSize, int64(to-from)*rowSize)
		raw := make([]byte, rowSize)
		var rw row
		for i := from; i < to; i++ {
			if _, err := io.ReadFull(r, raw); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					clear(rw[:]) // never written: a request not released
				} else {
					*errp = err
					return
				}
			} else {
				decodeRow(raw, &rw)
			}
			if !yield(i, &rw) {
				return
			}
		}
	}
}

// Accumulator folds a run's records into its summary as they complete, in
// any order, without holding them: Add each record (a run's sink), then
// Close once with the run's duration. Add writes the request's figures to
// a row at its index, its inter-token latencies and texts to append-only
// columns; those live in files under Options.SpillDir (unlinked at once,
// so nothing outlives the process), or in memory when it is "". Close
// reads them back in request order and computes vLLM's statistics exactly
// as ComputeOutcomes does over the same outcomes in memory (numpy's
// pairwise sums in request order, order statistics from the sorted
// values, sorted in memory up to 262,144 values (2 MiB) and merged from
// sorted runs beyond), so the summary is the same to the last bit.
//
// Its memory is a few megabytes whatever the run's length. On disk it
// takes 128 bytes per request, 8 per inter-token latency and the
// generated and error texts. An Accumulator is not safe for concurrent use
// (a run calls its sinks one at a time); Release frees its files.
type Accumulator struct {
	opt   Options
	rows  rowStore
	itls  *appender
	texts *appender
	n     int // 1 + the largest index added
	added int // sent records added
	err   error
	// accounting is the token accounting Close made (nil without).
	accounting *TokenAccounting
	lags       Lags
	itlBuf     [8]byte
}

// NewAccumulator returns an empty accumulator for a run with options opt.
// Its first error (a spill file that cannot be made or written) is
// returned by Close.
func NewAccumulator(opt Options) *Accumulator {
	a := &Accumulator{opt: opt}
	a.rows.blocks = map[int]*rowBlock{}
	var bs [3]blob
	for i := range bs {
		b, err := newBlob(opt.SpillDir)
		if err != nil {
			a.err = err
			b = &memBlob{}
		}
		bs[i] = b
	}
	a.rows.b, a.itls, a.texts = bs[0], newAppender(bs[1]), newAppender(bs[2])
	return a
}

// Err is the error NewAccumulator met making its spill files (nil when
// it made them): a run checks it before it starts.
func (a *Accumulator) Err() error { return a.err }

// Release frees the accumulator's spill files; the summary it made stays
// valid, but Arrays can no longer be read.
func (a *Accumulator) Release() {
	a.rows.b.Close()
	a.itls.b.Close()
	a.texts.b.Close()
}

// Add takes one finished record. A record never sent (NotSent) is left out
// of the summary (see Compute); its send lag still counts in Lags.
func (a *Accumulator) Add(rec *record.Record) {
	var r row
	r[fFlags] = flagRecorded
	r[fSendLag] = uint64(rec.SendLag())
	r[fReadLag] = uint64(rec.ReadLag)
	if !rec.NotSent {
		o := FromRecord(rec)
		a.fill(&r, &o)
		if rec.Success && rec.EndedOnStopString() {
			r[fFlags] |= flagStopString
		}
		if rec.Success && rec.EndedOnStopToken() {
			r[fFlags] |= flagStopToken
		}
	}
	a.put(rec.Index, &r)
}

// addOutcome adds outcome i (ComputeOutcomes).
func (a *Accumulator) addOutcome(i int, o *Outcome) {
	var r row
	r[fFlags] = flagRecorded
	a.fill(&r, o)
	a.put(i, &r)
}

// fill sets the row of a sent request from its outcome.
func (a *Accumulator) fill(r *row, o *Outcome) {
	r[fFlags] |= flagSent
	if o.Success {
		r[fFlags] |= flagSuccess
	}
	r[fPromptLen] = uint64(o.PromptLen)
	r[fOutputTokens] = uint64(o.OutputTokens)
	r[fSeqs] = uint64(o.InputSequences)
	r.setF(fAudio, o.InputAudioSeconds)
	if o.ReasoningChunks > 0 {
		r[fFlags] |= flagReasoning
		r.setF(fTTFR, o.TTFR)
		r[fRChunks], r[fRTokens] = uint64(o.ReasoningChunks), uint64(o.ReasoningTokens)
		if o.TTFA > 0 {
			r[fFlags] |= flagAnswered
			r.setF(fTTFA, o.TTFA)
		}
	}
	r.setF(fTTFT, o.TTFT)
	r.setF(fLatency, o.Latency)
	r.setF(fStart, o.StartTime)
	r.setF(fQueue, o.QueueTime)
	r[fITLOff], r[fITLN] = uint64(a.itls.off/8), uint64(len(o.ITLs))
	for _, v := range o.ITLs {
		binary.LittleEndian.PutUint64(a.itlBuf[:], math.Float64bits(v))
		a.itls.write(a.itlBuf[:])
	}
	r[fTextOff], r[fTextLen] = uint64(a.texts.off), uint64(len(o.GeneratedText))
	a.texts.write([]byte(o.GeneratedText))
	r[fErrOff], r[fErrLen] = uint64(a.texts.off), uint64(len(o.Error))
	a.texts.write([]byte(o.Error))
	a.added++
}

func (a *Accumulator) put(i int, r *row) {
	if i < 0 {
		a.keep(fmt.Errorf("internal error: a record with index %d", i))
		return
	}
	a.n = max(a.n, i+1)
	a.keep(a.rows.put(i, r))
}

func (a *Accumulator) keep(err error) {
	if a.err == nil && err != nil {
		a.err = err
	}
}

// Len is the number of records added and kept (sent).
func (a *Accumulator) Len() int { return a.added }

// Lags are the dispatcher's send lags (release minus intended time) over
// every request released, and the read lags of the requests that have
// one, as seconds (see record.Record.SendLag, ReadLag): the percentiles
// are numpy's.
type Lags struct {
	// Requests is the number of requests released; ReadRequests the
	// number with a read lag.
	Requests, ReadRequests    int
	SendP50, SendP99, SendMax float64
	ReadP50, ReadP99, ReadMax float64
}

// Lags returns the lags of the requests added; valid after Close.
func (a *Accumulator) Lags() Lags { return a.lags }

// TokenAccounting is the comparison of the client's and the server's
// output counts (the TokenAccounting type), made by Close when
// Options.AccountTokens and CountTokens are set; nil otherwise.
func (a *Accumulator) TokenAccounting() *TokenAccounting { return a.accounting }

// flush writes everything Add buffered.
func (a *Accumulator) flush() error {
	a.keep(a.rows.flush())
	a.keep(a.itls.flush())
	a.keep(a.texts.flush())
	return a.err
}

// each yields the sent requests' outcomes in request order, with their
// rows; with texts, GeneratedText and Error are read too. The outcome and
// its ITLs are valid until the next.
func (a *Accumulator) each(texts bool, errp *error) iter.Seq2[*Outcome, *row] {
	return func(yield func(*Outcome, *row) bool) {
		itls := newWindowReader(a.itls.b, a.itls.off)
		txt := newWindowReader(a.texts.b, a.texts.off)
		var o Outcome
		for _, r := range a.rows.rows(0, a.n, errp) {
			if !r.has(flagSent) {
				continue
			}
			o = Outcome{Success: r.has(flagSuccess), PromptLen: int(r[fPromptLen]), OutputTokens: int(r[fOutputTokens]),
				InputSequences: int(r[fSeqs]), ReasoningChunks: int(r[fRChunks]), ReasoningTokens: int(r[fRTokens]),
				TTFR: r.f(fTTFR), TTFA: r.f(fTTFA), InputAudioSeconds: r.f(fAudio), TTFT: r.f(fTTFT), Latency: r.f(fLatency), StartTime: r.f(fStart), QueueTime: r.f(fQueue), ITLs: o.ITLs[:0]}
			if n := int(r[fITLN]); n > 0 {
				raw, err := itls.at(8*int64(r[fITLOff]), 8*n)
				if err != nil {
					*errp = err
					return
				}
				for k := range n {
					o.ITLs = append(o.ITLs, math.Float64frombits(binary.LittleEndian.Uint64(raw[8*k:])))
				}
			}
			if texts || !o.Success {
				s, err := txt.at(int64(r[fErrOff]), int(r[fErrLen]))
				if err != nil {
					*errp = err
					return
				}
				o.Error = string(s)
			}
			if texts {
				s, err := txt.at(int64(r[fTextOff]), int(r[fTextLen]))
				if err != nil {
					*errp = err
					return
				}
				o.GeneratedText = string(s)
			}
			if !yield(&o, r) {
				return
			}
		}
	}
}

// count counts the generated texts with Options.CountTokens, on a worker
// per core: every success's with Options.AccountTokens, else only those
// of the successes whose server reported no completion_tokens (the ones
// vLLM's rule counts). Each count goes into its row.
func (a *Accumulator) count() error {
	c := a.opt.CountTokens
	if c == nil {
		return nil
	}
	const chunk = 4096
	var mu sync.Mutex
	var first error
	next := 0
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			txt := newWindowReader(a.texts.b, a.texts.off)
			raw := make([]byte, chunk*rowSize)
			rows := make([]row, chunk)
			for {
				mu.Lock()
				from := next
				next += chunk
				mu.Unlock()
				if from >= a.n || first != nil {
					return
				}
				m := min(chunk, a.n-from)
				err := func() error {
					k, err := a.rows.b.ReadAt(raw[:m*rowSize], int64(from)*rowSize)
					if err != nil && !errors.Is(err, io.EOF) {
						return err
					}
					clear(rows[k/rowSize : m])
					decodeRows(raw[:k/rowSize*rowSize], rows[:k/rowSize])
					for i := range rows[:m] {
						r := &rows[i]
						if !r.has(flagSuccess) || !a.opt.AccountTokens && r[fOutputTokens] > 0 {
							continue
						}
						s, err := txt.at(int64(r[fTextOff]), int(r[fTextLen]))
						if err != nil {
							return err
						}
						r[fCount] = uint64(c(string(s))) + 1
					}
					encodeRows(rows[:m], raw)
					_, err = a.rows.b.WriteAt(raw[:m*rowSize], int64(from)*rowSize)
					return err
				}()
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// outputLenOf is outputLen of a success from its row: the server's
// completion_tokens, else the client's count, else 1.
func outputLenOf(r *row, hasTokenizer bool) int {
	switch {
	case r[fOutputTokens] > 0:
		return int(r[fOutputTokens])
	case hasTokenizer:
		return int(r[fCount]) - 1
	default:
		return 1
	}
}

// Close computes the summary of the records added, in request order (by
// Index), for a run that lasted duration: ComputeOutcomes's figures. The
// per-request arrays are left empty (see Arrays). Its error is a spill
// file that could not be written or read.
func (a *Accumulator) Close(duration time.Duration) (*Summary, error) {
	return a.close(duration.Seconds())
}

func (a *Accumulator) close(dur float64) (*Summary, error) {
	if err := a.flush(); err != nil {
		return nil, err
	}
	if err := a.count(); err != nil {
		return nil, err
	}
	opt := a.opt
	s := &Summary{Duration: dur, HasTokenizer: opt.CountTokens != nil, Pooling: opt.Pooling}
	var cols []*column
	newCol := func() *column {
		c, err := newColumn(opt.SpillDir)
		if err != nil {
			a.keep(err)
			c = &column{b: &memBlob{}}
			c.a = newAppender(c.b)
		}
		cols = append(cols, c)
		return c
	}
	defer func() {
		for _, c := range cols {
			c.close()
		}
	}()
	ttfts, tpots, itls, e2els, queues, e2elsQueue := newCol(), newCol(), newCol(), newCol(), newCol(), newCol()
	ttfrs, ttfas := newCol(), newCol()
	audio := 0.0 // the successes' input audio seconds (vLLM's rtfx numerator)
	var rs ReasoningSummary
	starts, ends, sendLags, readLags := newCol(), newCol(), newCol(), newCol()
	var ta TokenAccounting
	good := 0
	t0, maxEnd := math.Inf(1), math.Inf(-1)
	var err error
	for _, r := range a.rows.rows(0, a.n, &err) {
		if !r.has(flagRecorded) {
			continue
		}
		sendLags.add(time.Duration(r[fSendLag]).Seconds())
		if rl := time.Duration(r[fReadLag]); rl > 0 {
			readLags.add(rl.Seconds())
		}
	}
	if err != nil {
		return nil, err
	}
	for o, r := range a.each(false, &err) {
		outLen := 0
		if !o.Success {
			s.Failed++
			if len(s.FailureErrors) < maxFailureErrors {
				s.FailureErrors = append(s.FailureErrors, o.Error)
			}
		} else if opt.Pooling {
			s.TotalInput += o.PromptLen
			s.TotalInputSequences += o.InputSequences
			e2els.add(o.Latency)
			queues.add(o.QueueTime)
			e2elsQueue.add(o.Latency + o.QueueTime)
			starts.add(o.StartTime)
			ends.add(o.StartTime + o.Latency)
			t0 = min(t0, o.StartTime)
			maxEnd = max(maxEnd, o.StartTime+o.Latency)
			s.Completed++
		} else {
			outLen = outputLenOf(r, s.HasTokenizer)
			s.TotalOutput += outLen
			s.TotalInput += o.PromptLen
			tpot := 0.0
			if outLen > 1 {
				tpot = (o.Latency - o.TTFT) / float64(outLen-1)
				tpots.add(tpot)
			}
			if isGood(opt.Goodput, o.TTFT, tpot, o.Latency) {
				good++
			}
			for _, v := range o.ITLs {
				itls.add(v)
			}
			ttfts.add(o.TTFT)
			e2els.add(o.Latency)
			queues.add(o.QueueTime)
			e2elsQueue.add(o.Latency + o.QueueTime)
			starts.add(o.StartTime)
			ends.add(o.StartTime + o.Latency)
			t0 = min(t0, o.StartTime)
			maxEnd = max(maxEnd, o.StartTime+o.Latency)
			audio += o.InputAudioSeconds
			s.Completed++
			if opt.AccountTokens && s.HasTokenizer {
				// The text holds the answer only: a reasoning stream's
				// server count loses the reasoning tokens it reported.
				server := int(r[fOutputTokens])
				if r.has(flagReasoning) && r[fRTokens] > 0 && server > 0 {
					server = max(server-int(r[fRTokens]), 0)
				}
				ta.add(server, int(r[fCount])-1, r.has(flagStopString), r.has(flagStopToken))
			}
			if r.has(flagReasoning) {
				rs.add(o, outLen, ttfrs, ttfas)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if opt.AccountTokens && s.HasTokenizer {
		a.accounting = &ta
	}

	s.RTFx = audio / dur
	s.RequestThroughput = float64(s.Completed) / dur
	s.InputSequenceThroughput = float64(s.TotalInputSequences) / dur
	s.OutputThroughput = float64(s.TotalOutput) / dur
	s.TotalTokenThroughput = float64(s.TotalInput+s.TotalOutput) / dur
	if len(opt.Goodput) > 0 {
		g := float64(good) / dur
		s.RequestGoodput = &g
	}
	if s.Completed > 0 {
		if err := a.bins(s, t0, maxEnd); err != nil {
			return nil, err
		}
		peak, err := peakOverlap(starts, ends)
		if err != nil {
			return nil, err
		}
		s.PeakOverlappingRequests = peak
	}

	values := map[string]*column{TTFT: ttfts, TPOT: tpots, ITL: itls, E2EL: e2els}
	if opt.MaxConcurrencySet {
		values[ClientQueueTime] = queues
		if opt.RequestRateFinite {
			values[E2ELIncludingClientQueue] = e2elsQueue
		}
	}
	for _, name := range MetricOrder {
		c, ok := values[name]
		if !ok || !slices.Contains(opt.PercentileMetrics, name) {
			continue
		}
		if (!s.HasTokenizer || opt.Pooling) && (name == TTFT || name == TPOT || name == ITL) {
			continue
		}
		st, err := c.describe(name, opt.Percentiles)
		if err != nil {
			return nil, err
		}
		s.Metrics = append(s.Metrics, st)
	}
	if rs.Requests > 0 {
		if rs.TTFR, err = ttfrs.describe("ttfr", opt.Percentiles); err != nil {
			return nil, err
		}
		if rs.TTFA, err = ttfas.describe("ttfa", opt.Percentiles); err != nil {
			return nil, err
		}
		s.Reasoning = &rs
	}
	if opt.SteadyState != nil && !opt.Pooling {
		if s.SteadyState, err = a.steady(dur, t0, maxEnd, starts, ends, s.HasTokenizer, newCol); err != nil {
			return nil, err
		}
	}
	a.lags, err = lagsOf(sendLags, readLags)
	return s, err
}

// maxFailureErrors is how many failures' texts a summary keeps, in request
// order (vLLM prints ten).
const maxFailureErrors = 10

// isGood reports whether a success meets every configured SLO (see
// countGood).
func isGood(slo map[string]float64, ttft, tpot, e2el float64) bool {
	checked := false
	for _, c := range [...]struct {
		name string
		v    float64
	}{{TTFT, ttft}, {TPOT, tpot}, {E2EL, e2el}} {
		if ms, ok := slo[c.name]; ok {
			checked = true
			if !(ms/1000 >= c.v) {
				return false
			}
		}
	}
	return checked
}

// bins sets vLLM's one-second-bin figures (peakOutputTokensPerSecond,
// concurrentRequestsPerSecond) from the successes, whose start times
// begin at t0 and whose ends reach maxEnd.
func (a *Accumulator) bins(s *Summary, t0, maxEnd float64) error {
	if math.IsNaN(maxEnd - t0) {
		return nil
	}
	nbins := int(math.Ceil(maxEnd-t0)) + 1
	tokens := make([]int, nbins)
	active := make([]int, nbins)
	add := func(t float64) {
		d := t - t0
		if d <= -1 || math.IsNaN(d) {
			return
		}
		if b := int(d); b < nbins {
			tokens[b]++
		}
	}
	var err error
	for o := range a.each(false, &err) {
		if !o.Success {
			continue
		}
		t := o.StartTime + o.TTFT
		add(t)
		for _, itl := range o.ITLs {
			t += itl
			add(t)
		}
		first, last := int(o.StartTime-t0), int(o.StartTime+o.Latency-t0)
		for b := max(first, 0); b <= last && b < nbins; b++ {
			active[b]++
		}
	}
	s.MaxOutputTokensPerS = float64(slices.Max(tokens))
	s.MaxConcurrentRequests = slices.Max(active)
	return err
}

// peakOverlap is peakConcurrency from the successes' start and end times:
// the sorted ends and starts merged, an end before a start at equal times.
func peakOverlap(starts, ends *column) (int, error) {
	var errS, errE error
	nextS, stopS := iter.Pull(sortedSeq(starts, &errS))
	defer stopS()
	nextE, stopE := iter.Pull(sortedSeq(ends, &errE))
	defer stopE()
	s, okS := nextS()
	e, okE := nextE()
	cur, peak := 0, 0
	for okS {
		if okE && !(e > s) {
			cur--
			e, okE = nextE()
			continue
		}
		cur++
		peak = max(peak, cur)
		s, okS = nextS()
	}
	return peak, errors.Join(errS, errE)
}

func sortedSeq(c *column, errp *error) iter.Seq[float64] {
	return func(yield func(float64) bool) { *errp = c.sorted(yield) }
}

// lagsOf is Lags from the send and read lag columns.
func lagsOf(send, read *column) (Lags, error) {
	l := Lags{Requests: send.n, ReadRequests: read.n}
	var err error
	if send.n > 0 {
		l.SendP50, l.SendP99, l.SendMax, err = quantiles(send)
	}
	if read.n > 0 && err == nil {
		l.ReadP50, l.ReadP99, l.ReadMax, err = quantiles(read)
	}
	return l, err
}

// quantiles are numpy's 50th and 99th percentiles and the maximum of a
// column that is not empty.
func quantiles(c *column) (p50, p99, maxV float64, err error) {
	ranks := append(numpy.PercentileRanks(c.n, 50), numpy.PercentileRanks(c.n, 99)...)
	ranks = append(ranks, c.n-1)
	at, err := c.ranked(ranks)
	get := func(k int) float64 { return at[k] }
	return numpy.PercentileOf(c.n, get, 50), numpy.PercentileOf(c.n, get, 99), at[c.n-1], err
}

// Arrays fills the summary's per-request arrays from the records added, in
// request order: Latencies and QueueTimes always, the others (InputLens,
// OutputLens, TTFTs, ITLs, StartTimes, GeneratedTexts, Errors) with
// detailed. They hold the run in memory: call it only for a result that
// saves them. Call it after Close, before Release.
func (a *Accumulator) Arrays(s *Summary, detailed bool) error {
	var err error
	s.Latencies, s.QueueTimes = []float64{}, []float64{}
	if detailed {
		s.InputLens, s.OutputLens, s.TTFTs, s.ITLs = []int{}, []int{}, []float64{}, [][]float64{}
		s.StartTimes, s.GeneratedTexts, s.Errors = []float64{}, []string{}, []string{}
	}
	for o, r := range a.each(detailed, &err) {
		s.Latencies = append(s.Latencies, o.Latency)
		s.QueueTimes = append(s.QueueTimes, o.QueueTime)
		if !detailed {
			continue
		}
		outLen := 0
		if o.Success && !s.Pooling {
			outLen = outputLenOf(r, s.HasTokenizer)
		}
		s.InputLens = append(s.InputLens, o.PromptLen)
		s.OutputLens = append(s.OutputLens, outLen)
		s.TTFTs = append(s.TTFTs, o.TTFT)
		s.ITLs = append(s.ITLs, append([]float64{}, o.ITLs...))
		s.StartTimes = append(s.StartTimes, o.StartTime)
		s.GeneratedTexts = append(s.GeneratedTexts, o.GeneratedText)
		s.Errors = append(s.Errors, o.Error)
	}
	return err
}

// steady is ComputeSteadyState from the spilled figures: the window from
// the successes' sorted start and end times (t0 the first start, maxEnd
// the last end), then its metrics from a pass over the outcomes.
func (a *Accumulator) steady(dur, t0, maxEnd float64, starts, ends *column, hasTok bool, newCol func() *column) (*SteadyState, error) {
	opt := *a.opt.SteadyState
	if opt.Target <= 0 || starts.n == 0 {
		return nil, nil
	}
	thr := opt.Threshold
	if thr <= 0 {
		thr = DefaultSteadyThreshold
	}
	w := SteadyWindow{TargetConcurrency: opt.Target, Threshold: thr,
		ThresholdAbs: max(1, int(math.Ceil(thr*float64(opt.Target)))), RequestsTotal: starts.n}
	var errS, errE error
	up, down, peak := steadySweep(sortedSeq(starts, &errS), sortedSeq(ends, &errE), w.ThresholdAbs)
	if err := errors.Join(errS, errE); err != nil {
		return nil, err
	}
	w.ObservedPeak = peak
	if math.IsNaN(up) {
		return nil, nil
	}
	if math.IsNaN(down) {
		down = maxEnd
	}
	count := func(c *column) (int, error) {
		n := 0
		r := c.reader()
		var v [1]float64
		for range c.n {
			if err := r.ReadFloats(v[:]); err != nil {
				return 0, err
			}
			if v[0] >= up && v[0] < down {
				n++
			}
		}
		return n, nil
	}
	var err error
	if w.RequestsStarted, err = count(starts); err != nil {
		return nil, err
	}
	if w.RequestsCompleted, err = count(ends); err != nil {
		return nil, err
	}
	w, ok := finishWindow(w, up, down, t0, dur, opt)
	if !ok {
		return nil, nil
	}
	ttfts, tpots := newCol(), newCol()
	f := steadyFold{start: w.StartS + t0, end: w.EndS + t0, ttft: ttfts.add, tpot: tpots.add}
	for o, r := range a.each(false, &err) {
		if o.Success {
			f.add(o, outputLenOf(r, hasTok))
		}
	}
	if err != nil {
		return nil, err
	}
	ss := f.state(w)
	if ss.TTFT, err = ttfts.steadyStats(TTFT, opt.Percentiles); err != nil {
		return nil, err
	}
	if ss.TPOT, err = tpots.steadyStats(TPOT, SteadyTPOTPercentiles); err != nil {
		return nil, err
	}
	return ss, nil
}

// ReasoningSummary is what a run's reasoning streams showed (vbench's,
// beside vLLM's metrics, whose TTFT counts the first message of either
// kind): over the successes whose stream carried reasoning, the times to
// their first reasoning and first answer text, and their tokens apart.
type ReasoningSummary struct {
	// Requests counts the successes whose stream carried reasoning;
	// Answered those of them that then carried answer text.
	Requests, Answered int
	// ReasoningTokens sums their reasoning tokens: the server's count
	// (usage's reasoning tokens) where it sent one, else their reasoning
	// messages. AnswerTokens sums their output length less that.
	ReasoningTokens, AnswerTokens int
	// TTFR is the time from the request to its first reasoning text, and
	// TTFA to its first answer text after the reasoning (over Answered),
	// in milliseconds as the latency metrics are.
	TTFR, TTFA MetricStats
}

// add counts one success that reasoned, whose output length is outLen.
func (rs *ReasoningSummary) add(o *Outcome, outLen int, ttfrs, ttfas *column) {
	rs.Requests++
	reasoning := o.ReasoningTokens
	if reasoning == 0 {
		reasoning = o.ReasoningChunks
	}
	rs.ReasoningTokens += reasoning
	rs.AnswerTokens += max(outLen-reasoning, 0)
	ttfrs.add(o.TTFR)
	if o.TTFA > 0 {
		rs.Answered++
		ttfas.add(o.TTFA)
	}
}
