package dataset

import (
	"context"
	"fmt"
	"sync"
)

// ServerTokenizer is the server's tokenizer, reached through vLLM's
// /tokenize and /detokenize endpoints.
type ServerTokenizer interface {
	// Tokenize returns the server's token ids of prompt, without special
	// tokens (vLLM posts {"model", "prompt", "add_special_tokens": false}).
	Tokenize(ctx context.Context, prompt string) ([]int, error)
	// Detokenize returns the server's text of ids.
	Detokenize(ctx context.Context, ids []int) (string, error)
}

// AlignStatus says what Align did.
type AlignStatus int

const (
	// AlignSkipped: nothing to align (no requests, or the first prompt is
	// not text: a batch or token ids).
	AlignSkipped AlignStatus = iota
	// AlignUnavailable: tokenizing the first prompt failed.
	AlignUnavailable
	// AlignMatched: the server counts the first prompt as PromptLen
	// tokens, so every prompt is kept.
	AlignMatched
	// AlignRealigned: the counts differed and every prompt was checked.
	AlignRealigned
)

// AlignResult reports an alignment.
type AlignResult struct {
	// Status says what Align did.
	Status AlignStatus
	// Server and Expected are the first prompt's token counts by the
	// server and by the client (set unless Skipped or Unavailable).
	Server, Expected int
	// Replaced is how many prompts were shortened.
	Replaced int
	// Failed is how many prompts kept their text because a call failed,
	// or because alignment stopped after maxAlignFailures failures.
	Failed int
}

// Message is the line vLLM prints for the result, "" when it prints none:
//
//	WARNING: /tokenize unavailable, skipping alignment.
//	WARNING: tokenizer mismatch (server=N, expected=M), re-aligning prompts.
//
// (vLLM prints the mismatch line before re-aligning.)
func (r AlignResult) Message() string {
	switch r.Status {
	case AlignUnavailable:
		return "WARNING: /tokenize unavailable, skipping alignment."
	case AlignRealigned:
		return fmt.Sprintf("WARNING: tokenizer mismatch (server=%d, expected=%d), re-aligning prompts.", r.Server, r.Expected)
	}
	return ""
}

// maxAlignInFlight is vLLM's semaphore size for /tokenize and /detokenize.
const maxAlignInFlight = 64

// maxAlignFailures is how many failed calls stop the alignment: the rest
// of the prompts keep their text at once, as they would one failed call at
// a time against a server that stopped answering (bounding the phase to
// about two calls' timeouts rather than one per 64 prompts).
const maxAlignFailures = maxAlignInFlight

// Align re-aligns prompts to the server's tokenizer as vLLM's serve does
// for the random and prefix_repetition datasets: the first prompt is
// tokenized; if that fails, nothing changes (AlignUnavailable); if the
// server's count equals its PromptLen, nothing changes (AlignMatched).
// Otherwise every prompt is tokenized, with at most 64 calls in flight, and
// a prompt the server counts as longer than its PromptLen is replaced by
// the detokenization of its first PromptLen server tokens (PromptLen is
// kept). A prompt whose calls fail keeps its text; after maxAlignFailures
// failed calls, so do all prompts not aligned yet. The requests are not
// modified; the result is a new slice. Requests whose prompt is not text
// (a batch in Prompts, or token ids in PromptTokens) are returned
// unchanged, as vLLM skips non-string prompts. Align returns an
// error only when ctx ends.
func Align(ctx context.Context, st ServerTokenizer, reqs []Request) ([]Request, AlignResult, error) {
	out := append([]Request(nil), reqs...)
	if len(reqs) == 0 || !reqs[0].textPrompt() {
		return out, AlignResult{Status: AlignSkipped}, nil
	}
	first, err := st.Tokenize(ctx, reqs[0].Prompt)
	if err != nil {
		if ctx.Err() != nil {
			return out, AlignResult{Status: AlignSkipped}, fmt.Errorf("align prompts: %w", ctx.Err())
		}
		return out, AlignResult{Status: AlignUnavailable}, nil
	}
	res := AlignResult{Status: AlignMatched, Server: len(first), Expected: reqs[0].PromptLen}
	if len(first) == reqs[0].PromptLen {
		return out, res, nil
	}
	res.Status = AlignRealigned

	// stop ends the calls in flight and waiting once too many failed.
	callCtx, stop := context.WithCancel(ctx)
	defer stop()
	sem := make(chan struct{}, maxAlignInFlight)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures int // calls that failed
	)
	call := func(fn func() error) error {
		select {
		case sem <- struct{}{}:
		case <-callCtx.Done():
			return callCtx.Err()
		}
		defer func() { <-sem }()
		if err := callCtx.Err(); err != nil {
			return err
		}
		err := fn()
		if err != nil {
			// Counted before the slot is given back, so that no call
			// waiting for it starts once the failures are enough.
			mu.Lock()
			if failures++; failures >= maxAlignFailures {
				stop()
			}
			mu.Unlock()
		}
		return err
	}
	for i := range out {
		wg.Go(func() {
			r := &out[i]
			if !r.textPrompt() {
				return
			}
			var toks []int
			err := call(func() (err error) {
				toks, err = st.Tokenize(callCtx, r.Prompt)
				return err
			})
			if err == nil && len(toks) > r.PromptLen {
				var text string
				err = call(func() (err error) {
					text, err = st.Detokenize(callCtx, toks[:r.PromptLen])
					return err
				})
				if err == nil {
					r.Prompt = text
					mu.Lock()
					res.Replaced++
					mu.Unlock()
				}
			}
			if err != nil {
				mu.Lock()
				res.Failed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, res, fmt.Errorf("align prompts: %w", err)
	}
	return out, res, nil
}

// textPrompt reports whether the request's prompt is text (Prompt), as
// opposed to a batch or token ids.
func (r *Request) textPrompt() bool { return r.Prompts == nil && r.PromptTokens == nil }
