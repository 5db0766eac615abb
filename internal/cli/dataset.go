package cli

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/atomicfile"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/hub"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

const datasetDoc = `Prepare a scenario's requests as a run would, without sending anything,
and print their statistics: the request count, the input and output
lengths in tokens (min, mean, p50, p90, p99, max; numpy's linear
percentiles), and, for kinds that filter their candidates, how many the
length filters dropped and how many requests oversampling added.

The requests are built from the same dataset environment a run uses (the
seed, the backend, which decides whether some kinds' prompts are
chat-templated, and Python's global random state), so they are the
prompts a run sends, request by request. It needs the client tokenizer
(tokenizer.name, else the model): a built-in encoding, a local file or
directory, or a Hub repository in the Hugging Face cache (downloaded if
missing, unless HF_HUB_OFFLINE=1); there is no fallback to the server's
/tokenize. By default it works offline and never contacts the target
server, so generated prompts are not re-aligned with the server's tokenizer
as a run does when the server's /tokenize disagrees with the client
tokenizer; --align asks the server (or starts the built-in simulator) as
a run does, and then generated prompts are what a run sends in that case
too. A sweep's axes are not expanded: the scenario's own values are used.

--export FILE writes the requests as custom-dataset JSONL, one
{"prompt": ..., "output_tokens": ...} per line in send order, replaced
atomically, so that any client can replay exactly the same prompts (with
vLLM: --dataset-name custom --custom-output-len -1 --skip-chat-template
--disable-shuffle). Requests that are not one text prompt (token ids,
batches, images) cannot be exported.

--plot FILE writes an SVG (offline, no scripts) with the histograms of the
input and output lengths; a FILE named *.png gets the PNG figure of vLLM's
--plot-dataset-stats instead (the prompt, output and total length
histograms and each request's stacked lengths), which a run writes next to
its result with output.plot_dataset_stats.`

const datasetExamples = `  vbench dataset scenarios/quickstart.cue
  vbench dataset sg.cue --set load.num_prompts=1000 --export prompts.jsonl
  vbench dataset sg.cue --plot lengths.svg
  vbench dataset sg.cue --plot lengths.png`

func newDatasetCmd(p Process) *cobra.Command {
	var sf scenarioFlags
	var export, plot string
	var align bool
	cmd := &cobra.Command{
		Use:     "dataset FILE...",
		Short:   "Prepare a scenario's requests without sending them: statistics, export, plot",
		Long:    datasetDoc,
		Example: datasetExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := sf.load(p, args)
			if err != nil {
				return err
			}
			return runDataset(p, sc, export, plot, align)
		},
	}
	sf.register(cmd.Flags())
	cmd.Flags().StringVar(&export, "export", "", "write the requests as custom-dataset JSONL to `FILE`")
	cmd.Flags().BoolVar(&align, "align", false, "ask the target server's /tokenize, as a run does, and re-align random prompts with it when it disagrees with the client tokenizer")
	cmd.Flags().StringVar(&plot, "plot", "", "write the length distributions to `FILE` (SVG, or PNG for *.png)")
	return cmd
}

// clientTokenizer resolves the scenario's client tokenizer (tokenizer.name,
// else the model) as a run would, without asking the server; nil with
// tokenizer.skip_init. It also says where the tokenizer came from.
func clientTokenizer(p Process, sc *scenario.Scenario) (tokenizer.Tokenizer, string, error) {
	if sc.Tokenizer.SkipInit {
		return nil, "none (tokenizer.skip_init)", nil
	}
	name := sc.Tokenizer.Name
	if name == "" {
		name = sc.Target.Model
	}
	if name == "" && sc.Target.Simulator != nil {
		name = sc.Target.Simulator.Model
	}
	res, err := tokenizer.Resolve(p.Context, tokenizer.Spec{Name: name, Revision: sc.Tokenizer.Revision, Progress: p.Stderr}, hub.FromEnv(p.Getenv))
	if err != nil {
		return nil, "", err
	}
	return res.Tokenizer, res.Source, nil
}

func runDataset(p Process, sc *scenario.Scenario, export, plot string, align bool) error {
	ctx := p.Context
	tok, tokSource, err := clientTokenizer(p, sc)
	if err != nil {
		return usageErr(fmt.Errorf("%w (vbench dataset needs a client tokenizer; it does not ask the server's /tokenize)", err))
	}
	if sc.Dataset.Name == "conversations" {
		// Its later turns are made as the answers arrive: what can be
		// shown before a run is the plan.
		return writeConversationPlan(p, sc, tok)
	}
	var counts dataset.Counts
	reqs, err := pipeline.BuildDataset(ctx, sc, pipeline.Env{Stdout: p.Stderr, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now},
		pipeline.DatasetOptions{Tokenizer: tok, Align: align, Counts: &counts})
	if err != nil {
		return failErr(err)
	}
	st := newLengthStats(reqs)
	kind := sc.Dataset.Name
	fmt.Fprintf(p.Stdout, "dataset %s: %d requests prepared, none sent (seed %d; tokenizer: %s)\n", kind, len(reqs), sc.Seed, tokSource)
	if counts.Filtered {
		share := 0.0
		if counts.Examined > 0 {
			share = 100 * float64(counts.Dropped) / float64(counts.Examined)
		}
		fmt.Fprintf(p.Stdout, "filters: %d examined, %d dropped (%.1f%%), %d added by oversampling\n",
			counts.Examined, counts.Dropped, share, counts.Oversampled)
	} else {
		fmt.Fprintf(p.Stdout, "filters: none (dataset %s drops nothing)\n", kind)
	}
	st.write(p.Stdout)
	if export != "" {
		if err := exportCustom(export, reqs); err != nil {
			return failErr(err)
		}
		fmt.Fprintf(p.Stdout, "exported %d requests to %s\n", len(reqs), export)
	}
	if plot != "" {
		var data []byte
		if strings.EqualFold(filepath.Ext(plot), ".png") {
			if data, err = datasetStatsPNG(reqs); err != nil {
				return failErr(fmt.Errorf("--plot %s: %w", plot, err))
			}
		} else {
			data = st.svg(kind)
		}
		if err := atomicfile.WriteFile(plot, data, 0o644); err != nil {
			return failErr(fmt.Errorf("--plot %s: %w", plot, err))
		}
		fmt.Fprintf(p.Stdout, "plotted the length distributions to %s\n", plot)
	}
	return nil
}

// lengthStats holds the requests' input and output lengths.
type lengthStats struct {
	input, output []float64
}

func newLengthStats(reqs []dataset.Request) lengthStats {
	st := lengthStats{input: make([]float64, len(reqs)), output: make([]float64, len(reqs))}
	for i, r := range reqs {
		st.input[i], st.output[i] = float64(r.PromptLen), float64(r.OutputLen)
	}
	slices.Sort(st.input)
	slices.Sort(st.output)
	return st
}

// write prints one row per length: min, mean, p50, p90, p99, max.
func (st lengthStats) write(w io.Writer) {
	fmt.Fprintf(w, "%-12s %8s %10s %8s %8s %8s %8s\n", "tokens", "min", "mean", "p50", "p90", "p99", "max")
	for _, row := range []struct {
		name string
		x    []float64
	}{{"input len", st.input}, {"output len", st.output}} {
		if len(row.x) == 0 {
			fmt.Fprintf(w, "%-12s %8s %10s %8s %8s %8s %8s\n", row.name, "-", "-", "-", "-", "-", "-")
			continue
		}
		fmt.Fprintf(w, "%-12s %8s %10.2f %8s %8s %8s %8s\n", row.name, num(row.x[0]), numpy.Mean(row.x),
			num(numpy.PercentileSorted(row.x, 50)), num(numpy.PercentileSorted(row.x, 90)),
			num(numpy.PercentileSorted(row.x, 99)), num(row.x[len(row.x)-1]))
	}
}

// num prints an integer without decimals, else with two.
func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// exportCustom writes reqs as custom-dataset JSONL, atomically.
func exportCustom(path string, reqs []dataset.Request) error {
	var buf bytes.Buffer
	if err := dataset.WriteCustom(&buf, reqs); err != nil {
		return fmt.Errorf("--export %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--export %s: %w", path, err)
	}
	return nil
}

// datasetStatsPNG is vLLM's dataset statistics figure of reqs, in send
// order.
func datasetStatsPNG(reqs []dataset.Request) ([]byte, error) {
	prompt, output := make([]int, len(reqs)), make([]int, len(reqs))
	for i, r := range reqs {
		prompt[i], output[i] = r.PromptLen, r.OutputLen
	}
	return report.DatasetStatsPNG(prompt, output)
}

// svg draws the two length histograms side by side.
func (st lengthStats) svg(kind string) []byte {
	const (
		w, h          = 880, 340
		panelW        = 400
		top, bottom   = 50, 290
		bins          = 40
		left0, left1  = 50, 480
		plotH         = bottom - top
		fontAttrs     = `font-family="sans-serif" font-size="12"`
		barFill       = "#4a78b5"
		barFillOutput = "#c0504d"
	)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-family="sans-serif" font-size="14" text-anchor="middle">dataset %s: %d requests</text>`+"\n", w/2, xmlEscape(kind), len(st.input))
	for i, panel := range []struct {
		title string
		x     []float64
		fill  string
	}{{"input length (tokens)", st.input, barFill}, {"output length (tokens)", st.output, barFillOutput}} {
		left := left0
		if i == 1 {
			left = left1
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" %s text-anchor="middle">%s</text>`+"\n", left+panelW/2, bottom+40, fontAttrs, panel.title)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, bottom, left+panelW, bottom)
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, bottom)
		if len(panel.x) == 0 {
			continue
		}
		hist := report.NewHistogram(panel.x, bins)
		lo, hi, counts := hist.Lo, hist.Hi, hist.Counts
		peak := slices.Max(counts)
		barW := float64(panelW) / bins
		for k, c := range counts {
			if c == 0 {
				continue
			}
			bh := float64(plotH) * float64(c) / float64(peak)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%d</title></rect>`+"\n",
				float64(left)+float64(k)*barW, float64(bottom)-bh, barW-1, bh, panel.fill, c)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" %s text-anchor="start">%s</text>`+"\n", left, bottom+16, fontAttrs, num(lo))
		fmt.Fprintf(&b, `<text x="%d" y="%d" %s text-anchor="end">%s</text>`+"\n", left+panelW, bottom+16, fontAttrs, num(hi))
		fmt.Fprintf(&b, `<text x="%d" y="%d" %s text-anchor="end">%d</text>`+"\n", left-4, top+4, fontAttrs, peak)
		fmt.Fprintf(&b, `<text x="%d" y="%d" %s text-anchor="end">0</text>`+"\n", left-4, bottom, fontAttrs)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// xmlEscape escapes text for an SVG text node.
var xmlEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace

// writeConversationPlan prints a conversations dataset's plan: the turns,
// each turn's mean prompt length with its history (answers taken at their
// planned lengths), and the ideal prefix-cache hit rate.
func writeConversationPlan(p Process, sc *scenario.Scenario, tok tokenizer.Tokenizer) error {
	var enc interface{ Encode(string, bool) []int }
	if tok != nil {
		enc = tok
	}
	plan, err := dataset.PlanConversations(sc.Dataset, sc.Seed, enc)
	if err != nil {
		return failErr(err)
	}
	fmt.Fprintf(p.Stdout, "dataset conversations: %d conversations, %d turns planned, none sent (seed %d); their prompts are made as the answers arrive\n",
		plan.Conversations, plan.Turns, sc.Seed)
	fmt.Fprintf(p.Stdout, "%-6s %14s %22s\n", "turn", "conversations", "mean prompt (tokens)")
	for t, tp := range plan.ByTurn {
		fmt.Fprintf(p.Stdout, "%-6d %14d %22.1f\n", t+1, tp.Conversations, tp.MeanPrompt)
	}
	rate := 0.0
	if plan.PromptTokens > 0 {
		rate = 100 * float64(plan.RepeatedTokens) / float64(plan.PromptTokens)
	}
	fmt.Fprintf(p.Stdout, "ideal prefix-cache hit rate: %.2f %% (%d of %d prompt tokens repeat an earlier prompt or answer)\n",
		rate, plan.RepeatedTokens, plan.PromptTokens)
	return nil
}
