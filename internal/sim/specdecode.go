package sim

import (
	"bytes"
	"math"
	"strconv"
	"sync/atomic"
	"time"
)

// specEngines is how many engines the simulator's speculative-decoding
// counters are split over (vLLM labels each engine's counters with
// engine="<i>"; a request is counted by the engine its key's parity
// picks).
const specEngines = 2

// specCounters are vLLM's speculative-decoding counters of the simulator,
// per engine, driven by the deterministic acceptance model of
// SpecAccepted. The stream itself is unchanged: one token per event.
type specCounters struct {
	k                             int
	rate                          float64
	created                       [specEngines]string // the _created timestamps, as written
	drafts, draftTokens, accepted [specEngines]atomic.Uint64
	perPos                        [specEngines][]atomic.Uint64
}

// newSpecCounters returns the counters of k speculative tokens accepted at
// rate, or nil when k is 0.
func newSpecCounters(k int, rate float64, start time.Time) *specCounters {
	if k <= 0 {
		return nil
	}
	c := &specCounters{k: k, rate: rate}
	for e := range specEngines {
		c.perPos[e] = make([]atomic.Uint64, k)
		// Engines start a moment apart, as vLLM's do.
		ts := float64(start.UnixNano())/1e9 + float64(e)*0.001
		c.created[e] = strconv.FormatFloat(ts, 'e', -1, 64)
	}
	return c
}

// SpecAccepted is the simulator's acceptance model: draft j (0-based) of a
// sequence with k speculative tokens accepts
// ⌊rate·k·(j+1)⌋ − ⌊rate·k·j⌋ of them (its leading positions), so that over
// many drafts rate·k tokens are accepted per draft. The first token of a
// sequence comes from the prefill; each draft then yields its accepted
// tokens plus one, and the last draft accepts only what the sequence still
// needs. It returns the drafts of a sequence of n tokens and the accepted
// tokens of each.
func SpecAccepted(k int, rate float64, n int) []int {
	var out []int
	floor := func(j int) int { return int(math.Floor(rate*float64(k)*float64(j) + 1e-9)) }
	for j, left := 0, n-1; left > 0; j++ {
		a := min(floor(j+1)-floor(j), k, left-1)
		out = append(out, a)
		left -= a + 1
	}
	return out
}

// record counts the drafts of a finished sequence of n tokens with key.
func (c *specCounters) record(key uint64, n int) {
	if c == nil {
		return
	}
	e := key % specEngines
	for _, a := range SpecAccepted(c.k, c.rate, n) {
		c.drafts[e].Add(1)
		c.draftTokens[e].Add(uint64(c.k))
		c.accepted[e].Add(uint64(a))
		for p := range a {
			c.perPos[e][p].Add(1)
		}
	}
}

// SpecStats are the simulator's speculative-decoding counters, summed
// over its engines.
type SpecStats struct {
	// Drafts, DraftTokens and Accepted are vllm:spec_decode_num_drafts,
	// …_num_draft_tokens and …_num_accepted_tokens.
	Drafts, DraftTokens, Accepted uint64
	// PerPosition is …_num_accepted_tokens_per_pos by position.
	PerPosition []uint64
}

// stats sums the counters over the engines.
func (c *specCounters) stats() SpecStats {
	if c == nil {
		return SpecStats{}
	}
	st := SpecStats{PerPosition: make([]uint64, c.k)}
	for e := range specEngines {
		st.Drafts += c.drafts[e].Load()
		st.DraftTokens += c.draftTokens[e].Load()
		st.Accepted += c.accepted[e].Load()
		for p := range c.perPos[e] {
			st.PerPosition[p] += c.perPos[e][p].Load()
		}
	}
	return st
}

// write writes the counters as Python's prometheus_client does: each
// family declared under its base name, every label set's _total sample
// followed by its _created timestamp.
func (c *specCounters) write(b *bytes.Buffer, model string) {
	if c == nil {
		return
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) + ".0" }
	fam := func(name, help string, value func(e int) []labelled) {
		b.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n")
		for e := range specEngines {
			for _, l := range value(e) {
				b.WriteString(name + "_total{" + l.labels + "} " + l.value + "\n")
				b.WriteString(name + "_created{" + l.labels + "} " + c.created[e] + "\n")
			}
		}
	}
	lbl := func(e int) string {
		return `engine="` + strconv.Itoa(e) + `",model_name=` + strconv.Quote(model)
	}
	one := func(v *[specEngines]atomic.Uint64) func(int) []labelled {
		return func(e int) []labelled { return []labelled{{lbl(e), u(v[e].Load())}} }
	}
	fam("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", one(&c.drafts))
	fam("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", one(&c.draftTokens))
	fam("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", one(&c.accepted))
	fam("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.", func(e int) []labelled {
		out := make([]labelled, c.k)
		for p := range out {
			out[p] = labelled{lbl(e) + `,position="` + strconv.Itoa(p) + `"`, u(c.perPos[e][p].Load())}
		}
		return out
	})
}

// labelled is one sample's labels and value.
type labelled struct{ labels, value string }
