package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"

	"github.com/vbench/vbench/internal/scenario"
)

// ConversationsSpec is the conversations kind's section of a scenario:
// synthetic multi-turn chat conversations. Each turn is sent with the
// conversation's whole history (its earlier user turns and the answers
// the server gave), once the previous turn has answered and the think time
// has passed; conversations start by the run's arrival process
// (load.request_rate, load.burstiness), and load.max_concurrency caps the
// requests in flight.
type ConversationsSpec struct {
	// Conversations is the number of conversations.
	Conversations int `json:"conversations"`
	// Turns is the number of turns of a conversation.
	Turns Dist `json:"turns"`
	// InputLen is the length in tokens of a turn's user message.
	InputLen Dist `json:"input_len"`
	// OutputLen is a turn's answer length in tokens (max_tokens).
	OutputLen Dist `json:"output_len"`
	// SharedPrefix is a system prompt in front of every conversation.
	SharedPrefix SharedPrefix `json:"shared_prefix"`
	// ThinkTimeMs is the pause, in milliseconds, between an answer's end
	// and the next turn's release.
	ThinkTimeMs Dist `json:"think_time_ms"`
	// SessionHeader, when set, names a header that carries the
	// conversation's id on each of its turns (sticky routing).
	SessionHeader string `json:"session_header,omitempty"`
	// Path, when set, is a ShareGPT-style JSON file whose conversations
	// give the user turns (and Turns and InputLen are not used): the
	// first Conversations of them, in file order.
	Path string `json:"path,omitempty"`
	// MaxActive, when positive, caps the conversations in progress: a
	// conversation that arrives while MaxActive are under way starts when
	// one of them ends (load.max_concurrency caps requests instead).
	MaxActive int `json:"max_active,omitempty"`
	// OnFailedTurn says what a failed turn does to its conversation:
	// "end" it (its later turns are not sent) or "continue" (the next
	// turn goes on without the failed one in its history).
	OnFailedTurn string `json:"on_failed_turn"`
	// History is what a turn's history holds of the earlier answers:
	// "server", the answers as the server gave them, or "file", the
	// file's own answers (with Path), whose lengths are then also each
	// turn's max_tokens.
	History string `json:"history"`
}

// SharedPrefix is a conversation's system prompt: Len tokens shared by
// every conversation (Scope "global"), one per conversation
// ("conversation"), or none.
type SharedPrefix struct {
	Scope string `json:"scope"`
	Len   int    `json:"len"`
}

// Dist is a distribution of a non-negative quantity: a fixed value, or
// uniform over [Min, Max], or lognormal with the given median and sigma,
// or zipf over [1, Max] with exponent S. Exactly one form is set; its
// scenario form is a number or {uniform: {min, max}}, {lognormal:
// {median, sigma}} or {zipf: {s, max}}.
type Dist struct {
	Fixed     *float64
	Uniform   *struct{ Min, Max float64 }
	Lognormal *struct{ Median, Sigma float64 }
	Zipf      *struct {
		S   float64
		Max int
	}
}

// UnmarshalJSON reads a number or one of the distribution objects.
func (d *Dist) UnmarshalJSON(b []byte) error {
	*d = Dist{}
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		d.Fixed = &f
		return nil
	}
	var o struct {
		Uniform *struct {
			Min float64 `json:"min"`
			Max float64 `json:"max"`
		} `json:"uniform"`
		Lognormal *struct {
			Median float64 `json:"median"`
			Sigma  float64 `json:"sigma"`
		} `json:"lognormal"`
		Zipf *struct {
			S   float64 `json:"s"`
			Max int     `json:"max"`
		} `json:"zipf"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	switch {
	case o.Uniform != nil:
		d.Uniform = &struct{ Min, Max float64 }{o.Uniform.Min, o.Uniform.Max}
	case o.Lognormal != nil:
		d.Lognormal = &struct{ Median, Sigma float64 }{o.Lognormal.Median, o.Lognormal.Sigma}
	case o.Zipf != nil:
		d.Zipf = &struct {
			S   float64
			Max int
		}{o.Zipf.S, o.Zipf.Max}
	default:
		return errors.New("a distribution is a number or {uniform: {min, max}}, {lognormal: {median, sigma}} or {zipf: {s, max}}")
	}
	return nil
}

// MarshalJSON writes d in the form UnmarshalJSON reads.
func (d Dist) MarshalJSON() ([]byte, error) {
	switch {
	case d.Uniform != nil:
		return json.Marshal(map[string]any{"uniform": map[string]float64{"min": d.Uniform.Min, "max": d.Uniform.Max}})
	case d.Lognormal != nil:
		return json.Marshal(map[string]any{"lognormal": map[string]float64{"median": d.Lognormal.Median, "sigma": d.Lognormal.Sigma}})
	case d.Zipf != nil:
		return json.Marshal(map[string]any{"zipf": map[string]any{"s": d.Zipf.S, "max": d.Zipf.Max}})
	case d.Fixed != nil:
		return json.Marshal(*d.Fixed)
	}
	return []byte("0"), nil
}

// Draw returns one value of d, rounded to an integer and at least lo.
func (d Dist) Draw(rng *rand.Rand, lo int) int { return d.Sampler()(rng, lo) }

// Sampler returns a function that draws values of d as Draw does, with
// what every draw shares (zipf's cumulative weights) made once.
func (d Dist) Sampler() func(rng *rand.Rand, lo int) int {
	var draw func(rng *rand.Rand) float64
	switch {
	case d.Uniform != nil:
		lo, hi := d.Uniform.Min, d.Uniform.Max
		draw = func(rng *rand.Rand) float64 { return lo + rng.Float64()*(hi-lo) }
	case d.Lognormal != nil:
		m, s := d.Lognormal.Median, d.Lognormal.Sigma
		draw = func(rng *rand.Rand) float64 { return m * math.Exp(s*rng.NormFloat64()) }
	case d.Zipf != nil:
		cdf := zipfCDF(d.Zipf.S, d.Zipf.Max)
		draw = func(rng *rand.Rand) float64 {
			u := rng.Float64() * cdf[len(cdf)-1]
			i, _ := slices.BinarySearch(cdf, u)
			return float64(min(i, len(cdf)-1) + 1)
		}
	default:
		v := 0.0
		if d.Fixed != nil {
			v = *d.Fixed
		}
		draw = func(*rand.Rand) float64 { return v }
	}
	return func(rng *rand.Rand, lo int) int { return max(int(math.Round(draw(rng))), lo) }
}

// zipfCDF returns the cumulative weights 1/k^s of k = 1..n.
func zipfCDF(s float64, n int) []float64 {
	cdf := make([]float64, max(n, 1))
	total := 0.0
	for k := range cdf {
		total += math.Pow(float64(k+1), -s)
		cdf[k] = total
	}
	return cdf
}

func init() {
	Register(Kind{Name: "conversations", Spec: newSpec[ConversationsSpec](), New: newConversationsSource,
		NeedsTokenizer: true, Feedback: true, Check: checkConversations,
		Backends: func() []string { return []string{"openai-chat"} },
		Count: func(spec scenario.Dataset, _ int) int {
			s, err := specOf[ConversationsSpec](spec)
			if err != nil {
				return 0
			}
			var file []fileConv
			if s.Path != "" {
				if file, err = readConversationFile(s.Path); err != nil {
					return 0 // New, called first, reported it
				}
			}
			n := 0
			for _, t := range s.plan(0, nil, file) {
				n += t.turns
			}
			return n
		}})
}

// checkConversations refuses distributions that cannot be drawn.
func checkConversations(spec any) []scenario.Problem {
	s := spec.(*ConversationsSpec)
	var out []scenario.Problem
	for name, d := range map[string]Dist{"turns": s.Turns, "input_len": s.InputLen, "output_len": s.OutputLen, "think_time_ms": s.ThinkTimeMs} {
		if msg := d.problem(); msg != "" {
			out = append(out, scenario.NewProblem(msg, "dataset", "conversations", name))
		}
	}
	if s.SessionHeader != "" && !headerToken.MatchString(s.SessionHeader) {
		out = append(out, scenario.NewProblem(fmt.Sprintf("%q is no header name: want an HTTP token (letters, digits and !#$%%&'*+-.^_`|~)", s.SessionHeader),
			"dataset", "conversations", "session_header"))
	}
	if s.History == "file" && s.Path == "" {
		out = append(out, scenario.NewProblem(`history "file" takes the answers from the conversations file: set path, or history "server"`,
			"dataset", "conversations", "history"))
	}
	if s.SharedPrefix.Scope != "none" && s.SharedPrefix.Len <= 0 {
		out = append(out, scenario.NewProblem(fmt.Sprintf("a %s shared prefix needs len > 0 (or scope \"none\")", s.SharedPrefix.Scope),
			"dataset", "conversations", "shared_prefix", "len"))
	}
	return out
}

// headerToken is an HTTP header name (RFC 9110's token).
var headerToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// problem says what is wrong with d, "" when nothing is.
func (d Dist) problem() string {
	switch {
	case d.Fixed != nil && *d.Fixed < 0:
		return "want a value >= 0"
	case d.Uniform != nil && !(0 <= d.Uniform.Min && d.Uniform.Min <= d.Uniform.Max):
		return "uniform: want 0 <= min <= max"
	case d.Lognormal != nil && !(d.Lognormal.Median > 0 && d.Lognormal.Sigma >= 0):
		return "lognormal: want median > 0 and sigma >= 0"
	case d.Zipf != nil && !(d.Zipf.S > 0 && d.Zipf.Max >= 1 && d.Zipf.Max <= 1<<20):
		return "zipf: want s > 0 and 1 <= max <= 1048576"
	}
	return ""
}

// convPlan is one conversation as drawn before the run: its turns' input
// and output lengths and think times, and, from a file, its user turns
// and the file's answers.
type convPlan struct {
	turns   int
	input   []int
	output  []int
	thinkMs []int
	users   []string // from a file (nil: random text)
	answers []string // the file's answers (nil without a file)
}

// plan draws every conversation's shape from seed: the same seed gives
// the same conversations. With file (the spec's Path, read), the turns
// are the file's first Conversations conversations, measured with tok
// (nil: lengths of 1, for counting turns only); a turn's output length is
// its file answer's when the history is the file's and it has one.
func (s *ConversationsSpec) plan(seed int64, tok interface{ Encode(string, bool) []int }, file []fileConv) []convPlan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x636f6e76))
	turns, input, output, think := s.Turns.Sampler(), s.InputLen.Sampler(), s.OutputLen.Sampler(), s.ThinkTimeMs.Sampler()
	n := s.Conversations
	if file != nil {
		n = min(n, len(file))
	}
	count := func(text string) int {
		if tok == nil {
			return 1
		}
		return max(len(tok.Encode(text, false)), 1)
	}
	out := make([]convPlan, n)
	for i := range out {
		t := 0
		if file != nil {
			t = len(file[i].users)
		} else {
			t = turns(rng, 1)
		}
		p := convPlan{turns: t, input: make([]int, t), output: make([]int, t), thinkMs: make([]int, t)}
		if file != nil {
			p.users, p.answers = file[i].users, file[i].answers
		}
		for k := range t {
			if file != nil {
				p.input[k] = count(p.users[k])
			} else {
				p.input[k] = input(rng, 1)
			}
			p.output[k] = output(rng, 1)
			if file != nil && s.History == "file" && p.answers[k] != "" {
				p.output[k] = count(p.answers[k])
			}
			p.thinkMs[k] = think(rng, 0)
		}
		out[i] = p
	}
	return out
}

// conversationsSource is the conversations kind's Source: it yields the
// turns in the order its engine releases them (see Releaser).
type conversationsSource struct {
	spec ConversationsSpec
	file []fileConv // the conversations file's, when Path is set
	eng  *convEngine
}

func newConversationsSource(spec scenario.Dataset) (Source, error) {
	s, err := specOf[ConversationsSpec](spec)
	if err != nil {
		return nil, err
	}
	src := &conversationsSource{spec: *s}
	if s.Path != "" {
		if src.file, err = readConversationFile(s.Path); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// Requests yields each released turn: the user message of its turn,
// with the conversation (whose history the payload puts in front) and,
// for turn 0, the system prompt.
func (s *conversationsSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		plans := s.spec.plan(env.Seed, env.Tokenizer, s.file)
		allowed := allowedTokens(env.Tokenizer.VocabSize(), env.Tokenizer.SpecialIDs())
		// Each text has a generator of its own, keyed by what it is (the
		// global prompt, a conversation's prompt, a turn), so the same
		// seed gives the same texts whatever order the answers release
		// the turns in.
		text := func(key uint64, n int) string {
			rng := rand.New(rand.NewPCG(uint64(env.Seed), key))
			ids := make([]int, n)
			for i := range ids {
				ids[i] = allowed[rng.IntN(len(allowed))]
			}
			return env.Tokenizer.Decode(ids)
		}
		const systemKey, globalKey = 1<<32 - 1, 1<<63 | 0x676c6f62
		var global string
		if s.spec.SharedPrefix.Scope == "global" {
			global = text(globalKey, s.spec.SharedPrefix.Len)
		}
		eng := s.engine(plans)
		eng.fileHistory, eng.maxActive, eng.continueOnFail = s.spec.History == "file", s.spec.MaxActive, s.spec.OnFailedTurn == "continue"
		if env.Feedback != nil {
			env.Feedback.Listen(eng.answered)
		}
		convs := make([]*Conversation, len(plans))
		systems := make([]string, len(plans))
		for i := 0; ; i++ {
			ref, ok, err := eng.decision(ctx, i)
			if err != nil {
				yield(Request{}, err)
				return
			}
			if !ok {
				return
			}
			c := convs[ref.conv]
			if c == nil {
				c = &Conversation{ID: "conv-" + strconv.Itoa(ref.conv)}
				convs[ref.conv] = c
				switch s.spec.SharedPrefix.Scope {
				case "global":
					systems[ref.conv] = global
				case "conversation":
					systems[ref.conv] = text(uint64(ref.conv)<<32|systemKey, s.spec.SharedPrefix.Len)
				}
			}
			p := plans[ref.conv]
			r := Request{ID: env.IDPrefix + strconv.Itoa(i), Conversation: c, Turn: ref.turn,
				OutputLen: p.output[ref.turn], Skip: ref.skip}
			if s.spec.SessionHeader != "" {
				r.Headers = map[string]string{s.spec.SessionHeader: c.ID}
			}
			if ref.skip == "" {
				var user string
				if p.users != nil {
					user = p.users[ref.turn]
				} else {
					user = text(uint64(ref.conv)<<32|uint64(ref.turn), p.input[ref.turn])
				}
				if ref.turn == 0 && systems[ref.conv] != "" {
					r.Messages = append(r.Messages, Message{Role: RoleSystem, Content: systems[ref.conv]})
				}
				r.Messages = append(r.Messages, Message{Role: RoleUser, Content: user})
				r.PromptLen = eng.historyTokens(ref.conv) + p.input[ref.turn]
				if ref.turn == 0 && systems[ref.conv] != "" {
					r.PromptLen += s.spec.SharedPrefix.Len
				}
				eng.sent(ref.conv, c, r.PromptLen, r.Messages)
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Total is the number of turns the run sends for seed: every turn of
// every conversation as drawn with it (Kind.Count, which has no seed,
// counts seed 0's).
func (s *conversationsSource) Total(seed int64) int {
	n := 0
	for _, p := range s.spec.plan(seed, nil, s.file) {
		n += p.turns
	}
	return n
}

// end ends the source's engine (Stream.End): waits for a release stop.
func (s *conversationsSource) end() {
	if s.eng != nil {
		s.eng.end()
	}
}

// engine returns the source's release engine, making it once.
func (s *conversationsSource) engine(plans []convPlan) *convEngine {
	if s.eng == nil {
		s.eng = newConvEngine(plans)
	}
	return s.eng
}

// Releaser returns the source's release engine as the run's schedule
// (see Releaser); the pipeline calls it before the run.
func (s *conversationsSource) Releaser(seed int64) *ConvReleaser {
	if s.eng == nil { // Requests makes it first, when the stream opens
		s.eng = newConvEngine(s.spec.plan(seed, nil, s.file))
	}
	return &ConvReleaser{eng: s.eng}
}

// ConversationPlan summarizes a conversations dataset as it will run,
// before any answer: each turn's prompt grows by the previous turns'
// inputs and answers (taken at their planned output lengths).
type ConversationPlan struct {
	// Conversations and Turns count the conversations and all their turns.
	Conversations, Turns int
	// ByTurn holds, per turn index, how many conversations reach it and
	// the mean prompt length (history included) in tokens.
	ByTurn []TurnPlan
	// PromptTokens is every turn's prompt tokens summed; RepeatedTokens
	// the part of them an earlier prompt or answer already held: the
	// shared system prompt after its first use, and each later turn's
	// history. Their ratio is the ideal prefix-cache hit rate.
	PromptTokens, RepeatedTokens int
}

// TurnPlan is one turn index of a ConversationPlan.
type TurnPlan struct {
	Conversations int
	MeanPrompt    float64
}

// PlanConversations draws the conversations of spec with seed, as a run
// does, measuring a conversations file's turns with tok, and summarizes
// them (see ConversationPlan).
func PlanConversations(spec scenario.Dataset, seed int64, tok interface{ Encode(string, bool) []int }) (ConversationPlan, error) {
	s, err := specOf[ConversationsSpec](spec)
	if err != nil {
		return ConversationPlan{}, err
	}
	var out ConversationPlan
	var sums []int
	sys, globalSeen := 0, false
	if s.SharedPrefix.Scope != "none" {
		sys = s.SharedPrefix.Len
	}
	var file []fileConv
	if s.Path != "" {
		if file, err = readConversationFile(s.Path); err != nil {
			return ConversationPlan{}, err
		}
	}
	for _, p := range s.plan(seed, tok, file) {
		out.Conversations++
		history := sys
		for t := range p.turns {
			prompt := history + p.input[t]
			repeated := history
			if t == 0 {
				repeated = 0
				if s.SharedPrefix.Scope == "global" && globalSeen {
					repeated = sys
				}
			}
			out.Turns++
			out.PromptTokens += prompt
			out.RepeatedTokens += repeated
			for len(out.ByTurn) <= t {
				out.ByTurn = append(out.ByTurn, TurnPlan{})
				sums = append(sums, 0)
			}
			out.ByTurn[t].Conversations++
			sums[t] += prompt
			history = prompt + p.output[t]
		}
		globalSeen = true
	}
	for t := range out.ByTurn {
		out.ByTurn[t].MeanPrompt = float64(sums[t]) / float64(out.ByTurn[t].Conversations)
	}
	return out, nil
}
