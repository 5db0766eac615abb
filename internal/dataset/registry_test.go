package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

// toySource is a toy dataset kind: request i is the prompt "ab" repeated
// (seed mod 3) + 1 times, counted by the words of the toy tokenizer's
// encoding, with an output length of i+1. With failAt ≥ 0 it fails
// instead of yielding request failAt. It records how many requests the
// consumer pulled.
type toySource struct {
	path   string
	failAt int
	pulled *int
}

func (s toySource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		prompt := s.path + ":" + strings.Repeat("ab", int(env.Seed%3)+1)
		for i := range env.NumPrompts {
			if err := ctx.Err(); err != nil {
				yield(Request{}, err)
				return
			}
			if i == s.failAt {
				yield(Request{}, fmt.Errorf("%s: line %d: no prompt", s.path, i+1))
				return
			}
			*s.pulled++
			r := Request{Prompt: prompt, PromptLen: len(env.Tokenizer.Encode(prompt, false)),
				OutputLen: i + 1, ID: env.IDPrefix + strconv.Itoa(i)}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// toySpec is the toy kind's section of a scenario.
type toySpec struct {
	Path string `json:"path"`
}

// toyKind registers the toy source as a new kind, "toy", and returns its
// spec.
func toyKind(t *testing.T, k Kind, failAt int, pulled *int) scenario.Dataset {
	t.Helper()
	k.Name, k.Spec = "toy", newSpec[toySpec]()
	k.New = func(spec scenario.Dataset) (Source, error) {
		s, err := specOf[toySpec](spec)
		if err != nil {
			return nil, err
		}
		if s.Path == "" {
			return nil, errors.New("dataset.toy.path is empty")
		}
		return toySource{path: s.Path, failAt: failAt, pulled: pulled}, nil
	}
	t.Cleanup(RegisterForTest(k))
	return scenario.Dataset{Name: "toy", Spec: &toySpec{Path: "toy"}}
}

func TestToyKindThroughTheRegistry(t *testing.T) {
	spec := scenario.Dataset{Name: "toy", Spec: &toySpec{Path: "toy"}}
	before, beforeNames := Check(spec), Supported()
	if before == nil {
		t.Fatal("Check accepted the toy kind before it was registered")
	}

	var pulled int
	restore := RegisterForTest(Kind{Name: "toy", Spec: newSpec[toySpec](), IgnoreEOS: IgnoreEOSAlways, Align: true, NeedsTokenizer: true,
		New: func(spec scenario.Dataset) (Source, error) {
			return toySource{path: spec.Spec.(*toySpec).Path, failAt: -1, pulled: &pulled}, nil
		}})
	if err := Check(spec); err != nil {
		t.Fatalf("Check with the toy kind registered: %v", err)
	}
	if !slices.Contains(Supported(), "toy") || !slices.Contains(Supported(), "random") {
		t.Errorf("Supported() = %q, want toy and random", Supported())
	}
	if !ForcesIgnoreEOS("toy", false) {
		t.Error("the toy kind declares IgnoreEOSAlways, but ForcesIgnoreEOS is false")
	}

	srv := &fakeServer{}
	var stdout, stderr bytes.Buffer
	got, err := Build(context.Background(), spec, Env{Tokenizer: toyTokenizer{}, Seed: 4, NumPrompts: 3, IDPrefix: "t-",
		Server: func() (ServerTokenizer, error) { return srv, nil }, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	// The toy tokenizer counts "toy:abab" as 2 tokens ("ab" twice; the
	// other bytes encode to nothing) and the fake server as 8 (one per
	// byte), so alignment cuts every prompt to its first 2 bytes.
	want := make([]Request, 3)
	for i := range want {
		want[i] = Request{Prompt: "to", PromptLen: 2, OutputLen: i + 1, ID: "t-" + strconv.Itoa(i)}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Build\n got %+v\nwant %+v", got, want)
	}
	if s := stdout.String(); s != "WARNING: tokenizer mismatch (server=8, expected=2), re-aligning prompts.\n" {
		t.Errorf("stdout = %q", s)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q", stderr.String())
	}

	restore()
	if after := Check(spec); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("after restore, Check = %v, want %v", after, before)
	}
	if !slices.Equal(Supported(), beforeNames) {
		t.Errorf("after restore, Supported() = %q, want %q", Supported(), beforeNames)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name   string
		kind   Kind
		failAt int
		path   string
		env    Env
		want   string
		pulled int
	}{
		{name: "source error stops the build", failAt: 2, path: "toy",
			env: Env{Tokenizer: toyTokenizer{}, NumPrompts: 5}, want: "dataset toy: toy: line 3: no prompt", pulled: 2},
		{name: "constructor error", failAt: -1, path: "",
			env: Env{Tokenizer: toyTokenizer{}, NumPrompts: 5}, want: "dataset toy: dataset.toy.path is empty"},
		{name: "needs a tokenizer", kind: Kind{NeedsTokenizer: true}, failAt: -1, path: "toy",
			env: Env{NumPrompts: 5}, want: "dataset toy needs a client tokenizer: unset tokenizer.skip_init"},
		{name: "server error", kind: Kind{Align: true}, failAt: -1, path: "toy",
			env: Env{Tokenizer: toyTokenizer{}, NumPrompts: 2, Server: func() (ServerTokenizer, error) {
				return nil, errors.New("ca_file: no certificates")
			}}, want: "ca_file: no certificates", pulled: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pulled int
			spec := toyKind(t, tt.kind, tt.failAt, &pulled)
			spec.Spec.(*toySpec).Path = tt.path
			reqs, err := Build(context.Background(), spec, tt.env)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Build error = %v, want %q", err, tt.want)
			}
			if reqs != nil {
				t.Errorf("Build returned %d requests with its error", len(reqs))
			}
			if pulled != tt.pulled {
				t.Errorf("the source made %d requests, want %d", pulled, tt.pulled)
			}
		})
	}
}

func TestBuildCancelled(t *testing.T) {
	var pulled int
	spec := toyKind(t, Kind{}, -1, &pulled)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, spec, Env{Tokenizer: toyTokenizer{}, NumPrompts: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("Build error = %v, want context.Canceled", err)
	}
}

func TestBuildWithoutAlignment(t *testing.T) {
	tests := []struct {
		name   string
		align  bool
		server bool
	}{
		{"kind does not align", false, true},
		{"no server", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pulled, calls int
			spec := toyKind(t, Kind{Align: tt.align}, -1, &pulled)
			env := Env{Tokenizer: toyTokenizer{}, NumPrompts: 2}
			if tt.server {
				env.Server = func() (ServerTokenizer, error) { calls++; return &fakeServer{}, nil }
			}
			reqs, err := Build(context.Background(), spec, env)
			if err != nil {
				t.Fatal(err)
			}
			if calls != 0 || len(reqs) != 2 || reqs[0].Prompt != "toy:ab" {
				t.Errorf("server called %d times, requests %+v", calls, reqs)
			}
		})
	}
}

func TestUnsupportedKind(t *testing.T) {
	_, err := lookup("no-such-kind")
	want := "dataset no-such-kind is not supported by vbench yet (supported: " + strings.Join(Supported(), ", ") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("lookup error = %v, want %q", err, want)
	}
	if _, err := Build(context.Background(), scenario.Dataset{}, Env{}); err == nil ||
		!strings.HasPrefix(err.Error(), "dataset  is not supported by vbench yet (supported: ") {
		t.Errorf("Build of an empty spec: %v", err)
	}
	if ForcesIgnoreEOS("no-such-kind", true) {
		t.Error("ForcesIgnoreEOS is true for an unregistered kind")
	}
}

// TestRandomKind pins the random kind's entry and checks that Build gives
// what Random gives, with vLLM's lines on their streams.
func TestRandomKind(t *testing.T) {
	k, ok := Lookup("random")
	if !ok {
		t.Fatal("random is not registered")
	}
	if k.IgnoreEOS != IgnoreEOSOnOpenAI || !k.Align || !k.NeedsTokenizer {
		t.Errorf("random kind = %+v", k)
	}
	if err := Check(scenario.Dataset{Name: "random", Spec: &RandomSpec{}}); err != nil {
		t.Error(err)
	}
	spec := RandomSpec{InputLen: 40, OutputLen: 8, PrefixLen: 10, RangeRatio: RangeRatio{Input: 0.5}}
	tok := o200k(t)
	want, info, err := Random(spec, 9, 5, tok, "r-")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	got, err := Build(context.Background(), scenario.Dataset{Name: "random", Spec: &spec},
		Env{Tokenizer: tok, Seed: 5, NumPrompts: 9, IDPrefix: "r-", Stdout: &stdout, Stderr: &stderr,
			Server: func() (ServerTokenizer, error) {
				return &fakeServer{tokenizeErr: func(string) error { return errors.New("404") }}, nil
			}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Build differs from Random")
	}
	wantErr := info.SamplingMessage() + "\n"
	for _, w := range info.Warnings() {
		wantErr += w + "\n"
	}
	if stderr.String() != wantErr {
		t.Errorf("stderr = %q, want %q", stderr.String(), wantErr)
	}
	if s := stdout.String(); s != "WARNING: /tokenize unavailable, skipping alignment.\n" {
		t.Errorf("stdout = %q", s)
	}

	_, err = Build(context.Background(), scenario.Dataset{Name: "random", Spec: &RandomSpec{InputLen: 4, OutputLen: 1,
		RangeRatio: RangeRatio{Input: 1}}}, Env{Tokenizer: tok, NumPrompts: 1})
	if want := "dataset random: random dataset: range_ratio.input 1 must be in [0, 1)"; err == nil || err.Error() != want {
		t.Errorf("Build error = %v, want %q", err, want)
	}
}

func TestForcesIgnoreEOS(t *testing.T) {
	tests := []struct {
		policy       IgnoreEOS
		openAI, want bool
	}{
		{IgnoreEOSAsSet, true, false},
		{IgnoreEOSAsSet, false, false},
		{IgnoreEOSOnOpenAI, true, true},
		{IgnoreEOSOnOpenAI, false, false},
		{IgnoreEOSAlways, true, true},
		{IgnoreEOSAlways, false, true},
	}
	for _, tt := range tests {
		if got := (Kind{IgnoreEOS: tt.policy}).ForcesIgnoreEOS(tt.openAI); got != tt.want {
			t.Errorf("policy %d, OpenAI-compatible %v: got %v, want %v", tt.policy, tt.openAI, got, tt.want)
		}
	}
	if !ForcesIgnoreEOS("random", true) || ForcesIgnoreEOS("random", false) {
		t.Error("random forces ignore_eos exactly with OpenAI-compatible backends")
	}
}

func TestRegisterRefuses(t *testing.T) {
	newToy := func(scenario.Dataset) (Source, error) { return nil, nil }
	tests := []struct {
		name string
		kind Kind
		want string
	}{
		{"no name", Kind{New: newToy}, "dataset: a kind needs a name"},
		{"no constructor", Kind{Name: "toy"}, `dataset: kind "toy" has no constructor`},
		{"no spec type", Kind{Name: "toy", New: newToy}, `dataset: kind "toy" has no spec type`},
		{"bad policy", Kind{Name: "toy", Spec: newSpec[toySpec](), New: newToy, IgnoreEOS: 7}, `dataset: kind "toy" has an invalid IgnoreEOS 7`},
		{"twice", Kind{Name: "random", Spec: newSpec[RandomSpec](), New: newToy}, `dataset: kind "random" registered twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tt.want {
					t.Errorf("panic %v, want %q", got, tt.want)
				}
			}()
			Register(tt.kind)
		})
	}
	if k, _ := Lookup("random"); k.New == nil {
		t.Error("a refused registration replaced random")
	}
}

func TestConversation(t *testing.T) {
	c := &Conversation{ID: "c1"}
	if c.History() != nil || c.Turns() != 0 {
		t.Fatalf("new conversation has history %v, %d turns", c.History(), c.Turns())
	}
	turn0 := []Message{{Role: RoleSystem, Content: "be brief"}, {Role: RoleUser, Content: "hi"}}
	c.Answered(turn0, "hello")
	h := c.History()
	h[0].Content = "changed"
	c.Answered([]Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "and this?"},
		{Type: PartImage, URL: "data:image/png;base64,AAAA"}}}}, "a picture")
	want := []Message{turn0[0], turn0[1], {Role: RoleAssistant, Content: "hello"},
		{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "and this?"}, {Type: PartImage, URL: "data:image/png;base64,AAAA"}}},
		{Role: RoleAssistant, Content: "a picture"}}
	if got := c.History(); !reflect.DeepEqual(got, want) || c.Turns() != 2 {
		t.Errorf("history after 2 turns (%d)\n got %+v\nwant %+v", c.Turns(), got, want)
	}

	// Concurrent readers and writers (run with -race).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				c.Answered(nil, "x")
				_ = c.History()
			}
		})
	}
	wg.Wait()
	if c.Turns() != 202 || len(c.History()) != 5+200 {
		t.Errorf("after concurrent answers: %d turns, %d messages", c.Turns(), len(c.History()))
	}
}

func TestRequestValidate(t *testing.T) {
	conv := &Conversation{ID: "c"}
	img := Part{Type: PartImage, URL: "https://example.invalid/a.png"}
	tests := []struct {
		name string
		req  Request
		want string // "" for valid
	}{
		{"text", Request{Prompt: "hi", PromptLen: 1, OutputLen: 2, ID: "x"}, ""},
		{"batch", Request{Prompts: []string{"a", "b"}, PromptLen: 2}, ""},
		{"token ids", Request{PromptTokens: []int{1, 2}, PromptLen: 2, Time: 3 * time.Second, Timed: true}, ""},
		{"empty prompt", Request{}, ""},
		{"chat turn", Request{Prompt: "hi", Conversation: conv, Turn: 2, Model: "lora-1", ExtraBody: map[string]any{"tools": []any{}},
			Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "see"}, img,
				{Type: PartAudio, URL: "data:audio/wav;base64,AAAA"}, {Type: PartVideo, URL: "https://example.invalid/v.mp4"}}}}}, ""},
		{"batch and ids", Request{Prompts: []string{"a"}, PromptTokens: []int{1}}, "both a prompt batch (Prompts) and token ids (PromptTokens)"},
		{"text and ids", Request{Prompt: "a", PromptTokens: []int{1}}, "a text prompt besides a prompt batch or token ids"},
		{"negative length", Request{Prompt: "a", OutputLen: -1}, "negative length (prompt 0, output -1)"},
		{"turn alone", Request{Prompt: "a", Turn: 1}, "turn 1 without a conversation"},
		{"negative turn", Request{Prompt: "a", Conversation: conv, Turn: -1}, "turn -1 without a conversation"},
		{"negative time", Request{Prompt: "a", Time: -time.Second, Timed: true}, "negative time -1s"},
		{"time not timed", Request{Prompt: "a", Time: time.Second}, "time 1s without Timed"},
		{"no role", Request{Messages: []Message{{Content: "a"}}}, "message 0 has no role"},
		{"text part with URL", Request{Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "a", URL: "u"}}}}},
			"message 0, part 0: a text part with a URL"},
		{"image without URL", Request{Messages: []Message{{Role: RoleUser}, {Role: RoleUser, Parts: []Part{img, {Type: PartImage}}}}},
			"message 1, part 1: a media part (image) needs a URL and no text"},
		{"unknown part", Request{Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: "3d", URL: "u"}}}}},
			`message 0, part 0: unknown part type "3d"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestBuildRefusesAnInvalidRequest(t *testing.T) {
	restore := RegisterForTest(Kind{Name: "toy", Spec: newSpec[toySpec](), New: func(scenario.Dataset) (Source, error) { return badSource{}, nil }})
	defer restore()
	_, err := Build(context.Background(), scenario.Dataset{Name: "toy", Spec: &toySpec{Path: "x"}}, Env{NumPrompts: 2})
	if want := "internal error: dataset toy: request 1: turn 3 without a conversation"; err == nil || err.Error() != want {
		t.Errorf("Build error = %v, want %q", err, want)
	}
}

// badSource yields a valid request, then one with a turn but no
// conversation.
type badSource struct{}

func (badSource) Requests(context.Context, Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		_ = yield(Request{Prompt: "ok"}, nil) && yield(Request{Prompt: "bad", Turn: 3}, nil)
	}
}

// Only timed_trace replays its requests' times (unless self_timed is
// false) and draws its arrivals with seed 0 otherwise; the pipeline reads
// both from the registry.
func TestSelfTimedKinds(t *testing.T) {
	no := false
	tests := []struct {
		name     string
		spec     scenario.Dataset
		replays  bool
		seedZero bool
	}{
		{"timed_trace", scenario.Dataset{Name: "timed_trace", Spec: &TimedTraceSpec{Path: "t.jsonl"}}, true, true},
		{"timed_trace", scenario.Dataset{Name: "timed_trace", Spec: &TimedTraceSpec{Path: "t.jsonl", SelfTimed: &no}}, false, true},
		{"random", scenario.Dataset{Name: "random", Spec: &RandomSpec{}}, false, false},
		{"speed_bench", scenario.Dataset{Name: "speed_bench", Spec: &SpeedBenchSpec{}}, false, false},
	}
	for _, tt := range tests {
		k, ok := Lookup(tt.name)
		if !ok {
			t.Fatalf("%s is not registered", tt.name)
		}
		if got := k.ReplaysTimes(tt.spec); got != tt.replays {
			t.Errorf("%s: ReplaysTimes = %v, want %v", tt.name, got, tt.replays)
		}
		if k.ArrivalSeedZero != tt.seedZero {
			t.Errorf("%s: ArrivalSeedZero = %v, want %v", tt.name, k.ArrivalSeedZero, tt.seedZero)
		}
	}
}
