package pipeline

import (
	"context"
	"io"
	"sync"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
)

// windowSize is how many rendered payloads the window keeps ready ahead
// of the dispatcher.
const windowSize = 4096

// window renders the run's payloads a bounded number ahead of the
// dispatcher, on a goroutine of its own: the dispatcher takes each one
// ready (run.RunWith's take), so rendering stays off the send path, and
// the run holds at most windowSize payloads instead of all of them. The
// requests come from the dataset's stream, made as they are needed when
// its kind can (dataset.Open).
type window struct {
	stream *dataset.Stream
	ch     chan *backend.Prepared
	cancel context.CancelFunc
	done   chan struct{}
	// filled is closed once the window is full (or rendering ended; for a
	// source that waits for answers, once the first payload is ready):
	// the run's clock starts after it, so that its first requests never
	// wait for their payloads.
	filled chan struct{}
	mu     sync.Mutex
	fail   error
}

// startWindow starts rendering the requests of s with c, each given its
// LoRA module by lora (when not nil) first. With owns (a sharded run), only
// the requests owns says are this shard's are rendered: the others are
// drawn from s (and given their LoRA module, so that every random choice
// stays the whole plan's) and passed over.
func startWindow(ctx context.Context, c *backend.Client, s *dataset.Stream, lora func(int, *dataset.Request), owns func(int) bool) *window {
	ctx, cancel := context.WithCancel(ctx)
	w := &window{stream: s, ch: make(chan *backend.Prepared, windowSize), cancel: cancel, done: make(chan struct{}), filled: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer close(w.ch)
		var fill sync.Once
		defer fill.Do(func() { close(w.filled) })
		rendered := 0
		for i := 0; ; i++ {
			r, err := s.Next()
			if err == io.EOF {
				return
			}
			var p []backend.Prepared
			if err == nil {
				if lora != nil {
					lora(i, &r)
				}
				if owns != nil && !owns(i) {
					continue
				}
				p, err = c.Prepare([]dataset.Request{r}, true)
			}
			if err != nil {
				if ctx.Err() == nil { // not the run's end or interruption
					w.mu.Lock()
					w.fail = err
					w.mu.Unlock()
				}
				return
			}
			select {
			case w.ch <- &p[0]:
			case <-ctx.Done():
				return
			}
			// A source that waits for answers cannot fill the window
			// before the run answers: its first payload is enough.
			rendered++
			if rendered == windowSize || s.WantsFeedback() {
				fill.Do(func() { close(w.filled) })
			}
		}
	}()
	return w
}

// wait waits until the window is full, or rendering has ended, or ctx
// ends.
func (w *window) wait(ctx context.Context) {
	select {
	case <-w.filled:
	case <-ctx.Done():
	}
}

// low reports whether fewer than a quarter of the window's payloads are
// ready: the dispatcher is catching up with the rendering.
func (w *window) low() bool { return len(w.ch) < windowSize/4 }

// take returns the next payload, in request order; nil when rendering
// failed (see err).
func (w *window) take(int) *backend.Prepared { return <-w.ch }

// stop ends the rendering and waits for it: a source waiting for an
// answer that will not come stops waiting.
func (w *window) stop() {
	w.cancel()
	w.stream.End()
	<-w.done
}

// err is the rendering's error, if any.
func (w *window) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fail
}
