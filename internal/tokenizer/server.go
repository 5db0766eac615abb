package tokenizer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ServerAPI is what the server tokenizer needs from a vLLM-compatible
// server: its /tokenize and /detokenize endpoints (backend.ServerAPI has
// them).
type ServerAPI interface {
	// Tokenize returns the server's ids for prompt, without special
	// tokens.
	Tokenize(ctx context.Context, prompt string) ([]int, error)
	// Detokenize returns the server's text for ids.
	Detokenize(ctx context.Context, ids []int) (string, error)
}

// serverMinVocab is the smallest vocabulary size the server tokenizer
// assumes.
const serverMinVocab = 131072

// serverMaxVocab caps the estimate: the largest real vocabularies hold
// about 262k tokens, and a server whose ids are hashes (like the
// simulator's word tokenizer) must not make generated prompts list
// hundreds of millions of allowed ids.
const serverMaxVocab = 1 << 20

// VocabSizer is a ServerAPI that can tell the server's vocabulary size
// (llama.cpp's /v1/models meta.n_vocab): 0 when the server does not say.
type VocabSizer interface {
	VocabSize(ctx context.Context) (int, error)
}

// Server is the tokenizer of last resort, as in vLLM's Rust client: every
// Encode and Decode is a request to the target's /tokenize or /detokenize.
// VocabSize is the size the server reports (see VocabSizer); when it
// reports none, it is estimated as vLLM's Rust client does: twice the
// largest id of a probe, at least 131072 (and at most 1<<20). It has no
// special ids and adds no special tokens (Encode ignores addSpecial).
//
// A failed call is retried twice; if it still fails, Encode returns nil
// and Decode "", and Err reports the first failure, so a caller can stop
// rather than use wrong prompts. After that failure every call returns at
// once, without asking the server, so a server that stopped answering
// costs one call's retries, not every call's. A Server is safe for
// concurrent use.
type Server struct {
	name      string
	api       ServerAPI
	ctx       context.Context
	vocab     int
	estimated bool // vocab is the estimate, not the server's figure

	mu  sync.Mutex
	err error
}

var _ Tokenizer = (*Server)(nil)

// NewServer checks that the server tokenizes (with a probe, bounded by
// the api's own timeout and ctx) and returns a tokenizer using it. ctx
// bounds every later call too.
func NewServer(ctx context.Context, name string, api ServerAPI) (*Server, error) {
	ids, err := api.Tokenize(ctx, "test")
	if err != nil {
		return nil, fmt.Errorf("server tokenizer: %w", err)
	}
	if vs, ok := api.(VocabSizer); ok {
		if n, err := vs.VocabSize(ctx); err == nil && n > 0 {
			return &Server{name: name, api: api, ctx: ctx, vocab: n}, nil
		}
	}
	maxID := 0
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	return &Server{name: name, api: api, ctx: ctx, vocab: min(max(2*maxID, serverMinVocab), serverMaxVocab), estimated: true}, nil
}

// VocabEstimated reports whether VocabSize is an estimate (the server did
// not report its vocabulary size).
func (s *Server) VocabEstimated() bool { return s.estimated }

// Name returns the name given to NewServer.
func (s *Server) Name() string { return s.name }

// VocabSize is the estimated vocabulary size.
func (s *Server) VocabSize() int { return s.vocab }

// SpecialIDs is empty: the server does not list its special tokens.
func (s *Server) SpecialIDs() []int { return []int{} }

// NumSpecialTokensToAdd is 0.
func (s *Server) NumSpecialTokensToAdd() int { return 0 }

// Encode asks /tokenize for the ids of text (addSpecial is ignored).
func (s *Server) Encode(text string, addSpecial bool) []int {
	if s.Err() != nil {
		return nil
	}
	ids, err := retry(s.ctx, func() ([]int, error) { return s.api.Tokenize(s.ctx, text) })
	if err != nil {
		s.fail(fmt.Errorf("server tokenizer: /tokenize: %w", err))
		return nil
	}
	return slices.Clip(ids)
}

// Decode asks /detokenize for the text of ids.
func (s *Server) Decode(ids []int) string {
	if s.Err() != nil {
		return ""
	}
	text, err := retry(s.ctx, func() (string, error) { return s.api.Detokenize(s.ctx, ids) })
	if err != nil {
		hint := ""
		if s.estimated {
			// Random prompts draw ids from the estimated vocabulary, which
			// may be larger than the server's.
			hint = fmt.Sprintf(" (the server does not report its vocabulary size, so vbench assumed %d tokens; a smaller vocabulary refuses larger ids: give the model's tokenizer with --tokenizer / tokenizer.name)", s.vocab)
		}
		s.fail(fmt.Errorf("server tokenizer: /detokenize: %w%s", err, hint))
		return ""
	}
	return text
}

// Err returns the first call that failed for good, nil if none did.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// retry calls f up to three times, 100 ms and 400 ms apart.
func retry[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var v T
	var err error
	for attempt, wait := 0, 100*time.Millisecond; attempt < 3; attempt, wait = attempt+1, wait*4 {
		if v, err = f(); err == nil || ctx.Err() != nil {
			return v, err
		}
		if attempt < 2 {
			select {
			case <-ctx.Done():
				return v, err
			case <-time.After(wait):
			}
		}
	}
	return v, err
}
