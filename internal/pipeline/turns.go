package pipeline

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// turnStats is a run sink that sums a conversations run's figures by turn
// index: the successful turns' TTFT, end-to-end latency and prompt length
// (the history the turn carried), the conversations a failed turn ended,
// and each conversation's span and successful turns.
type turnStats struct {
	mu    sync.Mutex
	turns []turnSum
	ended int
	convs map[string]*convSpan
}

// convSpan is one conversation's time span and its successful turns.
type convSpan struct {
	start, end time.Duration
	done       int
}

// turnSum is one turn index's sums.
type turnSum struct {
	n                  int
	ttft, e2el, prompt float64
}

// Record adds one finished request.
func (t *turnStats) Record(rec *record.Record) {
	if rec.Conversation == "" || rec.NotSent {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.convs == nil {
		t.convs = map[string]*convSpan{}
	}
	c := t.convs[rec.Conversation]
	if c == nil {
		c = &convSpan{start: rec.Start}
		t.convs[rec.Conversation] = c
	}
	c.start, c.end = min(c.start, rec.Start), max(c.end, rec.End, rec.Start)
	if !rec.Success {
		t.ended++
		return
	}
	c.done++
	for len(t.turns) <= rec.Turn {
		t.turns = append(t.turns, turnSum{})
	}
	s := &t.turns[rec.Turn]
	s.n++
	s.ttft += rec.TTFT() * 1000
	s.e2el += rec.Latency() * 1000
	s.prompt += float64(rec.PromptLen)
}

// line is the console line of the sums, "" for a run without turns: per
// turn (numbered from 1), the mean TTFT, E2EL and prompt length.
func (t *turnStats) line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.turns) == 0 && t.ended == 0 {
		return ""
	}
	var parts []string
	for i, s := range t.turns {
		if s.n == 0 {
			continue
		}
		n := float64(s.n)
		parts = append(parts, fmt.Sprintf("%d: TTFT %.2f ms, E2EL %.2f ms, prompt %.0f tokens (%d)", i+1, s.ttft/n, s.e2el/n, s.prompt/n, s.n))
	}
	out := "Turns (mean TTFT, E2EL and prompt length by turn, over the successful turns): " + strings.Join(parts, "; ") + "\n"
	var dur time.Duration
	done := 0
	for _, c := range t.convs {
		dur += c.end - c.start
		done += c.done
	}
	if n := len(t.convs); n > 0 {
		out += fmt.Sprintf("Conversations: %d, mean duration %.2f s (first turn's start to last turn's end), mean %.2f successful turns each\n",
			n, (dur / time.Duration(n)).Seconds(), float64(done)/float64(n))
	}
	if t.ended > 0 {
		out += fmt.Sprintf("Conversations ended by a failed turn: %d\n", t.ended)
	}
	return out
}

// turnJSON is one turn index's figures in the result's "vbench" object.
type turnJSON struct {
	Turn             int     `json:"turn"`
	Count            int     `json:"count"`
	MeanTTFTMs       float64 `json:"mean_ttft_ms"`
	MeanE2ELMs       float64 `json:"mean_e2el_ms"`
	MeanPromptTokens float64 `json:"mean_prompt_tokens"`
}

// conversationsJSON is a conversations run's figures in the result's
// "vbench" object.
type conversationsJSON struct {
	Conversations       int        `json:"conversations"`
	MeanDurationS       float64    `json:"mean_duration_s"`
	MeanSuccessfulTurns float64    `json:"mean_successful_turns"`
	EndedByFailure      int        `json:"ended_by_failure"`
	TurnsNotSent        int        `json:"turns_not_sent"`
	Turns               []turnJSON `json:"turns"`
}

// json is the figures for the result's "vbench" object (nil for a run
// without conversations); notSent is the run's ended turns.
func (t *turnStats) json(notSent int) *conversationsJSON {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.convs) == 0 {
		return nil
	}
	out := &conversationsJSON{Conversations: len(t.convs), EndedByFailure: t.ended, TurnsNotSent: notSent, Turns: []turnJSON{}}
	var dur time.Duration
	done := 0
	for _, c := range t.convs {
		dur += c.end - c.start
		done += c.done
	}
	n := float64(len(t.convs))
	out.MeanDurationS, out.MeanSuccessfulTurns = dur.Seconds()/n, float64(done)/n
	for i, s := range t.turns {
		if s.n == 0 {
			continue
		}
		k := float64(s.n)
		out.Turns = append(out.Turns, turnJSON{Turn: i + 1, Count: s.n, MeanTTFTMs: s.ttft / k, MeanE2ELMs: s.e2el / k, MeanPromptTokens: s.prompt / k})
	}
	return out
}
