package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/scenario"
)

// TimedTraceSpec is the timed_trace kind's section of a scenario: vLLM's
// timed_trace dataset.
type TimedTraceSpec struct {
	// Path is the JSONL trace (--dataset-path).
	Path string `json:"path"`
	// ChunkHashSize is the number of tokens each hash id stands for
	// (--timed-trace-chunk-hash-size).
	ChunkHashSize int `json:"chunk_hash_size"`
	// SecMultiplier converts trace timestamps to seconds
	// (--timed-trace-sec-multiplier).
	SecMultiplier float64 `json:"sec_multiplier"`
	// LabelTimestamp, LabelInputLength, LabelOutputLength and LabelHashIDs
	// are the JSON keys of each trace line (--timed-trace-label-*).
	LabelTimestamp    string `json:"label_timestamp"`
	LabelInputLength  string `json:"label_input_length"`
	LabelOutputLength string `json:"label_output_length"`
	LabelHashIDs      string `json:"label_hash_ids"`
	// SelfTimed replays the trace timestamps instead of Load.RequestRate
	// (--self-timed); nil means replay.
	SelfTimed *bool `json:"self_timed,omitempty"`
}

// Replays reports whether the run sends each request at its trace time:
// SelfTimed, which vLLM defaults to true for timed_trace.
func (t *TimedTraceSpec) Replays() bool { return t.SelfTimed == nil || *t.SelfTimed }

func init() {
	Register(Kind{Name: "timed_trace", Spec: newSpec[TimedTraceSpec](), New: newTimedTraceSource,
		Backends: scenario.CompletionsBackends, IgnoreEOS: IgnoreEOSAlways, NeedsTokenizer: true,
		SelfTimed:       func(d scenario.Dataset) bool { return d.Spec.(*TimedTraceSpec).Replays() },
		ArrivalSeedZero: true})
}

// timedTraceSource is the timed_trace kind's Source.
type timedTraceSource struct{ spec TimedTraceSpec }

func newTimedTraceSource(spec scenario.Dataset) (Source, error) {
	t, err := specOf[TimedTraceSpec](spec)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Path == "":
		return nil, errors.New("dataset.timed_trace.path (--dataset-path) is required: the JSONL trace")
	case t.ChunkHashSize <= 0:
		return nil, fmt.Errorf("dataset.timed_trace.chunk_hash_size (--timed-trace-chunk-hash-size) is %d; it must be at least 1", t.ChunkHashSize)
	case !(t.SecMultiplier > 0) || math.IsInf(t.SecMultiplier, 0):
		return nil, fmt.Errorf("dataset.timed_trace.sec_multiplier (--timed-trace-sec-multiplier) is %v; it must be a positive number", t.SecMultiplier)
	}
	for _, l := range traceLabelFlags(*t) {
		if l.key == "" {
			return nil, fmt.Errorf("dataset.timed_trace.%s (%s) is empty: it names a JSON key of each line", l.field, l.flag)
		}
	}
	return timedTraceSource{spec: *t}, nil
}

// traceLabel is one of the trace's JSON keys with the field and flag that
// name it.
type traceLabel struct{ key, field, flag string }

func traceLabelFlags(t TimedTraceSpec) [4]traceLabel {
	return [4]traceLabel{
		{t.LabelTimestamp, "label_timestamp", "--timed-trace-label-timestamp"},
		{t.LabelInputLength, "label_input_length", "--timed-trace-label-input-length"},
		{t.LabelOutputLength, "label_output_length", "--timed-trace-label-output-length"},
		{t.LabelHashIDs, "label_hash_ids", "--timed-trace-label-hash-ids"},
	}
}

// Requests prints vLLM's line about the trace options, then reads the
// trace line by line, yielding each request as its line is read.
func (s timedTraceSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		t := s.spec
		if env.Stdout == nil {
			env.Stdout = io.Discard
		}
		fmt.Fprintf(env.Stdout, "timed-trace: chunk_size: %d, sec_multiplier: %s, label_ts: \"%s\", label_input_length: \"%s\", label_output_length: \"%s\", label_hash_ids: \"%s\"\n",
			t.ChunkHashSize, py.Repr(t.SecMultiplier), t.LabelTimestamp, t.LabelInputLength, t.LabelOutputLength, t.LabelHashIDs)
		f, err := openDataFile("timed_trace", t.Path, "a JSONL trace, one request per line")
		if err != nil {
			yield(Request{}, err)
			return
		}
		defer f.Close()
		// vLLM's TimedTrace reseeds Python's global generator with its
		// dataset seed, which --seed does not reach (0), and draws nothing
		// from it: random LoRA assignment continues from there.
		if env.PyGlobal != nil {
			env.PyGlobal.Seed(0)
		}
		for r, err := range TimedTrace(ctx, f, t, env) {
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// TraceLine is one line of a timed trace.
type TraceLine struct {
	// Timestamp is the line's timestamp as the trace has it (before the
	// multiplier).
	Timestamp float64
	// InputLength and OutputLength are the line's lengths in tokens.
	InputLength, OutputLength int
	// HashIDs are the line's prompt block ids, in order.
	HashIDs []uint64
}

// TraceKeys are the JSON keys of a trace line's members.
type TraceKeys struct {
	Timestamp, InputLength, OutputLength, HashIDs string
}

// keysOf returns the keys t names.
func keysOf(t TimedTraceSpec) TraceKeys {
	return TraceKeys{t.LabelTimestamp, t.LabelInputLength, t.LabelOutputLength, t.LabelHashIDs}
}

// ParseTraceLine parses one non-blank line of a timed trace: a JSON object
// with a timestamp (a number, or a string holding one, as vLLM's float()
// takes it), an input and an output length (non-negative integers) and a
// list of hash ids (non-negative integers below 2⁶⁴) under the given keys;
// other members are ignored. Its errors say what was expected, naming the
// flag that sets the key; the caller adds the file and line.
//
// Where vLLM takes a missing hash-id list as an empty one (and then sends
// an empty prompt, which the server refuses), vbench refuses the line.
func ParseTraceLine(b []byte, keys TraceKeys) (TraceLine, error) {
	var l TraceLine
	if len(b) == 0 || b[0] != '{' {
		if !json.Valid(b) {
			return l, invalidJSON(b)
		}
		return l, fmt.Errorf("a JSON %s, expected an object with %q, %q, %q and %q", jsonKind(b), keys.Timestamp, keys.InputLength, keys.OutputLength, keys.HashIDs)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return l, invalidJSON(b)
	}
	member := func(key, flag string) (json.RawMessage, error) {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			have := make([]string, 0, len(obj))
			for k := range obj {
				have = append(have, strconv.Quote(k))
			}
			slices.Sort(have)
			if len(have) > 6 {
				have = append(have[:6], "...")
			}
			what := "no"
			if ok {
				what = "a null"
			}
			return nil, fmt.Errorf("%s %q (the key %s names); the line has %s", what, key, flag, orNone(strings.Join(have, ", ")))
		}
		return raw, nil
	}
	raw, err := member(keys.Timestamp, "--timed-trace-label-timestamp")
	if err != nil {
		return l, err
	}
	if l.Timestamp, err = traceTimestamp(raw); err != nil {
		return l, fmt.Errorf("%q is %s: %w", keys.Timestamp, clip(raw), err)
	}
	for _, m := range []struct {
		key, flag string
		dst       *int
	}{{keys.InputLength, "--timed-trace-label-input-length", &l.InputLength}, {keys.OutputLength, "--timed-trace-label-output-length", &l.OutputLength}} {
		raw, err := member(m.key, m.flag)
		if err != nil {
			return l, err
		}
		n, ok := traceCount(raw)
		if !ok {
			return l, fmt.Errorf("%q is %s, expected a non-negative integer", m.key, clip(raw))
		}
		*m.dst = n
	}
	if raw, err = member(keys.HashIDs, "--timed-trace-label-hash-ids"); err != nil {
		return l, err
	}
	if raw[0] != '[' {
		return l, fmt.Errorf("%q is a JSON %s, expected a list of hash ids (non-negative integers)", keys.HashIDs, jsonKind(raw))
	}
	var ids []json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&ids); err != nil {
		return l, fmt.Errorf("%q is %s, expected a list of hash ids (non-negative integers)", keys.HashIDs, clip(raw))
	}
	l.HashIDs = make([]uint64, len(ids))
	for i, id := range ids {
		v, err := strconv.ParseUint(id.String(), 10, 64)
		if err != nil {
			return l, fmt.Errorf("%q[%d] is %s, expected a non-negative integer below 2^64", keys.HashIDs, i, clip(json.RawMessage(id)))
		}
		l.HashIDs[i] = v
	}
	return l, nil
}

func orNone(s string) string {
	if s == "" {
		return "no members"
	}
	return s
}

// traceTimestamp reads a timestamp as vLLM's float() takes it: a JSON
// number, or a string holding a decimal number. It must be finite.
func traceTimestamp(raw json.RawMessage) (float64, error) {
	var f float64
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, errors.New("expected a number")
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return 0, errors.New("expected a number (or a string holding one)")
		}
		f = v
	default:
		if err := json.Unmarshal(raw, &f); err != nil {
			return 0, errors.New("expected a number")
		}
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("expected a finite number")
	}
	return f, nil
}

// traceCount reads a length: a JSON number with a non-negative integral
// value (vLLM's arithmetic on it fails for anything else).
func traceCount(raw json.RawMessage) (int, bool) {
	if raw[0] == '"' || raw[0] == 't' || raw[0] == 'f' || raw[0] == '[' || raw[0] == '{' {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// traceBlocks expands hash ids into token blocks: block h is chunkSize
// token ids drawn, as random.Random(h + seed·2⁶⁴).choices(allowed,
// k=chunkSize) draws them, from the allowed ids (the tokenizer's base
// vocabulary without its special tokens, ascending). The draws are
// sequential, so a block's first n tokens are choices(allowed, k=n): a
// block is drawn as far as a prompt has needed it so far, and shared.
type traceBlocks struct {
	allowed   []int
	chunkSize int
	seed      uint64
	blocks    map[uint64][]int
}

// block returns the first n (at most chunkSize) token ids of hash id h's
// block.
func (c *traceBlocks) block(h uint64, n int) []int {
	if b := c.blocks[h]; len(b) >= n {
		return b[:n]
	}
	rng := numpy.PyRandom{MT19937: *numpy.NewMT19937Key(traceSeedKey(h, c.seed))}
	b := rng.Choices(len(c.allowed), n)
	for i, j := range b {
		b[i] = c.allowed[j]
	}
	c.blocks[h] = b
	return b
}

// traceSeedKey is the init_by_array key CPython's random.seed(h + seed·2⁶⁴)
// uses: the 32-bit words of that integer, least significant first, without
// leading zero words (one zero word for 0). With seed 0 it is
// random.seed(h)'s.
func traceSeedKey(h, seed uint64) []uint32 {
	key := []uint32{uint32(h), uint32(h >> 32), uint32(seed), uint32(seed >> 32)}
	for len(key) > 1 && key[len(key)-1] == 0 {
		key = key[:len(key)-1]
	}
	return key
}

// prompt returns the prompt of input tokens built from ids: block after
// block, the last one cut to the tokens that remain, stopping when input
// tokens are reached. It is shorter when the ids cover fewer tokens.
func (c *traceBlocks) prompt(ids []uint64, input int) []int {
	out := make([]int, 0, min(input, len(ids)*c.chunkSize))
	for _, h := range ids {
		if len(out) >= input {
			break
		}
		out = append(out, c.block(h, min(c.chunkSize, input-len(out)))...)
	}
	return out
}

// TimedTrace reads vLLM's timed_trace dataset (upstream vllm/benchmarks/datasets/datasets.py) from r, a
// JSONL trace named spec.Path in its errors, and yields one request per
// line, in file order, for the first env.NumPrompts lines:
//
//  1. each non-blank line is a TraceLine (ParseTraceLine) under the keys
//     spec names; an error names spec.Path:line and ends the sequence;
//  2. the prompt is token ids (PromptTokens): for each hash id in order,
//     its block of chunk_hash_size tokens (the last one cut short) until
//     the line's input length is reached; fewer hash ids than that needs
//     give a shorter prompt, as in vLLM (one line on env.Stderr counts
//     them). PromptLen is the prompt's length, OutputLen the line's output
//     length, ID env.IDPrefix + the line's 0-based number;
//  3. with spec.Replays(), the request is Timed at timestamp ·
//     sec_multiplier seconds from the run start (not re-based to the first
//     line, as in vLLM); a request due before the run start or before the
//     request ahead of it is due right after that one, as vLLM sends it
//     (it sleeps only until a time still ahead, and sends in order), with
//     one line on env.Stderr counting such lines.
//
// Block h holds the token ids random.Random(h + seed·2⁶⁴).choices(allowed,
// k=chunk_hash_size) picks, seed being |env.Seed| and allowed the
// tokenizer's ids [0, vocab_size) without its special ids: the same hash
// id always gives the same block, so prompts that share leading hash ids
// share those leading blocks exactly. (vLLM seeds each block with
// hash(f"{h}:{size}"), Python's per-process string hash, so its prompts
// differ from run to run; it also draws from tokenizer.get_vocab(), added
// tokens included, and draws a shortened last block afresh where vbench
// cuts the full one.) There is no shuffle and no oversampling; no lines is
// an error, and so is a line whose prompt comes out empty (vLLM would send
// it, and the server refuse it).
func TimedTrace(ctx context.Context, r io.Reader, spec TimedTraceSpec, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		fail := func(err error) { yield(Request{}, err) }
		if env.Stderr == nil {
			env.Stderr = io.Discard
		}
		if env.Tokenizer == nil {
			fail(errors.New("the timed_trace dataset needs a client tokenizer for its vocabulary"))
			return
		}
		allowed := allowedTokens(env.Tokenizer.VocabSize(), env.Tokenizer.SpecialIDs())
		if len(allowed) == 0 {
			fail(fmt.Errorf("tokenizer %s has no token ids outside its special tokens", env.Tokenizer.Name()))
			return
		}
		seed := uint64(env.Seed)
		if env.Seed < 0 {
			seed = -seed
		}
		blocks := &traceBlocks{allowed: allowed, chunkSize: spec.ChunkHashSize, seed: seed, blocks: map[uint64][]int{}}
		keys, replay := keysOf(spec), spec.Replays()
		name := spec.Path
		sent, short, early, firstEarly := 0, 0, 0, 0
		var prev time.Duration
		defer func() {
			if short > 0 {
				fmt.Fprintf(env.Stderr, "timed_trace: %d of %d lines have fewer hash ids than their input length needs (%d tokens each): their prompts are shorter, as in vLLM\n", short, sent, spec.ChunkHashSize)
			}
			if early > 0 {
				fmt.Fprintf(env.Stderr, "timed_trace: %d of %d lines (the first at %s:%d) have a %q before the run start or before the line ahead of them: each is sent right after the request ahead of it, as in vLLM (sort the trace by time to replay it as recorded)\n", early, sent, name, firstEarly, keys.Timestamp)
			}
		}()
		// errDone ends the reading early: num_prompts lines were sent, or
		// the consumer stopped.
		errDone := errors.New("done")
		err := eachLine(name, r, func(n int, b []byte) error {
			if sent >= env.NumPrompts {
				return errDone
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			l, err := ParseTraceLine(b, keys)
			if err != nil {
				return err
			}
			ids := blocks.prompt(l.HashIDs, l.InputLength)
			if len(ids) == 0 {
				return fmt.Errorf("the prompt is empty (%q %d, %d hash ids): expected a positive input length and at least one hash id", keys.InputLength, l.InputLength, len(l.HashIDs))
			}
			if len(ids) < l.InputLength {
				short++
			}
			req := Request{PromptTokens: ids, PromptLen: len(ids), OutputLen: l.OutputLength, ID: env.IDPrefix + strconv.Itoa(n-1)}
			if replay {
				secs := l.Timestamp * spec.SecMultiplier
				if secs*1e9 > math.MaxInt64 {
					return fmt.Errorf("%q is %s, a time of %s s, beyond 292 years", keys.Timestamp, py.Repr(l.Timestamp), py.Repr(secs))
				}
				// vLLM sleeps only until a time still ahead: a request due
				// before the run start or before the request ahead of it
				// goes right after that one.
				req.Time, req.Timed = time.Duration(math.Round(max(secs, 0)*1e9)), true
				if req.Time < prev || secs < 0 {
					if early == 0 {
						firstEarly = n
					}
					early++
					req.Time = prev
				}
				if sent == 0 && req.Time > time.Minute {
					fmt.Fprintf(env.Stderr, "timed_trace: the first request is due %s s after the start: the timestamps are not re-based to the first line (as in vLLM), and --timed-trace-sec-multiplier converts them to seconds (0.001 for milliseconds)\n", py.Repr(secs))
				}
				prev = req.Time
			}
			sent++
			if !yield(req, nil) {
				return errDone
			}
			return nil
		})
		switch {
		case errors.Is(err, errDone):
			return
		case err != nil:
			fail(err)
			return
		}
		if sent == 0 && env.NumPrompts > 0 {
			fail(fmt.Errorf("%s: the trace is empty: expected JSON lines, each an object with %q, %q, %q and %q", name, keys.Timestamp, keys.InputLength, keys.OutputLength, keys.HashIDs))
		}
	}
}
