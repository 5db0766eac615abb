package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
)

// vocabTokenizer is testdata/gen_timed_trace.py's VOCAB tokenizer: ids
// 0..vocab-1, of which 0, 1 and 2 are special. The timed_trace kind only
// reads its vocabulary.
type vocabTokenizer struct {
	wsTokenizer
	vocab int
}

func (vocabTokenizer) Name() string               { return "vocab" }
func (t vocabTokenizer) VocabSize() int           { return t.vocab }
func (vocabTokenizer) SpecialIDs() []int          { return []int{0, 1, 2} }
func (vocabTokenizer) NumSpecialTokensToAdd() int { return 0 }

// traceSpec is a timed_trace spec with the schema's defaults.
func traceSpec(path string) TimedTraceSpec {
	return TimedTraceSpec{Path: path, ChunkHashSize: 16, SecMultiplier: 1,
		LabelTimestamp: "timestamp", LabelInputLength: "input_length", LabelOutputLength: "output_length", LabelHashIDs: "hash_ids"}
}

// buildTrace builds the timed_trace dataset of spec.
func buildTrace(t *testing.T, spec TimedTraceSpec, env Env) ([]Request, error) {
	t.Helper()
	if env.Tokenizer == nil {
		env.Tokenizer = vocabTokenizer{vocab: 50}
	}
	if env.NumPrompts == 0 {
		env.NumPrompts = 1000
	}
	return Build(context.Background(), scenario.Dataset{Name: "timed_trace", Spec: &spec}, env)
}

// writeTrace writes lines to trace.jsonl in a temporary directory.
func writeTrace(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The first requests of testdata/timed_trace/trace.jsonl, as
// testdata/gen_timed_trace.py computes them with CPython's random: token
// ids, lengths, ids, times and order.
func TestTimedTraceMatchesGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/timed_trace_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Name          string
		Seed          int64
		ChunkHashSize int     `json:"chunk_hash_size"`
		SecMultiplier float64 `json:"sec_multiplier"`
		NumPrompts    int     `json:"num_prompts"`
		Prefix        string
		Requests      []struct {
			Tokens    []int   `json:"prompt_token_ids"`
			PromptLen int     `json:"prompt_len"`
			OutputLen int     `json:"expected_output_len"`
			RequestID string  `json:"request_id"`
			Timestamp float64 `json:"timestamp"`
		}
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden) < 3 {
		t.Fatalf("%d golden cases", len(golden))
	}
	for _, g := range golden {
		t.Run(g.Name, func(t *testing.T) {
			spec := traceSpec("testdata/timed_trace/trace.jsonl")
			spec.ChunkHashSize, spec.SecMultiplier = g.ChunkHashSize, g.SecMultiplier
			var stdout bytes.Buffer
			reqs, err := buildTrace(t, spec, Env{Seed: g.Seed, NumPrompts: g.NumPrompts, IDPrefix: g.Prefix, Stdout: &stdout})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(g.Requests) {
				t.Fatalf("%d requests, want %d", len(reqs), len(g.Requests))
			}
			for i, w := range g.Requests {
				r := reqs[i]
				want := time.Duration(math.Round(w.Timestamp * 1e9))
				if !slices.Equal(r.PromptTokens, w.Tokens) || r.PromptLen != w.PromptLen || r.OutputLen != w.OutputLen ||
					r.ID != w.RequestID || !r.Timed || r.Time != want || r.Prompt != "" {
					t.Errorf("request %d = {%v %d %d %q %v %v}, want {%v %d %d %q true %v}", i,
						r.PromptTokens, r.PromptLen, r.OutputLen, r.ID, r.Timed, r.Time, w.Tokens, w.PromptLen, w.OutputLen, w.RequestID, want)
				}
			}
			wantLine := fmt.Sprintf("timed-trace: chunk_size: %d, sec_multiplier: %s, label_ts: \"timestamp\", label_input_length: \"input_length\", label_output_length: \"output_length\", label_hash_ids: \"hash_ids\"\n",
				g.ChunkHashSize, map[float64]string{1: "1.0", 0.001: "0.001"}[g.SecMultiplier])
			if stdout.String() != wantLine {
				t.Errorf("stdout = %q, want vLLM's line %q", stdout.String(), wantLine)
			}
		})
	}
}

// Two lines that share their leading hash ids share exactly those leading
// blocks: a prefix cache sees the trace's reuse.
func TestTimedTraceSharedPrefixBlocks(t *testing.T) {
	path := writeTrace(t, `{"timestamp": 0, "input_length": 64, "output_length": 1, "hash_ids": [11, 22, 33, 44]}
{"timestamp": 1, "input_length": 64, "output_length": 1, "hash_ids": [11, 22, 55, 44]}
{"timestamp": 2, "input_length": 40, "output_length": 1, "hash_ids": [11, 22, 33]}
`)
	for _, seed := range []int64{0, 3} {
		reqs, err := buildTrace(t, traceSpec(path), Env{Tokenizer: vocabTokenizer{vocab: 100000}, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := reqs[0].PromptTokens, reqs[1].PromptTokens, reqs[2].PromptTokens
		if len(a) != 64 || len(b) != 64 || len(c) != 40 {
			t.Fatalf("prompt lengths %d %d %d, want 64 64 40", len(a), len(b), len(c))
		}
		if !slices.Equal(a[:32], b[:32]) {
			t.Errorf("seed %d: the blocks of hash ids 11 and 22 differ between lines 1 and 2", seed)
		}
		if slices.Equal(a[32:48], b[32:48]) {
			t.Errorf("seed %d: hash ids 33 and 55 give the same block", seed)
		}
		// Block 44 follows a different block: the same tokens, but a prefix
		// cache's chained hash no longer matches there.
		if !slices.Equal(a[48:], b[48:]) {
			t.Errorf("seed %d: hash id 44 gives different blocks", seed)
		}
		// Line 3 shares all of line 1's first 40 tokens: its last block is
		// block 33 cut to 8 tokens.
		if !slices.Equal(c, a[:40]) {
			t.Errorf("seed %d: line 3 is not line 1's first 40 tokens", seed)
		}
		for _, id := range a {
			if id < 3 || id >= 100000 {
				t.Fatalf("token id %d is special or outside the vocabulary", id)
			}
		}
	}
	// The seed changes every block.
	r0, _ := buildTrace(t, traceSpec(path), Env{Tokenizer: vocabTokenizer{vocab: 100000}})
	r3, _ := buildTrace(t, traceSpec(path), Env{Tokenizer: vocabTokenizer{vocab: 100000}, Seed: 3})
	if slices.Equal(r0[0].PromptTokens[:16], r3[0].PromptTokens[:16]) {
		t.Error("seeds 0 and 3 give the same block")
	}
}

// Blank lines are skipped; request ids keep vLLM's 0-based line numbers;
// with --no-self-timed the requests are not timed and the timestamps may
// go backwards; num_prompts takes the first lines.
func TestTimedTraceLinesAndNoSelfTimed(t *testing.T) {
	path := writeTrace(t, "\n"+`{"timestamp": 5, "input_length": 4, "output_length": 1, "hash_ids": [1]}`+"\n\n"+
		`{"timestamp": 2, "input_length": 4, "output_length": 1, "hash_ids": [2]}`+"\n"+
		`{"timestamp": 9, "input_length": 4, "output_length": 1, "hash_ids": [3]}`+"\n")
	spec := traceSpec(path)
	off := false
	spec.SelfTimed = &off
	reqs, err := buildTrace(t, spec, Env{IDPrefix: "p-", NumPrompts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].ID != "p-1" || reqs[1].ID != "p-3" {
		t.Fatalf("requests %+v, want ids p-1 and p-3", reqs)
	}
	for _, r := range reqs {
		if r.Timed || r.Time != 0 {
			t.Errorf("request %s is timed (%v) without self-timing", r.ID, r.Time)
		}
	}
}

// A self-timed request due before the run start, or before the request
// ahead of it, is sent right after that one, as vLLM's dispatcher (which
// sleeps only until a time still ahead) sends it; one line counts them.
func TestTimedTraceEarlyTimestamps(t *testing.T) {
	line := func(ts string) string {
		return `{"timestamp": ` + ts + `, "input_length": 4, "output_length": 1, "hash_ids": [1]}` + "\n"
	}
	path := writeTrace(t, line("-3")+line("5")+"\n"+line("2")+line("5")+line("9")+line("8.5"))
	var stderr bytes.Buffer
	reqs, err := buildTrace(t, traceSpec(path), Env{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, r := range reqs {
		if !r.Timed {
			t.Fatalf("request %s is not timed", r.ID)
		}
		got = append(got, r.Time)
	}
	want := []time.Duration{0, 5 * time.Second, 5 * time.Second, 5 * time.Second, 9 * time.Second, 9 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}
	if msg := stderr.String(); !strings.Contains(msg, "timed_trace: 3 of 6 lines (the first at "+path+":1) have a \"timestamp\" before the run start or before the line ahead of them: each is sent right after the request ahead of it, as in vLLM") {
		t.Errorf("stderr %q, want the count of early lines", msg)
	}
	// In order, nothing is said.
	stderr.Reset()
	if _, err := buildTrace(t, traceSpec(writeTrace(t, line("0")+line("0")+line("1"))), Env{Stderr: &stderr}); err != nil || stderr.Len() != 0 {
		t.Errorf("sorted trace: err %v, stderr %q", err, stderr.String())
	}
}

// Fewer hash ids than the input length needs give a shorter prompt, as in
// vLLM, with one line saying so; a far first timestamp is worth a word.
func TestTimedTraceShortPromptsAndFarStart(t *testing.T) {
	path := writeTrace(t, `{"timestamp": 3600000, "input_length": 40, "output_length": 1, "hash_ids": [1]}`+"\n")
	var stderr bytes.Buffer
	reqs, err := buildTrace(t, traceSpec(path), Env{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].PromptLen != 16 || len(reqs[0].PromptTokens) != 16 || reqs[0].Time != 3600000*time.Second {
		t.Errorf("request = %d tokens at %v, want 16 at 1000h", reqs[0].PromptLen, reqs[0].Time)
	}
	for _, want := range []string{"1 of 1 lines have fewer hash ids", "the first request is due 3600000.0 s after the start"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr = %q, want %q", stderr.String(), want)
		}
	}
}

// A block is drawn only as far as the prompts need it: a huge chunk size
// costs nothing, and a longer use of a block extends its shorter one.
func TestTimedTraceDrawsBlocksAsNeeded(t *testing.T) {
	path := writeTrace(t, `{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [9]}
{"timestamp": 1, "input_length": 12, "output_length": 1, "hash_ids": [9]}
`)
	spec := traceSpec(path)
	spec.ChunkHashSize = 1 << 30
	reqs, err := buildTrace(t, spec, Env{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := reqs[0].PromptTokens, reqs[1].PromptTokens
	if len(a) != 5 || len(b) != 12 || !slices.Equal(a, b[:5]) {
		t.Errorf("prompts %v and %v: want 5 and 12 tokens of the same block", a, b)
	}
}

// Bad lines are refused with one line naming the file:line and what was
// expected.
func TestTimedTraceErrors(t *testing.T) {
	good := `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": [1]}` + "\n"
	tests := []struct {
		name, text string
		edit       func(*TimedTraceSpec)
		want       string
	}{
		{"empty file", "", nil, `trace.jsonl: the trace is empty: expected JSON lines, each an object with "timestamp", "input_length", "output_length" and "hash_ids"`},
		{"blank lines only", "\n  \n", nil, "the trace is empty"},
		{"truncated JSON", good + `{"timestamp": 2, "input_len`, nil, "trace.jsonl:2: invalid JSON (unexpected end of JSON input): expected one JSON object per line"},
		{"not an object", `[1, 2]`, nil, `trace.jsonl:1: a JSON array, expected an object with "timestamp", "input_length", "output_length" and "hash_ids"`},
		{"missing key", `{"ts": 1, "input_length": 4, "output_length": 1, "hash_ids": [1]}`, nil,
			`trace.jsonl:1: no "timestamp" (the key --timed-trace-label-timestamp names); the line has "hash_ids", "input_length", "output_length", "ts"`},
		{"relabelled key missing", good, func(s *TimedTraceSpec) { s.LabelInputLength = "isl" },
			`trace.jsonl:1: no "isl" (the key --timed-trace-label-input-length names)`},
		{"null output length", `{"timestamp": 1, "input_length": 4, "output_length": null, "hash_ids": [1]}`, nil,
			`trace.jsonl:1: a null "output_length" (the key --timed-trace-label-output-length names)`},
		{"missing hash ids", `{"timestamp": 1, "input_length": 4, "output_length": 1}`, nil,
			`trace.jsonl:1: no "hash_ids" (the key --timed-trace-label-hash-ids names)`},
		{"string length", `{"timestamp": 1, "input_length": "4", "output_length": 1, "hash_ids": [1]}`, nil,
			`trace.jsonl:1: "input_length" is "4", expected a non-negative integer`},
		{"fractional length", `{"timestamp": 1, "input_length": 4, "output_length": 1.5, "hash_ids": [1]}`, nil,
			`trace.jsonl:1: "output_length" is 1.5, expected a non-negative integer`},
		{"negative length", `{"timestamp": 1, "input_length": -4, "output_length": 1, "hash_ids": [1]}`, nil,
			`"input_length" is -4, expected a non-negative integer`},
		{"boolean timestamp", `{"timestamp": true, "input_length": 4, "output_length": 1, "hash_ids": [1]}`, nil,
			`trace.jsonl:1: "timestamp" is true: expected a number`},
		{"word timestamp", `{"timestamp": "soon", "input_length": 4, "output_length": 1, "hash_ids": [1]}`, nil,
			`trace.jsonl:1: "timestamp" is "soon": expected a number (or a string holding one)`},
		{"hash ids not a list", `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": 7}`, nil,
			`trace.jsonl:1: "hash_ids" is a JSON number, expected a list of hash ids (non-negative integers)`},
		{"negative hash id", `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": [1, -2]}`, nil,
			`trace.jsonl:1: "hash_ids"[1] is -2, expected a non-negative integer below 2^64`},
		{"huge hash id", `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": [18446744073709551616]}`, nil,
			`"hash_ids"[0] is 18446744073709551616, expected a non-negative integer below 2^64`},
		{"string hash id", `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": ["a"]}`, nil,
			`trace.jsonl:1: "hash_ids" is ["a"], expected a list of hash ids`},
		{"empty prompt", `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": []}`, nil,
			`trace.jsonl:1: the prompt is empty ("input_length" 4, 0 hash ids): expected a positive input length and at least one hash id`},
		{"zero chunk size", good, func(s *TimedTraceSpec) { s.ChunkHashSize = 0 },
			"dataset.timed_trace.chunk_hash_size (--timed-trace-chunk-hash-size) is 0; it must be at least 1"},
		{"empty label", good, func(s *TimedTraceSpec) { s.LabelHashIDs = "" },
			"dataset.timed_trace.label_hash_ids (--timed-trace-label-hash-ids) is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := traceSpec(writeTrace(t, tt.text))
			if tt.edit != nil {
				tt.edit(&spec)
			}
			_, err := buildTrace(t, spec, Env{})
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("err = %q, want one line containing %q", msg, tt.want)
			}
		})
	}
	if _, err := buildTrace(t, traceSpec(filepath.Join(t.TempDir(), "missing.jsonl")), Env{}); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: err = %v", err)
	}
}

// vLLM's TimedTrace reseeds Python's global generator with 0 (its dataset
// seed; --seed does not reach it) and draws nothing from it.
func TestTimedTraceReseedsPythonRandom(t *testing.T) {
	path := writeTrace(t, `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": [1]}`)
	global := numpy.NewPyRandom(42)
	global.Random()
	if _, err := buildTrace(t, traceSpec(path), Env{Seed: 42, PyGlobal: global}); err != nil {
		t.Fatal(err)
	}
	if got, want := global.Random(), numpy.NewPyRandom(0).Random(); got != want {
		t.Errorf("global random() after sampling = %v, want random.seed(0)'s first %v", got, want)
	}
}

// The kind forces ignore_eos with every backend and needs a tokenizer.
func TestTimedTraceKind(t *testing.T) {
	k, ok := Lookup("timed_trace")
	if !ok || !k.ForcesIgnoreEOS(false) || !k.ForcesIgnoreEOS(true) || !k.NeedsTokenizer {
		t.Fatalf("timed_trace kind = %+v, %v", k, ok)
	}
	path := writeTrace(t, `{"timestamp": 1, "input_length": 4, "output_length": 1, "hash_ids": [1]}`)
	_, err := Build(context.Background(), scenario.Dataset{Name: "timed_trace", Spec: &TimedTraceSpec{Path: path, ChunkHashSize: 16, SecMultiplier: 1,
		LabelTimestamp: "timestamp", LabelInputLength: "input_length", LabelOutputLength: "output_length", LabelHashIDs: "hash_ids"}}, Env{NumPrompts: 1})
	if err == nil || !strings.Contains(err.Error(), "needs a client tokenizer") {
		t.Errorf("without a tokenizer: err = %v", err)
	}
}

// ParseTraceLine never panics, and what it accepts is consistent: lengths
// and ids in range, a finite timestamp, and the same result from its own
// canonical re-encoding.
func FuzzParseTraceLine(f *testing.F) {
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 10, "output_length": 3, "hash_ids": [0, 1, 2]}`,
		`{"timestamp": "500.5", "input_length": 20, "output_length": 1, "hash_ids": [18446744073709551615]}`,
		`{"timestamp": 1e3, "input_length": 2.0, "output_length": 0, "hash_ids": [], "x": {"y": [1]}}`,
		`{"timestamp": null}`, `[1]`, `{"timestamp": 1, "input_length`, `"x"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	keys := TraceKeys{"timestamp", "input_length", "output_length", "hash_ids"}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseTraceLine(b, keys)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if l.InputLength < 0 || l.OutputLength < 0 || math.IsInf(l.Timestamp, 0) || math.IsNaN(l.Timestamp) {
			t.Fatalf("accepted %q as %+v", b, l)
		}
		ids := make([]string, len(l.HashIDs))
		for i, id := range l.HashIDs {
			ids[i] = fmt.Sprint(id)
		}
		canon := fmt.Sprintf(`{"timestamp": %v, "input_length": %d, "output_length": %d, "hash_ids": [%s]}`,
			strings.Replace(fmt.Sprint(l.Timestamp), "+", "", 1), l.InputLength, l.OutputLength, strings.Join(ids, ","))
		again, err := ParseTraceLine([]byte(canon), keys)
		if err != nil || again.Timestamp != l.Timestamp || again.InputLength != l.InputLength ||
			again.OutputLength != l.OutputLength || !slices.Equal(again.HashIDs, l.HashIDs) {
			t.Fatalf("%q gave %+v; its re-encoding %q gives %+v, %v", b, l, canon, again, err)
		}
	})
}

// BenchmarkTimedTrace builds a Mooncake-sized slice of trace: 1000 lines of
// 16 hash ids of 512 tokens (8192-token prompts), half of each prompt a
// prefix shared with 9 other lines.
func BenchmarkTimedTrace(b *testing.B) {
	var buf bytes.Buffer
	for i := range 1000 {
		ids := make([]string, 16)
		for j := range ids {
			if j < 8 {
				ids[j] = fmt.Sprint(i/10*100 + j) // shared by 10 lines
			} else {
				ids[j] = fmt.Sprint(1_000_000 + i*100 + j)
			}
		}
		fmt.Fprintf(&buf, `{"timestamp": %d, "input_length": 8192, "output_length": 100, "hash_ids": [%s]}`+"\n", i*10, strings.Join(ids, ", "))
	}
	spec := traceSpec("bench.jsonl")
	spec.ChunkHashSize = 512
	env := Env{Tokenizer: vocabTokenizer{vocab: 150000}, NumPrompts: 1000, Stdout: io.Discard, Stderr: io.Discard}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for r, err := range TimedTrace(context.Background(), bytes.NewReader(buf.Bytes()), spec, env) {
			if err != nil {
				b.Fatal(err)
			}
			n += len(r.PromptTokens)
		}
		if n != 1000*8192 {
			b.Fatalf("%d tokens", n)
		}
	}
}
