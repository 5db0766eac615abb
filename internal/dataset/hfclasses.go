package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"

	"github.com/vbench/vbench/internal/tokenizer"
)

// hfClass is one of vLLM's Hugging Face dataset classes (a subclass of
// HuggingFaceDataset in vllm/benchmarks/datasets/datasets.py): the dataset
// ids it serves and how it turns their rows into requests. The hf loader
// (hf.go) picks the class with hfClassFor, loads and shuffles the rows and
// hands them to Sample.
type hfClass struct {
	Name         string   // vLLM's class name, e.g. "InstructCoderDataset"
	IDs          []string // dataset ids it serves (vLLM's SUPPORTED_DATASET_PATHS)
	DefaultSplit string   // split used when --hf-split is unset ("" = "train")
	// DefaultSubset is the subset (configuration) used when --hf-subset is
	// unset, "" for none: vLLM's get_samples sets "main" for GSM8K, whose
	// dataset has two.
	DefaultSubset string
	// Sample turns the loaded (already shuffled) rows into requests, as the class's
	// sample() does: filtering, prompt building, chat template, output length,
	// request ids and oversampling. Oversampling reseeds and draws from
	// Env.PyGlobal, as vLLM's from Python's global random (so the hf kind
	// needs no Kind.PythonRandom).
	Sample func(ctx context.Context, rows iter.Seq2[hfRow, error], repo hfRepo, spec *HFSpec, env Env) iter.Seq2[Request, error]
	// Load, when not nil, replaces the split's loading and Sample: the
	// class reads the files it wants from the repository (BFCL's
	// per-category files).
	Load func(ctx context.Context, repo hfRepo, spec *HFSpec, env Env) iter.Seq2[Request, error]
}

// hfClasses are the classes vbench implements, in the order vLLM's
// get_samples tries them.
var hfClasses = []*hfClass{
	{Name: "InstructCoderDataset", IDs: []string{"likaixin/InstructCoder"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{outputLen: 200, rowIDs: true, template: templateUnlessSkipped}, instructCoderRow)},
	{Name: "MTBenchDataset", IDs: []string{"philschmid/mt-bench"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{outputLen: 256, rowIDs: true, template: templateUnlessSkipped}, mtBenchRow)},
	{Name: "HumanEvalDataset", IDs: []string{"openai/openai_humaneval"}, DefaultSplit: "test",
		Sample: hfSampler(hfRules{outputLen: 256, rowIDs: true, template: templateUnlessSkipped}, userPromptRow("prompt"))},
	{Name: "GSM8KDataset", IDs: []string{"openai/gsm8k"}, DefaultSplit: "test", DefaultSubset: "main",
		Sample: hfSampler(hfRules{outputLen: 256, rowIDs: true, template: templateUnlessSkipped}, userPromptRow("question"))},
	{Name: "ConversationDataset", IDs: []string{"Aeala/ShareGPT_Vicuna_unfiltered"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{filters: true, template: templateNever}, conversationRow)},
	{Name: "AIMODataset", IDs: []string{"AI-MO/aimo-validation-aime", "AI-MO/NuminaMath-1.5", "AI-MO/NuminaMath-CoT"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{filters: true, template: templateNever}, aimoRow)},
	{Name: "NextEditPredictionDataset", IDs: []string{"zed-industries/zeta"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{rowIDs: true, stopAfter: true, ignoresOutputLen: true, template: templateNever}, zetaRow)},
	{Name: "BlazeditDataset", IDs: []string{"vdaita/edit_5k_char", "vdaita/edit_10k_char"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{outputLen: 4000, rowIDs: true, filters: true, template: templateUnlessSkipped}, blazeditRow)},
	{Name: "MLPerfDataset", IDs: []string{"mgoin/mlperf-inference-llama2-data", "mgoin/mlperf-inference-llama3.1-data"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{filters: true, template: templateAlways}, mlperfRow)},
	{Name: "MultiModalConversationDataset", IDs: []string{"lmms-lab/LLaVA-OneVision-Data"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{filters: true, template: templateNever}, conversationRow)},
	{Name: "VisionArenaDataset", IDs: []string{"lmarena-ai/VisionArena-Chat", "lmarena-ai/vision-arena-bench-v0.1"}, DefaultSplit: "train",
		Sample: hfSampler(hfRules{outputLen: 128, rowIDs: true, template: templateNever}, visionArenaRow)},
	{Name: "MMVUDataset", IDs: []string{"yale-nlp/MMVU"}, DefaultSplit: "validation",
		Sample: hfSampler(hfRules{outputLen: 128, rowIDs: true, template: templateNever}, mmvuRow)},
	{Name: "MMStarDataset", IDs: []string{"Lin-Chen/MMStar"}, DefaultSplit: "val",
		Sample: hfSampler(hfRules{outputLen: 128, rowIDs: true, template: templateNever}, mmStarRow)},
	{Name: "ASRDataset", IDs: asrIDs, DefaultSplit: "train", Sample: asrSample},
	{Name: "BFCLDataset", IDs: []string{"gorilla-llm/Berkeley-Function-Calling-Leaderboard"}, Load: loadBFCL},
}

// hfClassFor returns the class serving dataset id (the Hub id: spec.Name
// if set, else spec.Path), or nil.
func hfClassFor(id string) *hfClass {
	for _, c := range hfClasses {
		if slices.Contains(c.IDs, id) {
			return c
		}
	}
	return nil
}

// hfRules are the sampling rules a class's sample() follows besides its
// per-row mapping.
type hfRules struct {
	// outputLen is the class's DEFAULT_OUTPUT_LEN, used unless
	// --hf-output-len is set; 0 for the classes that measure each row's
	// reference answer instead.
	outputLen int
	// rowIDs gives request i the id prefix + the row's position (vLLM's
	// enumerate index, which counts the rows a filter drops); otherwise
	// ids count the kept requests.
	rowIDs bool
	// stopAfter tests for enough requests after adding one (zeta), so that
	// at least one row is sampled whatever num_prompts; otherwise before
	// each row.
	stopAfter bool
	// ignoresOutputLen: the class does not read --hf-output-len (zeta).
	ignoresOutputLen bool
	// filters: the class drops rows (length or distance filters), and
	// reports what it counted in Env.Counts.
	filters bool
	// template says when the class applies the tokenizer's chat template.
	template hfTemplating
}

// hfTemplating says when a class applies the tokenizer's chat template.
type hfTemplating int

const (
	// templateNever: the prompt is sent as the row has it.
	templateNever hfTemplating = iota
	// templateUnlessSkipped: unless --skip-chat-template.
	templateUnlessSkipped
	// templateAlways: whatever --skip-chat-template says (MLPerf).
	templateAlways
)

// hfSampling is what a row mapping may read.
type hfSampling struct {
	ctx context.Context
	// repo is the dataset's repository, for a class that reads files its
	// rows name (MMVU's videos); nil when the rows come from elsewhere.
	repo hfRepo
	tok  tokenizer.Tokenizer
	spec *HFSpec
	// outputLen is --hf-output-len, or the class's default when fixed is
	// false (0 for a class that measures its rows).
	outputLen int
	// fixed reports that --hf-output-len is set (and read by the class).
	fixed bool
}

// hfRowFunc maps one row to its request (prompt, lengths, messages; the id
// is set by the sampler), or reports that the class's filter drops it. Its
// errors name the column and what was expected; the sampler adds the row.
type hfRowFunc func(row hfRow, s *hfSampling) (r Request, keep bool, err error)

// hfSampler returns a class's Sample: the rows are walked in order and
// mapped by rowFn until num_prompts requests are kept (vLLM's sample()
// loop), then oversampled unless --no-oversample. Rows are pulled lazily,
// so a streamed dataset is read no further than needed; the requests are
// yielded once all are made, as oversampling needs them all.
func hfSampler(rules hfRules, rowFn hfRowFunc) func(context.Context, iter.Seq2[hfRow, error], hfRepo, *HFSpec, Env) iter.Seq2[Request, error] {
	return func(ctx context.Context, rows iter.Seq2[hfRow, error], repo hfRepo, spec *HFSpec, env Env) iter.Seq2[Request, error] {
		return eager(func() ([]Request, error) { return hfSample(ctx, rows, repo, spec, env, rules, rowFn) })
	}
}

func hfSample(ctx context.Context, rows iter.Seq2[hfRow, error], repo hfRepo, spec *HFSpec, env Env, rules hfRules, rowFn hfRowFunc) ([]Request, error) {
	if env.Tokenizer == nil {
		return nil, errors.New("the hf datasets need a client tokenizer: unset tokenizer.skip_init")
	}
	logw := env.Stderr
	if logw == nil {
		logw = io.Discard
	}
	s := hfSampling{ctx: ctx, repo: repo, tok: env.Tokenizer, spec: spec, outputLen: rules.outputLen}
	if spec.OutputLen != nil && !rules.ignoresOutputLen {
		if *spec.OutputLen <= 0 {
			return nil, fmt.Errorf("dataset.hf.output_len (--hf-output-len) is %d: it must be positive", *spec.OutputLen)
		}
		s.outputLen, s.fixed = *spec.OutputLen, true
	}
	if _, ok := env.Tokenizer.(tokenizer.ChatTemplater); !ok {
		switch {
		case rules.template == templateAlways:
			return nil, fmt.Errorf("tokenizer %s has no chat template, which this dataset's prompts always take (vLLM applies it whatever --skip-chat-template says)", env.Tokenizer.Name())
		case rules.template == templateUnlessSkipped && !spec.SkipChatTemplate:
			return nil, fmt.Errorf("tokenizer %s has no chat template (use --skip-chat-template)", env.Tokenizer.Name())
		}
	}
	n := env.NumPrompts
	var reqs []Request
	examined := 0
	if rules.stopAfter || n > 0 {
		for row, err := range rows {
			if err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r, keep, err := rowFn(row, &s)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", examined, err)
			}
			if keep {
				id := len(reqs)
				if rules.rowIDs {
					id = examined
				}
				r.ID = env.IDPrefix + strconv.Itoa(id)
				reqs = append(reqs, r)
			}
			examined++
			if len(reqs) >= n {
				break
			}
		}
	}
	kept := len(reqs)
	if kept == 0 && n > 0 && !spec.NoOversample {
		if examined == 0 {
			return nil, errors.New("the dataset split has no rows, so there is nothing to sample or oversample")
		}
		return nil, fmt.Errorf("none of the %d rows passes the dataset's filters, so there is nothing to oversample", examined)
	}
	reqs, err := maybeOversampleFrom(env.PyGlobal, reqs, n, env.Seed, env.IDPrefix, spec.NoOversample, logw)
	if err != nil {
		return nil, err
	}
	if rules.filters && env.Counts != nil {
		*env.Counts = Counts{Filtered: true, Examined: examined, Dropped: examined - kept, Oversampled: len(reqs) - kept}
	}
	return reqs, nil
}

// validLengths is vLLM's is_valid_sequence as the hf classes call it:
// prompt and output at least 4 tokens, the prompt at most maxPrompt, both
// together at most maxTotal.
func validLengths(promptLen, outputLen, maxPrompt, maxTotal int) bool {
	return promptLen >= 4 && outputLen >= 4 && promptLen <= maxPrompt && promptLen+outputLen <= maxTotal
}

// hfTemplate renders messages with the tokenizer's chat template and the
// generation prompt, as the classes' apply_chat_template calls do (no
// --chat-template-kwargs).
func hfTemplate(s *hfSampling, msgs ...tokenizer.Message) (string, error) {
	return tokenizer.ApplyChatTemplate(s.tok, msgs, true, nil)
}

// hfUserPrompt is the prompt sent for text: the chat template on one user
// message, or text itself with --skip-chat-template.
func hfUserPrompt(s *hfSampling, text string) (string, error) {
	if s.spec.SkipChatTemplate {
		return text, nil
	}
	return hfTemplate(s, tokenizer.Message{Role: "user", Content: text})
}

// hfKind names a row value's type for an error.
func hfKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, int, int64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// hfString returns the row's string column col.
func hfString(row hfRow, col string) (string, error) {
	v, ok := row[col]
	if !ok {
		return "", fmt.Errorf("no %q column: expected a string", col)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%q is %s, expected a string", col, hfKind(v))
	}
	return s, nil
}

// hfStrings returns the row's string columns cols, in order.
func hfStrings(row hfRow, cols ...string) ([]string, error) {
	out := make([]string, len(cols))
	for i, col := range cols {
		var err error
		if out[i], err = hfString(row, col); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hfNumber returns the row's number column col.
func hfNumber(row hfRow, col string) (float64, error) {
	v, ok := row[col]
	if !ok {
		return 0, fmt.Errorf("no %q column: expected a number", col)
	}
	switch f := v.(type) {
	case float64:
		return f, nil
	case int:
		return float64(f), nil
	case int64:
		return float64(f), nil
	}
	return 0, fmt.Errorf("%q is %s, expected a number", col, hfKind(v))
}

// hfList returns the row's list column col; what names what its elements
// should be, for the error.
func hfList(row hfRow, col, what string) ([]any, error) {
	v, ok := row[col]
	if !ok {
		return nil, fmt.Errorf("no %q column: expected a list of %s", col, what)
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%q is %s, expected a list of %s", col, hfKind(v), what)
	}
	return l, nil
}
