package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Shard is one stripe of a run split over Count workers (vbench run
// --shard Index/Count). The stripe rule deals requests out in turn: request
// i belongs to shard i mod Count. It is k6's execution-segment striping for
// Count equal segments (the sequence 0, 1/Count, …, 1): every stripe holds
// every Count-th request, so each worker carries 1/Count of the load at
// every moment of the run, and request i keeps its place in the plan (its
// prompt and its intended send time) whichever worker sends it. The union
// of the Count stripes is the whole plan, each request exactly once.
type Shard struct {
	// Index is the shard's number, 0 ≤ Index < Count.
	Index int
	// Count is the number of shards, at least 1.
	Count int
}

// Whole is the single shard of a run on one client.
var Whole = Shard{Index: 0, Count: 1}

// ParseShard parses "I/N" (0 ≤ I < N).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 0/3 (shard I of N, counted from 0)", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: I and N must be integers (I/N, e.g. 0/3)", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Check()
}

// Check reports a shard whose numbers are out of range.
func (s Shard) Check() error {
	switch {
	case s.Count < 1:
		return fmt.Errorf("shard %d/%d: the shard count must be at least 1", s.Index, s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard %d/%d: the shard index must be from 0 to %d", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// String is "I/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether request i (its index in the whole plan) is in the
// stripe.
func (s Shard) Owns(i int) bool { return i%s.Count == s.Index }

// Len is the number of requests of a plan of total requests that the
// stripe holds: total/Count, plus one for the first total mod Count
// shards.
func (s Shard) Len(total int) int {
	if total <= s.Index {
		return 0
	}
	return (total-s.Index-1)/s.Count + 1
}

// Global is the plan index of the stripe's local-th request.
func (s Shard) Global(local int) int { return s.Index + local*s.Count }

// Local is the place in the stripe of the plan's request global, which
// the stripe holds (Owns): the inverse of Global.
func (s Shard) Local(global int) int { return (global - s.Index) / s.Count }

// MaxConcurrency is the shard's part of a concurrency limit of total
// (0 = unlimited stays 0): the limit is dealt out like the requests,
// total/Count each and one more for the first total mod Count shards, so
// that the parts add up to total. A limit below Count would leave a shard
// nothing: that is an error.
func (s Shard) MaxConcurrency(total int) (int, error) {
	if total <= 0 {
		return 0, nil
	}
	if total < s.Count {
		return 0, fmt.Errorf("max_concurrency %d cannot be divided over %d shards: each needs at least 1", total, s.Count)
	}
	return s.Len(total), nil
}

// Sequence is a schedule of intended send times in request order (a
// *Cursor, or the run's own).
type Sequence interface {
	// Len is the number of requests.
	Len() int
	// Next returns the next request's offset from the start.
	Next() time.Duration
}

// Stripe returns the stripe of sched that s holds: its requests' offsets,
// unchanged (the same time base as the whole plan), in order. The
// requests of the other shards are drawn from sched and passed over, so a
// random arrival process gives every shard the times of the whole plan.
func Stripe(sched Sequence, s Shard) Sequence {
	if s.Count == 1 {
		return sched
	}
	return &stripe{sched: sched, s: s, n: s.Len(sched.Len())}
}

// stripe is Stripe's schedule.
type stripe struct {
	sched Sequence
	s     Shard
	n     int
	next  int           // the plan index sched gives next
	local int           // the stripe's requests given so far
	last  time.Duration // the offset given last
}

func (t *stripe) Len() int { return t.n }

func (t *stripe) Next() time.Duration {
	want := t.s.Global(min(t.local, t.n-1))
	t.local++
	for t.next <= want {
		t.last = t.sched.Next()
		t.next++
	}
	return t.last
}
