package dataset

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/hub"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
)

// HFSpec is the hf kind's section of a scenario: vLLM's hf dataset family,
// a Hugging Face dataset from the Hub or a local directory or file.
type HFSpec struct {
	// FileOptions says which file to read and how.
	FileOptions
	// Subset is the dataset subset (--hf-subset).
	Subset string `json:"subset,omitempty"`
	// Split is the dataset split (--hf-split); "" means the dataset's default.
	Split string `json:"split,omitempty"`
	// Name is the Hugging Face id when Path is a local copy (--hf-name).
	Name string `json:"name,omitempty"`
	// OutputLen, if set, fixes every output length (--hf-output-len).
	OutputLen *int `json:"output_len,omitempty"`
	// NoStream loads the dataset without streaming (--no-stream).
	NoStream bool `json:"no_stream"`
	// SkipChatTemplate sends prompts without applying the tokenizer's chat
	// template (--skip-chat-template).
	SkipChatTemplate bool `json:"skip_chat_template"`
	// EnableMultimodalChat sends chat messages with inline multimodal parts
	// (--enable-multimodal-chat).
	EnableMultimodalChat bool `json:"enable_multimodal_chat"`
	// BlazeditMinDistance and BlazeditMaxDistance filter the blazedit
	// dataset by edit distance (--blazedit-min-distance,
	// --blazedit-max-distance).
	BlazeditMinDistance float64 `json:"blazedit_min_distance"`
	BlazeditMaxDistance float64 `json:"blazedit_max_distance"`
	// ASRMaxAudioLenSec and ASRMinAudioLenSec filter ASR datasets by audio
	// length in seconds; +Inf is no limit (--asr-max-audio-len-sec,
	// --asr-min-audio-len-sec).
	ASRMaxAudioLenSec scenario.Float `json:"asr_max_audio_len_sec"`
	ASRMinAudioLenSec float64        `json:"asr_min_audio_len_sec"`
	// BFCLCategories are the BFCL categories to use (--bfcl-categories).
	BFCLCategories []string `json:"bfcl_categories,omitempty"`
	// TextColumn, when set, is the prompt column of a dataset none of
	// vLLM's hf classes serves, instead of the one found from the first row
	// (vllm-bench's --hf-text-column).
	TextColumn string `json:"text_column,omitempty"`
}

func init() {
	Register(Kind{Name: "hf", Spec: newSpec[HFSpec](), New: newHFSource, NeedsTokenizer: true,
		Memory: func(spec scenario.Dataset, _ int) MemoryEstimate {
			// Rows are read as they are sampled, keeping a tenth of the
			// files' size; each sampled request holds its prompt until
			// sent.
			h := spec.Spec.(*HFSpec)
			out := lenOr(h.OutputLen, 256)
			return MemoryEstimate{Fixed: 0.1 * pathBytes(h.Path), PerRequest: 768, PromptTokens: 256, OutputTokens: out}
		}})
}

// hfClassLookup is hfClassFor; tests replace it to run a class of their
// own.
var hfClassLookup = hfClassFor

// hfSource is the hf kind's Source: a Hugging Face dataset from the Hub
// (through the Hugging Face cache) or a local directory or file.
type hfSource struct{ spec HFSpec }

func newHFSource(spec scenario.Dataset) (Source, error) {
	h, err := specOf[HFSpec](spec)
	if err != nil {
		return nil, err
	}
	if h.Path == "" {
		return nil, errors.New("dataset.hf.path (--dataset-path) is required: a Hub dataset id (org/name), or a local directory or file")
	}
	if n := h.OutputLen; n != nil && *n <= 0 {
		return nil, fmt.Errorf("dataset.hf.output_len (--hf-output-len) is %d; it must be positive", *n)
	}
	return hfSource{spec: *h}, nil
}

// hfID is the dataset's Hub id: name if set (--hf-name, for a local
// copy), else the path.
func hfID(spec *HFSpec) string {
	if spec.Name != "" {
		return spec.Name
	}
	return spec.Path
}

// hfClassOf returns the class serving the dataset, as vLLM's get_samples
// picks it: the one whose ids hold --hf-name or --dataset-path (the name
// asked first), or nil.
func hfClassOf(spec *HFSpec) *hfClass {
	if spec.Name != "" {
		if c := hfClassLookup(spec.Name); c != nil {
			return c
		}
	}
	return hfClassLookup(spec.Path)
}

// Requests loads the split as vLLM's HuggingFaceDataset.load_data does
// (load_dataset, then shuffle(seed) unless disable_shuffle) and hands the
// rows to the class that serves the dataset id, as vLLM's get_samples
// picks it; a dataset no class serves is sampled by column
// auto-detection (hfGeneric).
func (s hfSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		spec := s.spec
		id := hfID(&spec)
		class := hfClassOf(&spec)
		if class != nil && spec.Subset == "" {
			spec.Subset = class.DefaultSubset
		}
		split := spec.Split
		if split == "" && class != nil {
			split = class.DefaultSplit
			if split == "" {
				split = "train"
			}
		}
		repo, err := openHFRepo(ctx, spec.Path)
		if err != nil {
			yield(Request{}, err)
			return
		}
		if class != nil && class.Load != nil {
			for r, err := range class.Load(ctx, repo, &spec, env) {
				if !yield(r, err) || err != nil {
					return
				}
			}
			return
		}
		files := repo // where a row's own files are (MMVU's videos): not the parquet export
		if h, ok := repo.(*hubRepo); ok && h.scriptOnly() {
			if repo, err = h.parquetExport(ctx); err != nil {
				yield(Request{}, err)
				return
			}
			if spec.Subset == "" {
				if spec.Subset, err = exportSubset(repo); err != nil {
					yield(Request{}, err)
					return
				}
			}
		}
		sp, err := resolveHFFiles(ctx, repo, spec.Subset, split)
		if err != nil {
			yield(Request{}, err)
			return
		}
		rows := &hfRows{repo: repo, split: sp, seed: env.Seed, stream: !spec.NoStream, shuffle: !spec.DisableShuffle}
		if class == nil {
			for r, err := range hfGeneric(ctx, id, rows, &spec, env) {
				if !yield(r, err) || err != nil {
					return
				}
			}
			return
		}
		var readErr error // the rows' own error, which names its file
		plain := func(yield func(hfRow, error) bool) {
			for r, err := range rows.all(ctx) {
				if err != nil {
					readErr = err
				}
				if !yield(r.row, err) || err != nil {
					return
				}
			}
		}
		for r, err := range class.Sample(ctx, plain, files, &spec, env) {
			switch {
			case err == nil, readErr != nil && errors.Is(err, readErr), ctx.Err() != nil && errors.Is(err, ctx.Err()):
			default:
				if at := rows.last; at.file != "" {
					err = fmt.Errorf("%s: %w (the last row read: %s row %d)", class.Name, err, at.file, at.index)
				} else {
					err = fmt.Errorf("%s: %w", class.Name, err)
				}
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// openHFRepo opens the dataset path: a local file or directory, else a
// Hub dataset repository (its listing at main, through the cache).
func openHFRepo(ctx context.Context, path string) (hfRepo, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		r, err := openDirRepo(path)
		if err != nil {
			return nil, fmt.Errorf("dataset.hf.path (--dataset-path) %s: %w", path, err)
		}
		return r, nil
	case err == nil:
		return &fileRepo{path: path}, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("dataset.hf.path (--dataset-path): %w", err)
	case !hub.ValidRepoID(path):
		return nil, fmt.Errorf("dataset.hf.path (--dataset-path) %s: no such file or directory, and not a Hub dataset id (org/name)", path)
	}
	c := hub.FromEnv(nil)
	l, err := c.ListDataset(ctx, path, "")
	if err != nil {
		return nil, fmt.Errorf("dataset.hf.path (--dataset-path) %s is no local file or directory; from the Hub: %w", path, err)
	}
	return &hubRepo{client: c, id: path, listing: l}, nil
}

// hfParquetExport is the revision of a Hub dataset that holds its
// conversion to parquet, <subset>/<split>/NNNN.parquet.
const hfParquetExport = "refs/convert/parquet"

// scriptOnly reports whether the repository has a loading script (a .py
// file at its root) and no data files: the datasets library (4.0 and
// later, which runs no scripts) then reads the Hub's parquet conversion.
func (r *hubRepo) scriptOnly() bool {
	script := false
	for _, f := range r.listing.Files {
		if !strings.Contains(f, "/") && strings.HasSuffix(f, ".py") {
			script = true
		}
	}
	return script && len(dataFiles(r.listing.Files, "")) == 0
}

// parquetExport returns the repository's parquet conversion.
func (r *hubRepo) parquetExport(ctx context.Context) (*hubRepo, error) {
	l, err := r.client.ListDataset(ctx, r.id, hfParquetExport)
	if err != nil {
		return nil, fmt.Errorf("%s has a loading script and no data files, and its parquet conversion: %w", r.id, err)
	}
	return &hubRepo{client: r.client, id: r.id, listing: l}, nil
}

// exportSubset picks the subset of a parquet conversion when none is
// given: "default" if it has one, else its only one.
func exportSubset(r hfRepo) (string, error) {
	var subsets []string
	for _, f := range r.Files() {
		if dir, _, ok := strings.Cut(f, "/"); ok && !slices.Contains(subsets, dir) {
			subsets = append(subsets, dir)
		}
	}
	switch {
	case slices.Contains(subsets, "default"):
		return "default", nil
	case len(subsets) == 1:
		return subsets[0], nil
	}
	return "", fmt.Errorf("%s: the dataset has several subsets: choose one with --hf-subset (%s)", r, strings.Join(subsets, ", "))
}

// resolveHFFiles resolves the split's files: a single file is the whole
// dataset (its subset and split are not looked at).
func resolveHFFiles(ctx context.Context, r hfRepo, subset, split string) (hfSplit, error) {
	if f, ok := r.(*fileRepo); ok {
		format := fileFormat(f.path)
		if format != "parquet" && format != "json" {
			return hfSplit{}, fmt.Errorf("%s: not a parquet, JSON or JSON Lines file (by its extension); vbench reads those", f.path)
		}
		if split == "" {
			split = "train"
		}
		return hfSplit{Split: split, Format: format, Files: []string{filepath.Base(f.path)}}, nil
	}
	sp, err := resolveHFSplit(ctx, r, subset, split)
	if h, ok := r.(*hubRepo); ok && err != nil && h.listing.Cached {
		err = fmt.Errorf("%w (the Hub was not asked, offline or unreachable: the cache knows only the files downloaded before)", err)
	}
	return sp, err
}

// hfRowAt is a row and where it comes from.
type hfRowAt struct {
	row   hfRow
	file  string // the file, as errors name it
	index int    // the row's 0-based index in the file
}

// hfRows is a split's rows in the order vLLM's load_data leaves them.
type hfRows struct {
	repo    hfRepo
	split   hfSplit
	seed    int64
	stream  bool // load_dataset(streaming=True), vLLM's default
	shuffle bool // not --disable-shuffle
	// last is the row handed out last.
	last hfRowAt
}

// hfShuffleBuffer and hfMaxBufferShards are the datasets library's
// IterableDataset.shuffle defaults (buffer_size, max_buffer_input_shards).
const (
	hfShuffleBuffer   = 1000
	hfMaxBufferShards = 10
)

// file yields the rows of the split's i-th file, downloading it first.
func (h *hfRows) file(ctx context.Context, i int) iter.Seq2[hfRowAt, error] {
	return func(yield func(hfRowAt, error) bool) {
		name := h.split.Files[i]
		p, err := h.repo.Local(ctx, name)
		if err != nil {
			yield(hfRowAt{}, fmt.Errorf("%s: %w", h.repo.Display(name), err))
			return
		}
		display := h.repo.Display(name)
		read := readJSONRows
		if h.split.Format == "parquet" {
			// Files read in turn (interleave) decode one row group at a
			// time each: several at once would multiply the lookahead.
			workers := pqMaxWorkers
			if h.stream && h.shuffle && len(h.split.Files) > 1 {
				workers = 1
			}
			read = func(ctx context.Context, name, p string) iter.Seq2[hfRow, error] {
				return readParquetRowsN(ctx, name, p, workers)
			}
		}
		n := 0
		for r, err := range read(ctx, display, p) {
			if err != nil {
				yield(hfRowAt{}, err)
				return
			}
			if !yield(hfRowAt{row: r, file: display, index: n}, nil) {
				return
			}
			n++
		}
	}
}

// files yields the rows of the files at idx, one file after the other.
func (h *hfRows) files(ctx context.Context, idx []int) iter.Seq2[hfRowAt, error] {
	return func(yield func(hfRowAt, error) bool) {
		for _, i := range idx {
			for r, err := range h.file(ctx, i) {
				if !yield(r, err) || err != nil {
					return
				}
			}
		}
	}
}

// all yields the rows in order, each noted as h.last.
//
// Without shuffle: the files' rows in file order. Shuffled, as the
// datasets library (5.0) shuffles with np.random.default_rng(seed):
//
//   - not streaming (--no-stream): Dataset.shuffle takes the rows of all
//     the files, in order, through generator.permutation(len);
//   - streaming: IterableDataset.shuffle shuffles the files (a copy of
//     the generator shuffles the list of file indices), splits the
//     shuffled files into min(files, 10) contiguous groups that feed the
//     buffer one row from each in turn (an exhausted group drops out),
//     and passes the rows through a 1000-row buffer: once full, each new
//     row takes the place of the row it yields, picked by
//     generator.integers(0, 1000) (drawn 1000 at a time); at the end the
//     buffer is shuffled (generator.shuffle) and yielded. The generator
//     of the buffer is another fresh copy of default_rng(seed). With one
//     file, datasets 2.x to 4.x give the same order (they read several
//     files one after the other instead of in turn).
func (h *hfRows) all(ctx context.Context) iter.Seq2[hfRowAt, error] {
	inner := h.order(ctx)
	return func(yield func(hfRowAt, error) bool) {
		for r, err := range inner {
			if err == nil {
				h.last = r
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

func (h *hfRows) order(ctx context.Context) iter.Seq2[hfRowAt, error] {
	n := len(h.split.Files)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if !h.shuffle {
		return h.files(ctx, idx)
	}
	newGen := func() (*numpy.Generator, error) {
		g, err := numpy.NewGenerator(h.seed)
		if err != nil {
			return nil, fmt.Errorf("shuffling the hf dataset: %w", err)
		}
		return g, nil
	}
	if !h.stream {
		return func(yield func(hfRowAt, error) bool) {
			g, err := newGen()
			if err != nil {
				yield(hfRowAt{}, err)
				return
			}
			var rows []hfRowAt
			for r, err := range h.files(ctx, idx) {
				if err != nil {
					yield(hfRowAt{}, err)
					return
				}
				rows = append(rows, r)
			}
			for _, i := range g.Permutation(len(rows)) {
				if !yield(rows[i], nil) {
					return
				}
			}
		}
	}
	return func(yield func(hfRowAt, error) bool) {
		shards, err := newGen()
		if err != nil {
			yield(hfRowAt{}, err)
			return
		}
		shards.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		g, err := newGen()
		if err != nil {
			yield(hfRowAt{}, err)
			return
		}
		bufferShuffle(g, interleave(ctx, h, idx), yield)
	}
}

// interleave yields one row from each of min(len(idx), 10) contiguous
// groups of the files at idx in turn, skipping the exhausted groups, as
// the datasets library's CyclingMultiSourcesExamplesIterable does with
// "all_exhausted_without_replacement".
func interleave(ctx context.Context, h *hfRows, idx []int) iter.Seq2[hfRowAt, error] {
	return func(yield func(hfRowAt, error) bool) {
		k := min(len(idx), hfMaxBufferShards)
		if k <= 1 {
			for r, err := range h.files(ctx, idx) {
				if !yield(r, err) || err != nil {
					return
				}
			}
			return
		}
		div, mod := len(idx)/k, len(idx)%k
		nexts := make([]func() (hfRowAt, error, bool), k)
		for g := range k {
			start := div*g + min(g, mod)
			end := start + div
			if g < mod {
				end++
			}
			next, stop := iter.Pull2(h.files(ctx, idx[start:end]))
			defer stop()
			nexts[g] = next
		}
		done := make([]bool, k)
		left := k
		for g := 0; left > 0; g = (g + 1) % k {
			if done[g] {
				continue
			}
			r, err, ok := nexts[g]()
			if !ok {
				done[g] = true
				left--
				continue
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// bufferShuffle is the datasets library's BufferShuffledExamplesIterable
// with a 1000-row buffer over src, drawing from g.
func bufferShuffle(g *numpy.Generator, src iter.Seq2[hfRowAt, error], yield func(hfRowAt, error) bool) {
	buf := make([]hfRowAt, 0, hfShuffleBuffer)
	var picks []int64
	for r, err := range src {
		if err != nil {
			yield(hfRowAt{}, err)
			return
		}
		if len(buf) < hfShuffleBuffer {
			buf = append(buf, r)
			continue
		}
		if len(picks) == 0 {
			var err error
			if picks, err = g.Integers(0, hfShuffleBuffer, hfShuffleBuffer); err != nil {
				yield(hfRowAt{}, err)
				return
			}
		}
		i := picks[0]
		picks = picks[1:]
		if !yield(buf[i], nil) {
			return
		}
		buf[i] = r
	}
	g.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
	for _, r := range buf {
		if !yield(r, nil) {
			return
		}
	}
}
