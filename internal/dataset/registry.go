package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// Source generates one dataset's requests.
type Source interface {
	// Requests yields the requests in the order they are sent. A failure is
	// yielded once, as a non-nil error with a zero Request, and ends the
	// sequence; so does the end of ctx (yielding ctx's error). The
	// sequence may be lazy (a file read as it is consumed) and is consumed
	// at most once; it stops early when yield returns false. Lines vLLM
	// prints while sampling go to env.Stdout and env.Stderr.
	Requests(ctx context.Context, env Env) iter.Seq2[Request, error]
}

// Env is what a Source may use besides its spec.
type Env struct {
	// Tokenizer is the client tokenizer, safe for concurrent use; nil when
	// the run has none (tokenizer.skip_init). Build refuses a kind that
	// needs one (Kind.NeedsTokenizer) before calling its Source.
	Tokenizer tokenizer.Tokenizer
	// Seed is the scenario's seed (--seed).
	Seed int64
	// Backend is the scenario's backend kind (--backend): vLLM's sonnet
	// sends raw text to openai-chat and chat-templated text to the others.
	Backend string
	// NumPrompts is load.num_prompts, the number of requests to generate;
	// a kind may give 0 or less a meaning (vLLM's custom: every line).
	NumPrompts int
	// MaxModelLen, when positive, drops the requests whose prompt and
	// expected output are together longer (load.max_model_len, vllm-bench's
	// --max-model-len); the stream is then built whole, after the
	// alignment with the server's tokenizer.
	MaxModelLen int
	// IDPrefix is the request id prefix: request i's ID is IDPrefix + i,
	// unless the kind sends no ids.
	IDPrefix string
	// Server, when not nil, returns the server's tokenizer, for the kinds
	// that align their prompts with it (Kind.Align). Build calls it at most
	// once, after generating, and only for those kinds; its error ends the
	// build as it is.
	Server func() (ServerTokenizer, error)
	// Stdout receives the lines vLLM prints (print()), Stderr the lines it
	// logs (logger.info/warning); nil discards them.
	Stdout, Stderr io.Writer
	// PyGlobal, when not nil, is Python's global random generator as vLLM
	// leaves it before sampling (random.seed(seed) at start). A kind that
	// reseeds and draws from it as vLLM does (prefix_repetition) leaves it
	// as vLLM's sampling does, so that later draws from it (the LoRA
	// modules' random assignment) match vLLM's; other kinds leave it alone.
	PyGlobal *numpy.PyRandom
	// Feedback carries the run's answers to the Source of a kind that asks
	// for them (Kind.Feedback); nil for other kinds. Open sets it.
	Feedback *Feedback
	// Counts, when not nil, receives what a kind that filters its
	// candidates counted (vbench dataset prints it); kinds that do not
	// filter leave it alone.
	Counts *Counts
	// Workers, when not nil, says how many goroutines a kind that makes
	// its requests as they are pulled may use for the next ones: a run
	// lets it use every core before its clock starts and one after, so
	// that making requests does not take the cores the run's timing
	// needs. Nil means every core (GOMAXPROCS).
	Workers func() int
}

// workers is how many goroutines the kind may use now (Env.Workers).
func (e Env) workers() int {
	if e.Workers != nil {
		return max(1, e.Workers())
	}
	return runtime.GOMAXPROCS(0)
}

// Counts is what a kind that filters its candidates (conversations,
// lines) counted while selecting.
type Counts struct {
	// Filtered reports that the kind filters: the other fields are set.
	Filtered bool
	// Examined is how many candidates the kind measured.
	Examined int
	// Dropped is how many of those its filters dropped.
	Dropped int
	// Oversampled is how many requests are copies added to reach
	// num_prompts.
	Oversampled int
}

// IgnoreEOS says when a dataset kind forces ignore_eos on in the payload,
// whatever sampling.ignore_eos says, as vLLM's serve does so that
// generation runs to the requested length.
type IgnoreEOS int

const (
	// IgnoreEOSAsSet leaves sampling.ignore_eos as the scenario sets it.
	IgnoreEOSAsSet IgnoreEOS = iota
	// IgnoreEOSOnOpenAI forces it with OpenAI-compatible backends (vLLM's
	// random and random-mm).
	IgnoreEOSOnOpenAI
	// IgnoreEOSAlways forces it with every backend (vLLM's timed_trace).
	IgnoreEOSAlways
)

// Kind is a dataset kind's registry entry.
type Kind struct {
	// Name is the kind's key under the scenario's dataset, its one
	// spelling ("random", "sharegpt", ...); the schema's entry for it has
	// the same name. vbench serve maps vLLM's --dataset-name to it.
	Name string
	// Spec returns a pointer to a new zero spec of the kind, the Go type
	// of its section of the scenario: the scenario decodes the section
	// into it (scenario.Dataset.Spec), with the schema's defaults filled
	// in.
	Spec func() any
	// New returns the Source for a scenario's dataset spec; Build calls it
	// only with a spec whose Name is Name (its Spec made by Spec). Its
	// error names the field at fault; Build prefixes "dataset <name>: ".
	New func(spec scenario.Dataset) (Source, error)
	// AllPrompts says load.num_prompts 0 means every row of the kind's
	// data (vLLM's custom datasets); for other kinds a scenario asking
	// for 0 requests is refused.
	AllPrompts bool
	// Backends, when set, returns the only target.backend values the kind
	// accepts (token-id prompts need a completions backend).
	Backends func() []string
	// Check, when set, returns the problems of a spec (made by Spec) that
	// the schema cannot see and that would fail every run, each naming
	// its field (scenario.NewProblem("dataset", Name, field)): vet reports
	// them with their file:line:col.
	Check func(spec any) []scenario.Problem
	// IgnoreEOS says when the kind forces ignore_eos on.
	IgnoreEOS IgnoreEOS
	// Align re-aligns the generated prompts with the server's tokenizer
	// (Align), as vLLM does for random and prefix_repetition.
	Align bool
	// NeedsTokenizer refuses a run without a client tokenizer.
	NeedsTokenizer bool
	// PythonRandom says vLLM's class draws from (and reseeds) Python's
	// global random module while this kind's Source draws from a
	// generator of its own instead of Env.PyGlobal: vLLM's random LoRA
	// assignment continues that global stream, so the pipeline refuses
	// random LoRA assignment with such a kind rather than choose modules
	// vLLM would not. A kind that draws from Env.PyGlobal leaves it unset.
	PythonRandom bool
	// SelfTimed, when set, reports whether a run of spec replays the
	// send times the kind's requests carry (Request.Timed, Request.Time)
	// instead of drawing arrivals from load.request_rate and
	// load.burstiness (vLLM's --self-timed for timed_trace).
	SelfTimed func(spec scenario.Dataset) bool
	// Count, when set, says how many requests the kind's Source yields
	// for spec and load.num_prompts before it makes any, and that it makes
	// them one after another as they are pulled: a run then pulls them a
	// window ahead of its schedule instead of building them all first
	// (Open). A kind that must see all its rows first (a shuffle, an
	// oversampling) leaves it unset.
	Count func(spec scenario.Dataset, numPrompts int) int
	// Memory, when set, estimates what a run of spec with numPrompts
	// requests holds for the kind (see MemoryEstimate); the run's memory
	// check adds the run's own. Without it DefaultMemory applies.
	Memory func(spec scenario.Dataset, numPrompts int) MemoryEstimate
	// Feedback says the kind's requests depend on earlier answers (a
	// conversation's next turn carries the last answer): its Source gets
	// Env.Feedback and waits there for the answers it needs; the run hands
	// each finished request's answer over before the source makes later
	// requests. Such a kind makes its requests as they are pulled, so it
	// must have Count.
	Feedback bool
	// ArrivalSeedZero says that when a run of the kind draws its arrivals
	// (not self-timed), it draws them with seed 0 whatever the scenario's
	// seed: vLLM's class reseeds NumPy's global generator with its own
	// dataset seed, which --seed does not reach (timed_trace).
	ArrivalSeedZero bool
}

// ReplaysTimes reports whether a run of spec, a spec of kind k, sends each
// request at the time it carries (Kind.SelfTimed).
func (k Kind) ReplaysTimes(spec scenario.Dataset) bool {
	return k.SelfTimed != nil && k.SelfTimed(spec)
}

// ForcesIgnoreEOS reports whether k forces ignore_eos on with a backend
// that is OpenAI-compatible or not.
func (k Kind) ForcesIgnoreEOS(openAICompatible bool) bool {
	return k.IgnoreEOS == IgnoreEOSAlways || k.IgnoreEOS == IgnoreEOSOnOpenAI && openAICompatible
}

var registry = struct {
	sync.RWMutex
	kinds map[string]Kind
}{kinds: map[string]Kind{}}

// Register adds a dataset kind; each kind's file calls it from an init
// function. It panics when k has no name or constructor, or its name is
// taken: those are programming errors.
func Register(k Kind) {
	validate(k)
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.kinds[k.Name]; ok {
		panic(fmt.Sprintf("dataset: kind %q registered twice", k.Name))
	}
	registry.kinds[k.Name] = k
	scenario.RegisterDatasetKind(k.scenarioKind())
}

// scenarioKind is what the scenario needs of k to decode and validate its
// section.
func (k Kind) scenarioKind() scenario.DatasetKind {
	return scenario.DatasetKind{Name: k.Name, NewSpec: k.Spec, AllPrompts: k.AllPrompts, Backends: k.Backends, Check: k.Check}
}

// RegisterForTest registers k in place of any kind of the same name and
// returns a function that restores the registry as it was (unregistering
// k). It is for tests, such as a toy kind's; the scenario's schema must
// know the kind's name (scenario.ExtendSchemaForTest adds a toy's).
func RegisterForTest(k Kind) (restore func()) {
	validate(k)
	registry.Lock()
	defer registry.Unlock()
	old, had := registry.kinds[k.Name]
	registry.kinds[k.Name] = k
	restoreScenario := scenario.RegisterDatasetKind(k.scenarioKind())
	return func() {
		restoreScenario()
		registry.Lock()
		defer registry.Unlock()
		if had {
			registry.kinds[k.Name] = old
		} else {
			delete(registry.kinds, k.Name)
		}
	}
}

func validate(k Kind) {
	switch {
	case k.Name == "":
		panic("dataset: a kind needs a name")
	case k.New == nil:
		panic(fmt.Sprintf("dataset: kind %q has no constructor", k.Name))
	case k.Spec == nil:
		panic(fmt.Sprintf("dataset: kind %q has no spec type", k.Name))
	case k.Feedback && k.Count == nil:
		panic(fmt.Sprintf("dataset: kind %q asks for feedback without Count: its requests cannot be made before the run", k.Name))
	case k.IgnoreEOS < IgnoreEOSAsSet || k.IgnoreEOS > IgnoreEOSAlways:
		panic(fmt.Sprintf("dataset: kind %q has an invalid IgnoreEOS %d", k.Name, k.IgnoreEOS))
	}
}

// Lookup returns the registered kind called name.
func Lookup(name string) (Kind, bool) {
	registry.RLock()
	defer registry.RUnlock()
	k, ok := registry.kinds[name]
	return k, ok
}

// Supported returns the names of the registered kinds, sorted.
func Supported() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.kinds))
	for name := range registry.kinds {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Check reports whether vbench implements the spec's kind: nil, or an error
// "dataset X is not supported by vbench yet (supported: a, b)".
func Check(spec scenario.Dataset) error {
	_, err := lookup(spec.Name)
	return err
}

func lookup(name string) (Kind, error) {
	if k, ok := Lookup(name); ok {
		return k, nil
	}
	return Kind{}, fmt.Errorf("dataset %s is not supported by vbench yet (supported: %s)", name, strings.Join(Supported(), ", "))
}

// ForcesIgnoreEOS reports whether the dataset kind called name forces
// ignore_eos on with a backend that is OpenAI-compatible or not (false for
// a kind that is not registered).
func ForcesIgnoreEOS(name string, openAICompatible bool) bool {
	k, ok := Lookup(name)
	return ok && k.ForcesIgnoreEOS(openAICompatible)
}

// Build generates the requests of the scenario's dataset spec through its
// kind's registry entry: it refuses an unregistered kind (as Check) and a
// kind that needs a tokenizer when env has none, generates the requests in
// order, checking each (Request.Validate), and, for a kind that aligns,
// re-aligns them with env.Server's tokenizer (Align), printing Align's
// message, if any, to env.Stdout. It is Open with every request taken.
func Build(ctx context.Context, spec scenario.Dataset, env Env) ([]Request, error) {
	s, err := Open(ctx, spec, env)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if !s.Lazy() {
		return s.All(), nil
	}
	reqs := make([]Request, 0, min(s.Len(), 1<<16))
	for {
		r, err := s.Next()
		if err == io.EOF {
			return reqs, nil
		}
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
}

// ErrInput is wrapped by Build's errors that come from the dataset's
// input (a file that is missing, empty or malformed, a CSV with the wrong
// header, a setting the data cannot satisfy), rather than from the network
// or a cancelled context.
var ErrInput = errors.New("bad dataset input")

// datasetError is one of Build's errors: "dataset KIND: reason", matching
// ErrInput when input is set.
type datasetError struct {
	kind  string
	err   error
	input bool
}

func (e *datasetError) Error() string { return "dataset " + e.kind + ": " + e.err.Error() }
func (e *datasetError) Unwrap() error { return e.err }
func (e *datasetError) Is(target error) bool {
	return e.input && target == ErrInput
}

// inputError wraps a dataset's error: it matches ErrInput unless it comes
// from the network (a Hub download, the server's tokenizer) or a
// cancelled context.
func inputError(kind string, err error) error {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var urlErr *url.Error
	transient := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &opErr) || errors.As(err, &dnsErr) || errors.As(err, &urlErr)
	return &datasetError{kind: kind, err: err, input: !transient}
}

// specOf returns d's spec as the kind's spec type T, or an error when the
// scenario holds another (a Source built by hand for another kind).
func specOf[T any](d scenario.Dataset) (*T, error) {
	if t, ok := d.Spec.(*T); ok && t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("the scenario's dataset %q holds %T, not a %T", d.Name, d.Spec, (*T)(nil))
}

// newSpec returns a Kind.Spec function for the spec type T.
func newSpec[T any]() func() any { return func() any { return new(T) } }
