package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vbench/vbench/internal/hub"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// ShareGPTSpec is the sharegpt kind's section of a scenario: vLLM's
// sharegpt dataset.
type ShareGPTSpec struct {
	// FileOptions says which file to read and how.
	FileOptions
	// OutputLen, if set, fixes every output length.
	OutputLen *int `json:"output_len,omitempty"`
	// EnableMultimodalChat sends chat messages with inline multimodal parts
	// (--enable-multimodal-chat).
	EnableMultimodalChat bool `json:"enable_multimodal_chat"`
}

func init() {
	Register(Kind{Name: "sharegpt", Spec: newSpec[ShareGPTSpec](), New: newShareGPTSource, NeedsTokenizer: true, PythonRandom: true,
		Memory: func(spec scenario.Dataset, _ int) MemoryEstimate {
			// The file is decoded whole (about twice its size in Go
			// values); each sampled request holds its prompt until sent.
			s := spec.Spec.(*ShareGPTSpec)
			out := lenOr(s.OutputLen, 256)
			return MemoryEstimate{Fixed: 2 * pathBytes(s.Path), PerRequest: 3 << 10, PromptTokens: 256, OutputTokens: out}
		}})
}

// vLLM's is_valid_sequence bounds for sharegpt.
const (
	shareGPTMinLen       = 4
	shareGPTMaxPromptLen = 1024
	shareGPTMaxTotalLen  = 2048
)

// ShareGPTHubRepo is the Hub dataset whose id alone names its file
// ShareGPTHubFile; any other Hub dataset path names its file after the id
// ("org/name/file.json").
const (
	ShareGPTHubRepo = "anon8231489123/ShareGPT_Vicuna_unfiltered"
	ShareGPTHubFile = "ShareGPT_V3_unfiltered_cleaned_split.json"
)

// shareGPTSource is the sharegpt kind's Source.
type shareGPTSource struct{ spec ShareGPTSpec }

func newShareGPTSource(spec scenario.Dataset) (Source, error) {
	s, err := specOf[ShareGPTSpec](spec)
	if err != nil {
		return nil, err
	}
	if s.Path == "" {
		return nil, errors.New("dataset.sharegpt.path (--dataset-path) is required: a ShareGPT JSON file or a Hub dataset id")
	}
	if n := s.OutputLen; n != nil && *n <= 0 {
		return nil, fmt.Errorf("dataset.sharegpt.output_len (--sharegpt-output-len) is %d; it must be positive", *n)
	}
	return shareGPTSource{spec: *s}, nil
}

// Requests samples every request before yielding the first: the shuffle
// needs the whole file.
func (s shareGPTSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		path, err := ResolveShareGPTPath(ctx, s.spec.Path)
		if err != nil {
			return nil, err
		}
		reqs, st, err := ShareGPT(ctx, path, s.spec, env)
		if env.Counts != nil {
			*env.Counts = Counts{Filtered: true, Examined: st.Examined, Dropped: st.Dropped, Oversampled: st.Oversampled}
		}
		return reqs, err
	})
}

// ResolveShareGPTPath returns the local file a sharegpt path names: the
// path itself when it exists, else a Hub dataset file downloaded into the
// Hugging Face cache (internal/hub, configured from the environment:
// HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE...). A Hub path is
// "org/name/dir/file.json" (the dataset id, then the file in it), or the
// id ShareGPTHubRepo alone for its file ShareGPTHubFile. vLLM itself reads
// local files only.
func ResolveShareGPTPath(ctx context.Context, path string) (string, error) {
	return resolveHubFile(ctx, "sharegpt", path)
}

// resolveHubFile is ResolveShareGPTPath for the file dataset.KIND.path
// names.
func resolveHubFile(ctx context.Context, kind, path string) (string, error) {
	if _, err := os.Stat(path); err == nil {
		return path, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("dataset.%s.path (--dataset-path): %w", kind, err)
	}
	parts := strings.SplitN(path, "/", 3)
	var repo, file string
	switch {
	case path == ShareGPTHubRepo:
		repo, file = ShareGPTHubRepo, ShareGPTHubFile
	case len(parts) == 3 && hub.ValidRepoID(parts[0]+"/"+parts[1]) && parts[2] != "":
		repo, file = parts[0]+"/"+parts[1], parts[2]
	default:
		return "", fmt.Errorf("dataset.%s.path (--dataset-path) %s: no such file, and not a Hub dataset file (org/name/file.json)", kind, path)
	}
	p, err := hub.FromEnv(nil).DownloadDataset(ctx, repo, "", file)
	if err != nil {
		return "", fmt.Errorf("dataset.%s.path (--dataset-path) %s is no local file; from the Hub: %w", kind, path, err)
	}
	return p, nil
}

// ShareGPTStats is what sampling a ShareGPT file counted.
type ShareGPTStats struct {
	// Entries is the number of entries in the file.
	Entries int
	// Conversations is the number kept: those with at least two turns.
	Conversations int
	// Examined is how many kept conversations the sampling walk measured
	// (it stops once it has num_prompts requests).
	Examined int
	// Dropped is how many of the examined ones the length filters dropped.
	Dropped int
	// Oversampled is how many requests are copies added by oversampling.
	Oversampled int
}

// shareGPTEntry is one conversation kept from the file.
type shareGPTEntry struct {
	index              int // in the file
	prompt, completion string
	image, video       json.RawMessage
}

// shareGPTRaw is how an entry is decoded.
type shareGPTRaw struct {
	Conversations []json.RawMessage `json:"conversations"`
	Image         json.RawMessage   `json:"image"`
	Video         json.RawMessage   `json:"video"`
}

// shareGPTTurn is how one of the first two turns is decoded.
type shareGPTTurn struct {
	Value *string `json:"value"`
}

// ShareGPT samples vLLM's sharegpt dataset from the JSON file at path
// (ShareGPTDataset in upstream vllm/benchmarks/datasets/datasets.py), request for request:
//
//  1. Keep the entries whose "conversations" list has at least two turns
//     (others, and entries without the key, are dropped as vLLM drops
//     them). random.seed(seed) then random.shuffle of the kept entries,
//     unless disable_shuffle.
//  2. Walk them until num_prompts requests: prompt = turn 0's "value",
//     completion = turn 1's; prompt_len = the length of the prompt's
//     encoding with special tokens; output length = the completion's
//     encoding length, or output_len when set. Keep the pair unless
//     prompt_len < 4, output < 4 (not checked when output_len is set),
//     prompt_len > 1024 or prompt_len + output > 2048. Request ids count
//     the kept pairs: id_prefix + 0, 1, ...
//  3. Unless no_oversample, when fewer than num_prompts were kept,
//     random.seed(seed) again and append copies of random.choice(kept) with
//     ids id_prefix + len(kept) + i.
//
// An "image" or "video" string becomes a media part of the request's chat
// message (a path gets file://, as vLLM's process_image); inline bytes are
// refused. With enable_multimodal_chat, or with media, the request has
// Messages (one user message of text then media parts) besides Prompt.
//
// Errors name the file, the entry index (0-based) and what was expected.
// Keys match as encoding/json matches them, ignoring case, where Python's
// are exact: an entry whose keys differ from "conversations" and "value"
// only in case is read where vLLM would drop it or fail.
func ShareGPT(ctx context.Context, path string, spec ShareGPTSpec, env Env) ([]Request, ShareGPTStats, error) {
	var st ShareGPTStats
	if env.Tokenizer == nil {
		return nil, st, errors.New("sharegpt needs a client tokenizer")
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	entries, total, err := readShareGPT(path)
	st.Entries, st.Conversations = total, len(entries)
	if err != nil {
		return nil, st, err
	}
	if !spec.DisableShuffle {
		numpy.NewPyRandom(env.Seed).Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	}
	reqs, examined, err := sampleShareGPT(ctx, path, entries, spec, env)
	st.Examined, st.Dropped = examined, examined-len(reqs)
	if err != nil {
		return nil, st, err
	}
	if len(reqs) == 0 && !spec.NoOversample && env.NumPrompts > 0 {
		return nil, st, fmt.Errorf("%s: no conversation passes the length filters (prompt 4..1024 tokens, output at least 4, both at most 2048), so there is nothing to oversample", path)
	}
	kept := len(reqs)
	if reqs, err = maybeOversample(reqs, env.NumPrompts, env.Seed, env.IDPrefix, spec.NoOversample, env.Stderr); err != nil {
		return nil, st, fmt.Errorf("%s: %w", path, err)
	}
	st.Oversampled = len(reqs) - kept
	return reqs, st, nil
}

// readShareGPT reads the file's entries, keeping those with at least two
// turns, and returns them with the number of entries in the file.
func readShareGPT(path string) ([]shareGPTEntry, int, error) {
	data, err := readDataFile("sharegpt", path, "a JSON list of conversations")
	if err != nil {
		return nil, 0, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, 0, fmt.Errorf("%s: the file is empty; expected a JSON list of conversations", path)
	}
	if entries, n, ok := readShareGPTFast(data); ok {
		if n == 0 {
			return nil, 0, fmt.Errorf("%s: the list is empty; expected conversations", path)
		}
		if len(entries) == 0 {
			return nil, n, fmt.Errorf("%s: none of the %d entries has a \"conversations\" list of at least two turns", path, n)
		}
		return entries, n, nil
	}
	return readShareGPTSlow(path, data)
}

// readShareGPTSlow decodes the file entry by entry, to name the entry, and
// the line and column, where it is wrong.
func readShareGPTSlow(path string, data []byte) ([]shareGPTEntry, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, jsonError(path, data, -1, 0, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, 0, fmt.Errorf("%s:%s: expected a JSON list of conversations, found %s", path, lineCol(data, dec.InputOffset()), tokenKind(tok))
	}
	var entries []shareGPTEntry
	n := 0
	for ; dec.More(); n++ {
		start := entryStart(data, dec.InputOffset())
		var raw *shareGPTRaw
		if err := dec.Decode(&raw); err != nil {
			return nil, n, jsonError(path, data, n, start, dec, err)
		}
		if raw == nil {
			return nil, n, fmt.Errorf("%s:%s: entry %d: expected an object with a \"conversations\" list, found null", path, lineCol(data, start), n)
		}
		if raw.Conversations == nil {
			continue // vLLM drops an entry without conversations
		}
		if len(raw.Conversations) < 2 {
			continue
		}
		e := shareGPTEntry{index: n, image: raw.Image, video: raw.Video}
		for t, dst := range []*string{&e.prompt, &e.completion} {
			var turn shareGPTTurn
			if err := json.Unmarshal(raw.Conversations[t], &turn); err != nil || turn.Value == nil {
				return nil, n, fmt.Errorf("%s:%s: entry %d: conversations[%d]: expected an object with a string \"value\", found %s",
					path, lineCol(data, start), n, t, abbreviate(raw.Conversations[t]))
			}
			*dst = *turn.Value
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil {
		return nil, n, jsonError(path, data, n, dec.InputOffset(), dec, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, n, fmt.Errorf("%s:%s: unexpected data after the list of conversations", path, lineCol(data, dec.InputOffset()))
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("%s: the list is empty; expected conversations", path)
	}
	if len(entries) == 0 {
		return nil, n, fmt.Errorf("%s: none of the %d entries has a \"conversations\" list of at least two turns", path, n)
	}
	return entries, n, nil
}

// shareGPTFastEntry is how the fast path decodes an entry.
type shareGPTFastEntry struct {
	Conversations []struct {
		Value *string `json:"value"`
	} `json:"conversations"`
	Image json.RawMessage `json:"image"`
	Video json.RawMessage `json:"video"`
}

// readShareGPTFast decodes a well-formed file, its entries in parallel;
// ok is false for any file it cannot take as it is (a syntax or type
// error, a null entry, a first or second turn without a string value),
// which the slow path then reads entry by entry to name what is wrong.
// Both keep the same entries.
func readShareGPTFast(data []byte) (entries []shareGPTEntry, n int, ok bool) {
	elems, ok := splitJSONArray(data)
	if !ok {
		return nil, 0, false
	}
	raw := make([]*shareGPTFastEntry, len(elems))
	workers := min(max(runtime.GOMAXPROCS(0), 1), max(len(elems)/1024, 1))
	per := (len(elems) + workers - 1) / workers
	var failed atomic.Bool
	var wg sync.WaitGroup
	for lo := 0; lo < len(elems); lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi && !failed.Load(); i++ {
				if json.Unmarshal(data[elems[i][0]:elems[i][1]], &raw[i]) != nil || raw[i] == nil {
					failed.Store(true)
				}
			}
		}(lo, min(lo+per, len(elems)))
	}
	wg.Wait()
	if failed.Load() {
		return nil, 0, false
	}
	for i, e := range raw {
		if len(e.Conversations) < 2 {
			continue
		}
		p, c := e.Conversations[0].Value, e.Conversations[1].Value
		if p == nil || c == nil {
			return nil, 0, false
		}
		entries = append(entries, shareGPTEntry{index: i, prompt: *p, completion: *c, image: e.Image, video: e.Video})
	}
	return entries, len(raw), true
}

// splitJSONArray returns the byte ranges of the elements of the JSON
// array data holds, finding them by their brackets, braces, quotes and
// commas only (json.Unmarshal checks each element); ok is false when data
// is not one array of non-empty elements.
func splitJSONArray(data []byte) (elems [][2]int, ok bool) {
	i := skipJSONSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	depth, start, comma := 0, -1, false
	for i++; i < len(data); i++ {
		c := data[i]
		switch c {
		case '"':
			if start < 0 {
				start = i
			}
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if start < 0 {
				start = i
			}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
				continue
			}
			if c != ']' || start < 0 && comma {
				return nil, false
			}
			if start >= 0 {
				elems = append(elems, [2]int{start, i})
			}
			return elems, skipJSONSpace(data, i+1) == len(data)
		case ',':
			if depth > 0 {
				continue
			}
			if start < 0 {
				return nil, false
			}
			elems = append(elems, [2]int{start, i})
			start, comma = -1, true
		case ' ', '\t', '\r', '\n':
		default:
			if start < 0 {
				start = i
			}
		}
	}
	return nil, false
}

// skipJSONSpace returns the offset of the first byte at or after i that
// is not JSON white space.
func skipJSONSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// entryStart returns the offset of the next value at or after off: past
// white space and the comma between list elements.
func entryStart(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
			continue
		}
		break
	}
	return off
}

// jsonError words a decoding error of entry n (-1: before the list), which
// starts at offset start, as one line naming the file, line:col, the entry
// and what was expected. A syntax error points at its byte, a truncated
// file at its end, a wrong type at the entry's start.
func jsonError(path string, data []byte, n int, start int64, dec *json.Decoder, err error) error {
	where := ""
	if n >= 0 {
		where = fmt.Sprintf(" entry %d:", n)
	}
	if e, ok := jsonSyntaxError(path, data, where, "conversations", start, err); ok {
		return e
	}
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ):
		switch typ.Field {
		case "":
			return fmt.Errorf("%s:%s:%s expected an object with a \"conversations\" list, found %s", path, lineCol(data, start), where, typ.Value)
		case "conversations":
			return fmt.Errorf("%s:%s:%s \"conversations\": expected a list of turns, found %s", path, lineCol(data, start), where, typ.Value)
		}
		return fmt.Errorf("%s:%s:%s %q: found %s", path, lineCol(data, start), where, typ.Field, typ.Value)
	}
	return fmt.Errorf("%s:%s:%s %v", path, lineCol(data, start), where, err)
}

// lineCol returns "line:col" (1-based, columns in bytes) of offset in data.
func lineCol(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := offset - int64(bytes.LastIndexByte(before, '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}

// tokenKind names the JSON value a decoder token starts.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return string(v)
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// abbreviate shows a JSON value on one line, its white space collapsed,
// cut after 40 characters.
func abbreviate(raw json.RawMessage) string {
	s := []rune(strings.Join(strings.Fields(string(raw)), " "))
	if len(s) > 40 {
		return string(s[:40]) + "..."
	}
	return string(s)
}

// sampleShareGPT walks the entries in order, measuring them in parallel a
// chunk at a time, and keeps the pairs that pass the length filters until
// it has num_prompts; it returns them and how many entries it examined.
func sampleShareGPT(ctx context.Context, path string, entries []shareGPTEntry, spec ShareGPTSpec, env Env) ([]Request, int, error) {
	want := env.NumPrompts
	reqs := make([]Request, 0, min(max(want, 0), len(entries)))
	workers := max(runtime.GOMAXPROCS(0), 1)
	chunk := 4096
	measured := make([]shareGPTLens, chunk)
	examined := 0
	for start := 0; start < len(entries) && len(reqs) < want; start += chunk {
		if err := ctx.Err(); err != nil {
			return nil, examined, err
		}
		// Measure at most what can still be kept: no wasted tokenizing
		// when few requests remain.
		end := min(start+chunk, len(entries), start+max(want-len(reqs), 64))
		measure(env.Tokenizer, entries[start:end], spec.OutputLen, measured[:end-start], workers)
		for i := start; i < end && len(reqs) < want; i++ {
			examined++
			l := measured[i-start]
			if !validShareGPT(l.prompt, l.output, spec.OutputLen != nil) {
				continue
			}
			r, err := shareGPTRequest(path, &entries[i], spec.EnableMultimodalChat)
			if err != nil {
				return nil, examined, err
			}
			r.PromptLen, r.OutputLen = l.prompt, l.output
			r.ID = env.IDPrefix + strconv.Itoa(len(reqs))
			reqs = append(reqs, r)
		}
	}
	return reqs, examined, nil
}

// shareGPTLens are a pair's measured lengths.
type shareGPTLens struct{ prompt, output int }

// measure sets out[i] to entry i's prompt length and output length; the
// reply of a prompt the filters drop anyway is not encoded.
func measure(tok tokenizer.Tokenizer, entries []shareGPTEntry, fixed *int, out []shareGPTLens, workers int) {
	var wg sync.WaitGroup
	per := (len(entries) + workers - 1) / workers
	for w := 0; w < len(entries); w += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				out[i].prompt = len(tok.Encode(entries[i].prompt, true))
				switch {
				case fixed != nil:
					out[i].output = *fixed
				case out[i].prompt < shareGPTMinLen || out[i].prompt > shareGPTMaxPromptLen:
					// Dropped whatever the reply's length: not encoded.
					out[i].output = 0
				default:
					out[i].output = len(tok.Encode(entries[i].completion, true))
				}
			}
		}(w, min(w+per, len(entries)))
	}
	wg.Wait()
}

// validShareGPT is vLLM's is_valid_sequence with sharegpt's defaults.
func validShareGPT(promptLen, outputLen int, fixedOutput bool) bool {
	return promptLen >= shareGPTMinLen &&
		(fixedOutput || outputLen >= shareGPTMinLen) &&
		promptLen <= shareGPTMaxPromptLen &&
		promptLen+outputLen <= shareGPTMaxTotalLen
}

// shareGPTRequest builds a kept entry's request (without lengths and id).
func shareGPTRequest(path string, e *shareGPTEntry, multimodalChat bool) (Request, error) {
	r := Request{Prompt: e.prompt}
	var media *Part
	for _, m := range []struct {
		raw json.RawMessage
		typ PartType
		key string
	}{{e.image, PartImage, "image"}, {e.video, PartVideo, "video"}} {
		// vLLM reads "image" when it is truthy, else "video".
		if len(m.raw) == 0 || isFalsyJSON(m.raw) {
			continue
		}
		var s string
		if err := json.Unmarshal(m.raw, &s); err != nil {
			return r, fmt.Errorf("%s: entry %d: %q: expected a URL or file path string; inline media bytes are not supported by vbench", path, e.index, m.key)
		}
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "file://") {
			s = "file://" + s
		}
		media = &Part{Type: m.typ, URL: s}
		break
	}
	if media != nil || multimodalChat {
		parts := []Part{{Type: PartText, Text: e.prompt}}
		if media != nil {
			parts = append(parts, *media)
		}
		r.Messages = []Message{{Role: RoleUser, Parts: parts, Transformed: multimodalChat}}
	}
	return r, nil
}

// isFalsyJSON reports whether a JSON value is false in Python (null,
// false, 0, "", [], {}).
func isFalsyJSON(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "null", "false", "0", `""`, "[]", "{}", "0.0":
		return true
	}
	return false
}
