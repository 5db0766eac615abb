package dataset

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

func TestDistJSON(t *testing.T) {
	for _, tt := range []struct {
		in, out string
		err     bool
	}{
		{"5", "5", false},
		{"2.5", "2.5", false},
		{`{"uniform":{"min":1,"max":3}}`, `{"uniform":{"max":3,"min":1}}`, false},
		{`{"lognormal":{"median":60,"sigma":0.4}}`, `{"lognormal":{"median":60,"sigma":0.4}}`, false},
		{`{"zipf":{"s":1.1,"max":10}}`, `{"zipf":{"max":10,"s":1.1}}`, false},
		{`{"poisson":{"mean":3}}`, "", true},
		{`"five"`, "", true},
	} {
		var d Dist
		err := json.Unmarshal([]byte(tt.in), &d)
		if (err != nil) != tt.err {
			t.Errorf("%s: error %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		b, _ := json.Marshal(d)
		if string(b) != tt.out {
			t.Errorf("%s: marshals as %s, want %s", tt.in, b, tt.out)
		}
	}
}

// Each distribution draws what it says: the fixed value, values within
// the uniform bounds with their mean, a lognormal's median, zipf's
// frequencies in proportion to 1/k^s.
func TestDistDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d Dist
	draw := func(spec string, n int) []int {
		if err := json.Unmarshal([]byte(spec), &d); err != nil {
			t.Fatal(err)
		}
		out := make([]int, n)
		for i := range out {
			out[i] = d.Draw(rng, 0)
		}
		return out
	}
	if v := draw("7", 3); v[0] != 7 || v[2] != 7 {
		t.Errorf("fixed 7 drew %v", v)
	}
	sum := 0
	for _, v := range draw(`{"uniform":{"min":10,"max":20}}`, 20000) {
		if v < 10 || v > 20 {
			t.Fatalf("uniform [10, 20] drew %d", v)
		}
		sum += v
	}
	if m := float64(sum) / 20000; math.Abs(m-15) > 0.1 {
		t.Errorf("uniform [10, 20] mean %.3f, want 15", m)
	}
	below := 0
	for _, v := range draw(`{"lognormal":{"median":100,"sigma":0.5}}`, 20000) {
		if v < 100 {
			below++
		}
	}
	if f := float64(below) / 20000; math.Abs(f-0.5) > 0.02 {
		t.Errorf("lognormal median 100: %.3f below it, want 0.5", f)
	}
	count := make([]int, 6)
	for _, v := range draw(`{"zipf":{"s":1,"max":5}}`, 60000) {
		count[v]++
	}
	h := 1 + 1.0/2 + 1.0/3 + 1.0/4 + 1.0/5
	for k := 1; k <= 5; k++ {
		want := 60000 / (float64(k) * h)
		if math.Abs(float64(count[k])-want) > 4*math.Sqrt(want) {
			t.Errorf("zipf s=1 max=5: %d draws of %d, want about %.0f", count[k], k, want)
		}
	}
	if v := draw("0", 1); (Dist{Fixed: new(float64)}).Draw(rng, 1) != 1 || v[0] != 0 {
		t.Errorf("the floor is not applied")
	}
}

// The engine releases a conversation's first turn at its arrival and each
// later turn at its predecessor's end plus the think time, interleaving
// conversations by time; a failed turn releases the rest of its
// conversation at once, as not sent.
func TestConvEngineOrder(t *testing.T) {
	plans := []convPlan{
		{turns: 3, input: []int{1, 1, 1}, output: []int{1, 1, 1}, thinkMs: []int{0, 50, 50}},
		{turns: 2, input: []int{1, 1}, output: []int{1, 1}, thinkMs: []int{0, 0}},
	}
	e := newConvEngine(plans)
	rel := &ConvReleaser{eng: e}
	arr := []time.Duration{0, 20 * time.Millisecond}
	rel.Start(context.Background(), func() time.Duration { d := arr[0]; arr = arr[1:]; return d })
	if rel.Len() != 5 {
		t.Fatalf("Len %d, want 5", rel.Len())
	}
	type step struct {
		conv, turn int
		skip       bool
	}
	var got []step
	next := func() turnRef {
		rel.Next()
		ref, ok, err := e.decision(context.Background(), len(got))
		if len(got) == 0 {
			ref = e.decisions[0]
		}
		if !ok || err != nil {
			t.Fatalf("release %d: %v %v", len(got), ok, err)
		}
		got = append(got, step{ref.conv, ref.turn, ref.skip != ""})
		return ref
	}
	next() // conv 0 turn 0 at 0
	e.answered(Answer{Index: 0, Success: true, Text: "a", End: 10 * time.Millisecond})
	next() // conv 1 turn 0 at 20 ms, before conv 0 turn 1 at 60 ms
	e.answered(Answer{Index: 1, Success: false, Error: "boom", End: 25 * time.Millisecond})
	next()        // conv 1 turn 1, not sent, at 25 ms
	ref := next() // conv 0 turn 1 at 60 ms
	if ref.at != 60*time.Millisecond {
		t.Errorf("conv 0 turn 1 due at %v, want 60ms", ref.at)
	}
	e.answered(Answer{Index: 3, Success: true, Text: "b", End: 70 * time.Millisecond})
	ref = next() // conv 0 turn 2 at 120 ms
	if ref.at != 120*time.Millisecond {
		t.Errorf("conv 0 turn 2 due at %v, want 120ms", ref.at)
	}
	want := []step{{0, 0, false}, {1, 0, false}, {1, 1, true}, {0, 1, false}, {0, 2, false}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("releases %v, want %v", got, want)
		}
	}
}

// The plan's ideal hit rate, by hand: one conversation of three turns,
// 10-token inputs, 5-token answers, no system prompt. Prompts 10, 25
// (10+5+10) and 40: 75 tokens; repeated 0, 15 and 30: 45.
func TestPlanConversations(t *testing.T) {
	ten, five, three := 10.0, 5.0, 3.0
	spec := &ConversationsSpec{Conversations: 1, Turns: Dist{Fixed: &three}, InputLen: Dist{Fixed: &ten},
		OutputLen: Dist{Fixed: &five}, SharedPrefix: SharedPrefix{Scope: "none"}, ThinkTimeMs: Dist{Fixed: new(float64)}}
	plan, err := PlanConversations(scenario.Dataset{Name: "conversations", Spec: spec}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Turns != 3 || plan.PromptTokens != 75 || plan.RepeatedTokens != 45 || plan.ByTurn[2].MeanPrompt != 40 {
		t.Errorf("plan %+v, want 3 turns, 75 prompt tokens, 45 repeated, turn 3's prompt 40", plan)
	}
}
