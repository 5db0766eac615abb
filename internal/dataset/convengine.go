package dataset

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// turnRef is one release of a conversations run: turn turn of
// conversation conv, due at at (from the run's start); skip, when set,
// is why it is not sent (its conversation ended).
type turnRef struct {
	at         time.Duration
	conv, turn int
	skip       string
}

// convState is a conversation's progress in its engine.
type convState struct {
	c       *Conversation
	pending []Message // the messages of the turn in flight
	prompt  int       // that turn's prompt length
	history int       // the history's length in tokens
}

// convEngine decides the order and the times in which a conversations
// run releases its turns: a conversation's first turn at its arrival (the
// run's arrival process), each later turn once the previous one has
// answered and its think time has passed, and after a failed turn the rest
// of its conversation at once, as not sent. The dispatcher asks it for
// each release in turn (ConvReleaser.Next) and the source builds each
// released turn (decision); it is safe for concurrent use.
type convEngine struct {
	plans []convPlan
	total int

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	start     time.Time     // the run's start, set by the first release
	arrivals  func() time.Duration
	nextArr   time.Duration // the next conversation's arrival, when started < len(plans)
	started   int
	ready     turnHeap
	inflight  int
	decisions []turnRef
	convs     []convState
	ctx       context.Context
	// fileHistory fills the history with the file's answers instead of
	// the server's (ConversationsSpec.History "file").
	fileHistory bool
	// maxActive caps the conversations in progress (0: no cap); active
	// counts them.
	maxActive, active int
	// ended says the run has ended (Stream.End): waits stop.
	ended bool
	// continueOnFail goes on with a conversation after a failed turn
	// (ConversationsSpec.OnFailedTurn "continue").
	continueOnFail bool
}

// end ends the engine: a source waiting for a decision and the
// dispatcher waiting for a release stop waiting.
func (e *convEngine) end() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ended {
		e.ended = true
		e.signal()
	}
}

func newConvEngine(plans []convPlan) *convEngine {
	e := &convEngine{plans: plans, changed: make(chan struct{}), convs: make([]convState, len(plans)), ctx: context.Background()}
	for _, p := range plans {
		e.total += p.turns
	}
	return e
}

// signal wakes whoever waits on a change; e.mu is held.
func (e *convEngine) signal() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// earliest returns the next release that is known: the earlier of the
// next conversation's arrival and the earliest ready turn; e.mu is held.
func (e *convEngine) earliest() (turnRef, bool, bool) {
	arrival := e.arrivals != nil && e.started < len(e.plans) && (e.maxActive <= 0 || e.active < e.maxActive)
	switch {
	case arrival && (len(e.ready) == 0 || e.nextArr < e.ready[0].at):
		return turnRef{at: e.nextArr, conv: e.started}, true, true
	case len(e.ready) > 0:
		return e.ready[0], false, true
	}
	return turnRef{}, false, false
}

// release returns the next release's offset from the run's start: it
// waits while a turn in flight could still make an earlier one ready.
func (e *convEngine) release() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.start.IsZero() {
		e.start = time.Now()
	}
	for {
		now := time.Since(e.start)
		if e.ended {
			return now
		}
		ref, arrival, ok := e.earliest()
		if ok && (ref.at <= now || e.inflight == 0) {
			if arrival {
				e.active++
				if e.maxActive > 0 {
					// An arrival held back by the cap starts now.
					ref.at = max(ref.at, now)
				}
				e.started++
				if e.started < len(e.plans) {
					e.nextArr = e.arrivals()
				}
			} else {
				heap.Pop(&e.ready)
			}
			if ref.skip == "" {
				e.inflight++
			}
			e.decisions = append(e.decisions, ref)
			e.signal()
			return ref.at
		}
		if !ok && e.inflight == 0 {
			// Nothing can come any more (the run asked for more releases
			// than there are turns): an internal error the source reports.
			e.decisions = append(e.decisions, turnRef{at: now, conv: -1})
			e.signal()
			return now
		}
		ch := e.changed
		var t *time.Timer
		var timeout <-chan time.Time
		if ok {
			t = time.NewTimer(ref.at - now)
			timeout = t.C
		}
		e.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
		case <-e.ctx.Done():
		}
		if t != nil {
			t.Stop()
		}
		e.mu.Lock()
		if e.ctx.Err() != nil || e.ended {
			return time.Since(e.start)
		}
	}
}

// decision waits for release i and returns it; ok is false past the
// last turn.
func (e *convEngine) decision(ctx context.Context, i int) (turnRef, bool, error) {
	if i >= e.total {
		return turnRef{}, false, nil
	}
	if i == 0 {
		// The first release is always the first conversation's first
		// turn (nothing is in flight before it): the stream makes it
		// before the run starts.
		return turnRef{}, true, nil
	}
	e.mu.Lock()
	if e.arrivals == nil {
		e.mu.Unlock()
		return turnRef{}, false, errNotReleased
	}
	for len(e.decisions) <= i {
		if e.ended {
			e.mu.Unlock()
			return turnRef{}, false, ErrRunEnded
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return turnRef{}, false, ctx.Err()
		}
		e.mu.Lock()
	}
	ref := e.decisions[i]
	e.mu.Unlock()
	if ref.conv < 0 {
		return turnRef{}, false, fmt.Errorf("internal error: release %d of %d has no turn to send", i+1, e.total)
	}
	return ref, true, nil
}

// EndedTurnPrefix starts the error text of a turn not sent because a
// failed turn ended its conversation.
const EndedTurnPrefix = "not sent: conversation"

// errNotReleased is the error of a conversations stream read without a
// run to release its turns.
var errNotReleased = errors.New("a conversation's later turns are made only as a run releases them (after each answer); this command cannot list them")

// sent notes the conversation, messages and prompt length of conv's turn
// in flight, for its answer.
func (e *convEngine) sent(conv int, c *Conversation, prompt int, msgs []Message) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cs := &e.convs[conv]
	cs.c, cs.pending, cs.prompt = c, msgs, prompt
}

// historyTokens is the length in tokens of conv's history so far.
func (e *convEngine) historyTokens(conv int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.convs[conv].history
}

// answered takes a finished request's answer (Feedback.Listen): the turn
// joins its conversation's history and the next turn becomes ready after
// its think time; a failed turn ends its conversation, whose remaining
// turns are released at once as not sent.
func (e *convEngine) answered(a Answer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if a.Index < 0 || a.Index >= len(e.decisions) || e.decisions[a.Index].skip != "" || e.decisions[a.Index].conv < 0 {
		return
	}
	ref := e.decisions[a.Index]
	e.inflight--
	p, cs := e.plans[ref.conv], &e.convs[ref.conv]
	if !a.Success && e.continueOnFail {
		// The next turn goes on without the failed one in its history.
		if next := ref.turn + 1; next < p.turns {
			heap.Push(&e.ready, turnRef{at: a.End + time.Duration(p.thinkMs[next])*time.Millisecond, conv: ref.conv, turn: next})
		} else {
			e.active--
		}
	} else if a.Success {
		out := a.OutputTokens
		if out <= 0 {
			out = p.output[ref.turn]
		}
		text := a.Text
		if e.fileHistory && p.answers != nil && p.answers[ref.turn] != "" {
			text, out = p.answers[ref.turn], p.output[ref.turn]
		}
		cs.history = cs.prompt + out
		if cs.c != nil {
			cs.c.Answered(cs.pending, text)
		}
		if next := ref.turn + 1; next < p.turns {
			heap.Push(&e.ready, turnRef{at: a.End + time.Duration(p.thinkMs[next])*time.Millisecond, conv: ref.conv, turn: next})
		} else {
			e.active-- // its last turn answered
		}
	} else {
		e.active--
		why := fmt.Sprintf("%s %d ended at turn %d, whose request failed: %s", EndedTurnPrefix, ref.conv, ref.turn, a.Error)
		for t := ref.turn + 1; t < p.turns; t++ {
			heap.Push(&e.ready, turnRef{at: a.End, conv: ref.conv, turn: t, skip: why})
		}
	}
	e.signal()
}

// turnHeap orders ready turns by time, then conversation and turn.
type turnHeap []turnRef

func (h turnHeap) Len() int { return len(h) }
func (h turnHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	if h[i].conv != h[j].conv {
		return h[i].conv < h[j].conv
	}
	return h[i].turn < h[j].turn
}
func (h turnHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *turnHeap) Push(x any)   { *h = append(*h, x.(turnRef)) }
func (h *turnHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ConvReleaser is a conversations run's schedule (it has run.Schedule's
// methods): the dispatcher's Next returns each release's offset, waiting
// while an answer in flight could make an earlier turn ready.
type ConvReleaser struct{ eng *convEngine }

// Conversations is the number of conversations, whose arrivals Start
// takes.
func (r *ConvReleaser) Conversations() int { return len(r.eng.plans) }

// Start gives the conversations' arrival offsets (the run's arrival
// process, one per conversation, in order) and the run's context, whose
// end stops a wait; call it before the run.
func (r *ConvReleaser) Start(ctx context.Context, arrivals func() time.Duration) {
	e := r.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ctx, e.arrivals = ctx, arrivals
	if len(e.plans) > 0 {
		e.nextArr = arrivals()
	}
}

// Len is the number of releases: every turn of every conversation.
func (r *ConvReleaser) Len() int { return r.eng.total }

// Next returns the next release's offset from the run's start.
func (r *ConvReleaser) Next() time.Duration { return r.eng.release() }

// End ends the releases: a wait for one returns at once (the run is
// stopping).
func (r *ConvReleaser) End() { r.eng.end() }
