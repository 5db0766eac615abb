package dataset

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// BurstGPTSpec is the burstgpt kind's section of a scenario: vLLM's
// burstgpt dataset.
type BurstGPTSpec struct {
	// Path is the BurstGPT CSV file (--dataset-path).
	Path string `json:"path"`
}

func init() {
	Register(Kind{Name: "burstgpt", Spec: newSpec[BurstGPTSpec](), New: newBurstGPTSource, NeedsTokenizer: true})
}

// burstGPTHeader is the header of the BurstGPT trace CSV, for error
// messages.
const burstGPTHeader = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"

// burstGPTSource is the burstgpt kind's Source.
type burstGPTSource struct{ spec BurstGPTSpec }

func newBurstGPTSource(spec scenario.Dataset) (Source, error) {
	b, err := specOf[BurstGPTSpec](spec)
	if err != nil {
		return nil, err
	}
	if b.Path == "" {
		return nil, errors.New("dataset.burstgpt.path (--dataset-path) is empty: it must name the BurstGPT CSV file")
	}
	return burstGPTSource{spec: *b}, nil
}

// Requests reads and samples the file before yielding the first request,
// then decodes each prompt as it is consumed.
func (s burstGPTSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		rows, err := ReadBurstGPTFile(s.spec.Path)
		if err != nil {
			yield(Request{}, err)
			return
		}
		picks, err := SampleBurstGPT(rows, env.NumPrompts, env.Seed)
		if err != nil {
			yield(Request{}, fmt.Errorf("%s: %w", s.spec.Path, err))
			return
		}
		var ids []int
		for i, row := range picks {
			if err := ctx.Err(); err != nil {
				yield(Request{}, err)
				return
			}
			var r Request
			r, ids, err = burstGPTRequest(env.Tokenizer, i, row, env.IDPrefix, ids)
			if err != nil {
				yield(Request{}, err)
				return
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// BurstGPTRow is one row of a BurstGPT CSV that vLLM keeps: a GPT-4 row
// whose response has tokens.
type BurstGPTRow struct {
	// Request is the row's 3rd column, the request (prompt) tokens.
	Request int
	// Response is the row's 4th column, the response tokens.
	Response int
	// Line is the 1-based line of the row in the file.
	Line int
}

// ReadBurstGPTFile reads a BurstGPT CSV file as vLLM's BurstGPTDataset
// does (BurstGPTDataset in upstream vllm/benchmarks/datasets/datasets.py): it keeps, in file order, the rows whose "Model"
// column is exactly "GPT-4" and whose "Response tokens" column is a number
// above 0 (an empty one is pandas' NaN: the row is dropped), and of those
// rows it reads the request and response token counts by position, the
// 3rd and 4th columns. Other columns (the timestamps) are ignored. Its
// errors are one line naming the file, the line and what was expected: an
// empty file, a header without the "Model" or "Response tokens" column or
// with fewer than 4 columns, a row with a different number of fields or
// malformed quoting, a "Response tokens" value that is not a number in any
// row (pandas could not compare it with 0), and, in a kept row, token
// counts that are not whole non-negative numbers (vLLM's int() would
// truncate a fractional count; vbench refuses it).
func ReadBurstGPTFile(path string) ([]BurstGPTRow, error) {
	f, err := openDataFile("burstgpt", path, "a CSV with BurstGPT's header "+burstGPTHeader)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBurstGPT(path, f)
}

func readBurstGPT(name string, r io.Reader) ([]BurstGPTRow, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: the file is empty: expected a CSV with BurstGPT's header %s", name, burstGPTHeader)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	model := slices.Index(header, "Model")
	resp := slices.Index(header, "Response tokens")
	switch {
	case model < 0:
		return nil, fmt.Errorf("%s:1: the header has no \"Model\" column: expected BurstGPT's header %s", name, burstGPTHeader)
	case resp < 0:
		return nil, fmt.Errorf("%s:1: the header has no \"Response tokens\" column: expected BurstGPT's header %s", name, burstGPTHeader)
	case len(header) < 4:
		return nil, fmt.Errorf("%s:1: the header has %d columns: expected at least 4, BurstGPT's %s (the 3rd and 4th are the request and response tokens)", name, len(header), burstGPTHeader)
	}
	var rows []BurstGPTRow
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		v, ok := csvNumber(rec[resp])
		if !ok {
			return nil, fmt.Errorf("%s:%d: row %d: \"Response tokens\" is %q: expected a number", name, line, n, clipString(rec[resp]))
		}
		if rec[model] != "GPT-4" || !(v > 0) {
			continue
		}
		in, ok := csvCount(rec[2])
		if !ok {
			return nil, fmt.Errorf("%s:%d: row %d: the request tokens (3rd column) are %q: expected a whole number, 0 or more", name, line, n, clipString(rec[2]))
		}
		out, ok := csvCount(rec[3])
		if !ok {
			return nil, fmt.Errorf("%s:%d: row %d: the response tokens (4th column) are %q: expected a whole number, 0 or more", name, line, n, clipString(rec[3]))
		}
		rows = append(rows, BurstGPTRow{Request: in, Response: out, Line: line})
	}
	return rows, nil
}

// csvError is a one-line error for a malformed CSV record.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v: expected BurstGPT's %d-field rows (%s)", name, pe.StartLine, pe.Err, strings.Count(burstGPTHeader, ",")+1, burstGPTHeader)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// csvNumber reads a numeric CSV field as pandas does: surrounding blanks
// are ignored and an empty field is NaN.
func csvNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

// csvCount reads a token count: a whole number from 0 to MaxInt32.
func csvCount(s string) (int, bool) {
	f, ok := csvNumber(s)
	if !ok || math.IsNaN(f) || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

func clipString(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// SampleBurstGPT picks numPrompts of rows as vLLM's BurstGPTDataset does
// with pandas' DataFrame.sample(n=numPrompts, random_state=seed), with
// replacement only when there are fewer rows than numPrompts: NumPy's
// RandomState(seed).choice(len(rows), numPrompts, replace). The result is in
// send order. vLLM does not oversample burstgpt.
func SampleBurstGPT(rows []BurstGPTRow, numPrompts int, seed int64) ([]BurstGPTRow, error) {
	switch {
	case numPrompts <= 0:
		return nil, fmt.Errorf("num_prompts (--num-prompts) is %d: burstgpt samples a positive number of rows", numPrompts)
	case seed < 0 || seed > math.MaxUint32:
		return nil, fmt.Errorf("seed (--seed) is %d: burstgpt samples with numpy's RandomState, whose seed is 0 to 4294967295", seed)
	case len(rows) == 0:
		return nil, errors.New("no row to sample: expected GPT-4 rows (\"Model\" is GPT-4) with \"Response tokens\" above 0")
	}
	idx, err := numpy.NewRandomState(uint32(seed)).Choice(len(rows), numPrompts, numPrompts > len(rows), nil)
	if err != nil {
		return nil, fmt.Errorf("sampling %d of %d rows: %w", numPrompts, len(rows), err)
	}
	picks := make([]BurstGPTRow, len(idx))
	for i, j := range idx {
		picks[i] = rows[j]
	}
	return picks, nil
}

// burstGPTRequest is vLLM's request i for row: the prompt is the decode of
// the token ids (i+j) mod vocab_size for j below the row's request tokens,
// its length the row's request tokens (not re-measured), its output length
// the row's response tokens. ids is a buffer it reuses and returns.
func burstGPTRequest(tok tokenizer.Tokenizer, i int, row BurstGPTRow, idPrefix string, ids []int) (Request, []int, error) {
	vocab := tok.VocabSize()
	if vocab <= 0 {
		return Request{}, ids, fmt.Errorf("the tokenizer %s has a vocabulary of %d tokens: burstgpt builds prompts from its token ids", tok.Name(), vocab)
	}
	ids = ids[:0]
	for j := range row.Request {
		ids = append(ids, (i+j)%vocab)
	}
	return Request{Prompt: tok.Decode(ids), PromptLen: row.Request, OutputLen: row.Response, ID: idPrefix + strconv.Itoa(i)}, ids, nil
}

// BurstGPT generates vLLM's burstgpt dataset (BurstGPTDataset, upstream vllm/benchmarks/datasets/datasets.py) for
// numPrompts requests: the rows ReadBurstGPTFile keeps, sampled by
// SampleBurstGPT, request i's prompt decoded from the token ids (i+j) mod
// the tokenizer's vocabulary size for j below its request tokens, with the
// id idPrefix + i.
func BurstGPT(ctx context.Context, spec BurstGPTSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string) ([]Request, error) {
	src, err := newBurstGPTSource(scenario.Dataset{Name: "burstgpt", Spec: &spec})
	if err != nil {
		return nil, err
	}
	var reqs []Request
	for r, err := range src.Requests(ctx, Env{Tokenizer: tok, Seed: seed, NumPrompts: numPrompts, IDPrefix: idPrefix}) {
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}
