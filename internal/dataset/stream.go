package dataset

import (
	"context"
	"fmt"
	"io"
	"iter"

	"github.com/vbench/vbench/internal/scenario"
)

// Stream is a dataset's requests as a run pulls them: made as they are
// needed when the kind can count its requests before making them
// (Kind.Count) and nothing forces the whole list first, else built whole
// (as Build builds them) and handed out one by one. Next is called from
// one goroutine at a time.
type Stream struct {
	name  string
	n     int
	first Request
	// list holds every request of a stream built whole (nil when lazy);
	// pos is the next one Next returns.
	list []Request
	pos  int
	// pull and stop draw from a lazy source; got is how many it gave.
	pull func() (Request, error, bool)
	stop func()
	got  int
	// pending: first was pulled by Open and not handed out yet.
	pending bool
	// feedback carries answers to a kind that asks for them (nil
	// otherwise).
	feedback *Feedback
	// releaser is a source that decides its release times (nil
	// otherwise).
	releaser interface {
		Releaser(seed int64) *ConvReleaser
	}
}

// Open starts the scenario's dataset through its kind's registry entry,
// with Build's checks. A kind with Kind.Count is pulled lazily: its first
// request is made now, and, for a kind that aligns with the server's
// tokenizer, checked against it; when the server counts that prompt
// differently, every prompt must be re-aligned, so the stream is built
// whole after all. Other kinds are built whole now.
func Open(ctx context.Context, spec scenario.Dataset, env Env) (*Stream, error) {
	k, err := lookup(spec.Name)
	if err != nil {
		return nil, err
	}
	if k.NeedsTokenizer && env.Tokenizer == nil {
		return nil, fmt.Errorf("dataset %s needs a client tokenizer: unset tokenizer.skip_init", k.Name)
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	src, err := k.New(spec)
	if err != nil {
		return nil, inputError(k.Name, err)
	}
	s := &Stream{name: k.Name}
	s.releaser, _ = src.(interface {
		Releaser(seed int64) *ConvReleaser
	})
	if env.MaxModelLen > 0 { // the filter needs every request's lengths
		if s.releaser != nil {
			return nil, fmt.Errorf("load.max_model_len (--max-model-len) does not apply to dataset %s yet", k.Name)
		}
		ws, err := s.whole(ctx, k, src, env)
		if err != nil {
			return nil, err
		}
		return ws.fitModelLen(env.MaxModelLen, env.Stderr)
	}
	if k.Count == nil || env.NumPrompts < 0 {
		return s.whole(ctx, k, src, env)
	}
	s.n = k.Count(spec, env.NumPrompts)
	if t, ok := src.(interface{ Total(seed int64) int }); ok {
		s.n = t.Total(env.Seed) // a count that depends on the seed
	}
	if s.n == 0 {
		return s, nil
	}
	if k.Feedback {
		s.feedback = NewFeedback()
		env.Feedback = s.feedback
	}
	s.pull, s.stop = iter.Pull2(src.Requests(ctx, env))
	first, err := s.Next()
	if err != nil {
		s.Close()
		return nil, err
	}
	s.first, s.pending = first, true
	if !k.Align || env.Server == nil {
		return s, nil
	}
	st, err := env.Server()
	if err != nil {
		s.Close()
		return nil, err
	}
	_, res, err := Align(ctx, st, []Request{first})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("aligning prompts with the server tokenizer: %w", err)
	}
	if res.Status != AlignRealigned {
		if msg := res.Message(); msg != "" {
			fmt.Fprintln(env.Stdout, msg)
		}
		return s, nil
	}
	// Every prompt must be checked: make the rest, then align them all.
	rest := []Request{first}
	s.pending = false
	for {
		r, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		rest = append(rest, r)
	}
	s.Close()
	return (&Stream{name: k.Name}).aligned(ctx, rest, st, env)
}

// whole builds every request of src, checking each, and aligns them when
// the kind does (env.Server).
func (s *Stream) whole(ctx context.Context, k Kind, src Source, env Env) (*Stream, error) {
	reqs := make([]Request, 0, min(max(env.NumPrompts, 0), 1<<16))
	for r, err := range src.Requests(ctx, env) {
		if err != nil {
			return nil, inputError(k.Name, err)
		}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("internal error: dataset %s: request %d: %w", k.Name, len(reqs), err)
		}
		reqs = append(reqs, r)
	}
	if !k.Align || env.Server == nil {
		return s.set(reqs), nil
	}
	st, err := env.Server()
	if err != nil {
		return nil, err
	}
	return s.aligned(ctx, reqs, st, env)
}

// aligned sets the stream to reqs re-aligned with st.
func (s *Stream) aligned(ctx context.Context, reqs []Request, st ServerTokenizer, env Env) (*Stream, error) {
	reqs, res, err := Align(ctx, st, reqs)
	if err != nil {
		return nil, fmt.Errorf("aligning prompts with the server tokenizer: %w", err)
	}
	if msg := res.Message(); msg != "" {
		fmt.Fprintln(env.Stdout, msg)
	}
	return s.set(reqs), nil
}

func (s *Stream) set(reqs []Request) *Stream {
	s.list, s.n = reqs, len(reqs)
	if len(reqs) > 0 {
		s.first = reqs[0]
	}
	return s
}

// fitModelLen drops the requests whose prompt and expected output are
// together longer than max tokens (the boundary kept), as vllm-bench's
// --max-model-len does, saying how many on w; none left is an error.
func (s *Stream) fitModelLen(max int, w io.Writer) (*Stream, error) {
	kept := s.list[:0]
	for _, r := range s.list {
		if r.PromptLen+r.OutputLen <= max {
			kept = append(kept, r)
		}
	}
	if dropped := len(s.list) - len(kept); dropped > 0 {
		fmt.Fprintf(w, "max_model_len %d: %d of %d requests dropped (their prompt and output are longer)\n", max, dropped, len(s.list))
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("load.max_model_len %d (--max-model-len) drops every request: each prompt and output together are longer", max)
	}
	s.first = Request{}
	return s.set(kept), nil
}

// Len is the number of requests the stream yields.
func (s *Stream) Len() int { return s.n }

// First is request 0 (the zero Request when Len is 0).
func (s *Stream) First() Request { return s.first }

// All returns every request of a stream built whole, and nil for a lazy
// one.
func (s *Stream) All() []Request { return s.list }

// Lazy reports whether the requests are made as they are pulled.
func (s *Stream) Lazy() bool { return s.list == nil && s.n > 0 }

// Next returns the next request, in order, and io.EOF after the last.
// A request handed out by a stream built whole is dropped from its list.
func (s *Stream) Next() (Request, error) {
	if s.list != nil || s.pull == nil {
		if s.pos >= len(s.list) {
			return Request{}, io.EOF
		}
		r := s.list[s.pos]
		s.list[s.pos] = Request{}
		s.pos++
		return r, nil
	}
	if s.pending {
		s.pending = false
		return s.first, nil
	}
	r, err, ok := s.pull()
	switch {
	case !ok:
		if s.got != s.n {
			return Request{}, fmt.Errorf("internal error: dataset %s made %d requests, not the %d it counted", s.name, s.got, s.n)
		}
		return Request{}, io.EOF
	case err != nil:
		return Request{}, inputError(s.name, err)
	}
	if err := r.Validate(); err != nil {
		return Request{}, fmt.Errorf("internal error: dataset %s: request %d: %w", s.name, s.got, err)
	}
	if s.got++; s.got > s.n {
		return Request{}, fmt.Errorf("internal error: dataset %s made more than the %d requests it counted", s.name, s.n)
	}
	return r, nil
}

// Releaser returns the schedule of a stream whose kind decides when its
// requests are released (a conversations run: each turn once the
// previous one answered), nil for the others; seed is the scenario's.
func (s *Stream) Releaser(seed int64) *ConvReleaser {
	if s.releaser == nil {
		return nil
	}
	return s.releaser.Releaser(seed)
}

// WantsFeedback reports whether the stream's kind asks for the run's
// answers (Kind.Feedback): the run then hands each finished request's
// answer to Feedback, before anything else.
func (s *Stream) WantsFeedback() bool { return s.feedback != nil }

// Feedback hands a finished request's answer to a kind that asks for
// answers; it does nothing for the others.
func (s *Stream) Feedback(a Answer) {
	if s.feedback != nil {
		s.feedback.Put(a)
	}
}

// End says the run has ended: a source waiting for an answer stops
// waiting (its Next fails), so that whoever pulls from the stream can
// stop.
func (s *Stream) End() {
	if s.feedback != nil {
		s.feedback.End()
	}
	if e, ok := s.releaser.(interface{ end() }); ok {
		e.end()
	}
}

// Close stops a lazy source.
func (s *Stream) Close() {
	if s.stop != nil {
		s.stop()
	}
}
