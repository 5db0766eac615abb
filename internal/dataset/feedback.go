package dataset

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Answer is what a finished request gives back to a source that asked for
// feedback (Kind.Feedback): its generated text and figures.
type Answer struct {
	// Index is the request's index in the run.
	Index int
	// Success reports that the request succeeded; Error is its error text
	// when it did not.
	Success bool
	Error   string
	// Text is the generated text, as received.
	Text string
	// PromptTokens and OutputTokens are the server's usage (0 when it
	// reported none).
	PromptTokens, OutputTokens int
	// TTFT and Latency are the time to first token and the end-to-end
	// latency.
	TTFT, Latency time.Duration
	// End is when the answer ended, from the run's start.
	End time.Duration
}

// ErrRunEnded is Feedback.Wait's error once the run has ended: the answer
// waited for will not come.
var ErrRunEnded = errors.New("the run ended before the answer arrived")

// Feedback carries finished requests' answers to the Source of a kind
// that asks for them (Kind.Feedback), through Env.Feedback: before it
// yields a request whose answer a later request needs, the source says so
// (Expect); the run hands over each expected answer as the request
// finishes; and the source waits for it (Wait) before it makes the later
// request. Only expected answers are kept, until they are taken, so a
// source that asks for none costs nothing. It is safe for concurrent use.
type Feedback struct {
	mu      sync.Mutex
	want    map[int]bool
	answers map[int]Answer
	arrived chan struct{} // closed and replaced when an answer arrives
	ended   bool
	listen  func(Answer)
}

// Listen makes Put hand every answer, expected or not, to fn as well (a
// source that follows all its requests' answers, such as a conversations
// engine); fn must not block.
func (f *Feedback) Listen(fn func(Answer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listen = fn
}

// NewFeedback returns an empty Feedback.
func NewFeedback() *Feedback {
	return &Feedback{want: map[int]bool{}, answers: map[int]Answer{}, arrived: make(chan struct{})}
}

// Expect says request i's answer will be waited for.
func (f *Feedback) Expect(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.want[i] = true
}

// Put hands over a finished request's answer; one not expected is
// dropped.
func (f *Feedback) Put(a Answer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listen != nil {
		f.listen(a)
	}
	if !f.want[a.Index] {
		return
	}
	delete(f.want, a.Index)
	f.answers[a.Index] = a
	close(f.arrived)
	f.arrived = make(chan struct{})
}

// Wait returns request i's answer once it has arrived, and forgets it. It
// fails when ctx ends or the run ends first (End).
func (f *Feedback) Wait(ctx context.Context, i int) (Answer, error) {
	for {
		f.mu.Lock()
		if a, ok := f.answers[i]; ok {
			delete(f.answers, i)
			f.mu.Unlock()
			return a, nil
		}
		if f.ended {
			f.mu.Unlock()
			return Answer{}, ErrRunEnded
		}
		arrived := f.arrived
		f.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return Answer{}, ctx.Err()
		}
	}
}

// End says no answer comes any more: waits fail with ErrRunEnded.
func (f *Feedback) End() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ended {
		f.ended = true
		close(f.arrived)
		f.arrived = make(chan struct{})
	}
}
