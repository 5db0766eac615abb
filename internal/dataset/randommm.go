package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// RandomMMSpec is the random_mm kind's section of a scenario: vLLM's
// random-mm dataset (RandomMultiModalDataset in upstream
// vllm/benchmarks/datasets/datasets.py), random prompts with synthetic
// images and videos of random pixels.
type RandomMMSpec struct {
	RandomSpec
	// BaseItemsPerRequest is the mean number of media items per request
	// (--random-mm-base-items-per-request).
	BaseItemsPerRequest int `json:"base_items_per_request"`
	// NumMMItemsRangeRatio jitters the item count uniformly in
	// [⌊n(1−r)⌋, ⌈n(1+r)⌉] (--random-mm-num-mm-items-range-ratio).
	NumMMItemsRangeRatio float64 `json:"num_mm_items_range_ratio"`
	// LimitMMPerPrompt caps the items of each modality in a request
	// (--random-mm-limit-mm-per-prompt), in the order written.
	LimitMMPerPrompt MMLimits `json:"limit_mm_per_prompt"`
	// BucketConfig maps item shapes to their probabilities
	// (--random-mm-bucket-config), in the order written.
	BucketConfig MMBuckets `json:"bucket_config"`
	// EnableMultimodalChat sends the prompt as vLLM's multimodal chat
	// transformation makes it (--enable-multimodal-chat).
	EnableMultimodalChat bool `json:"enable_multimodal_chat"`
}

// MMLimit is one modality's cap.
type MMLimit struct {
	// Modality is "image" or "video".
	Modality string
	// Max is the most items of it a request carries.
	Max int
}

// MMLimits are the per-modality caps, in order; in JSON an object.
type MMLimits []MMLimit

// MMBucket is one item shape and its probability: an image when Frames
// is 1, a video of Frames frames when more.
type MMBucket struct {
	Height, Width, Frames int
	Prob                  float64
}

// MMBuckets are the item shapes, in order; in JSON an object whose keys
// are "height,width,frames".
type MMBuckets []MMBucket

// UnmarshalJSON reads an object of integers, keeping its key order.
func (l *MMLimits) UnmarshalJSON(b []byte) error {
	*l = nil
	return eachMember(b, func(k string, v json.RawMessage) error {
		var n int
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("limit_mm_per_prompt %q: %w", k, err)
		}
		*l = append(*l, MMLimit{k, n})
		return nil
	})
}

// MarshalJSON writes the limits as an object, in order.
func (l MMLimits) MarshalJSON() ([]byte, error) {
	o := py.NewObject()
	for _, e := range l {
		o.Set(e.Modality, e.Max)
	}
	return o.MarshalJSON()
}

// UnmarshalJSON reads an object of probabilities keyed by
// "height,width,frames", keeping its key order.
func (bs *MMBuckets) UnmarshalJSON(b []byte) error {
	*bs = nil
	return eachMember(b, func(k string, v json.RawMessage) error {
		var bk MMBucket
		parts := strings.Split(k, ",")
		if len(parts) != 3 {
			return fmt.Errorf("bucket_config key %q: want height,width,frames", k)
		}
		for i, dst := range []*int{&bk.Height, &bk.Width, &bk.Frames} {
			n, err := strconv.Atoi(strings.TrimSpace(parts[i]))
			if err != nil {
				return fmt.Errorf("bucket_config key %q: want height,width,frames: %w", k, err)
			}
			*dst = n
		}
		if err := json.Unmarshal(v, &bk.Prob); err != nil {
			return fmt.Errorf("bucket_config %q: %w", k, err)
		}
		*bs = append(*bs, bk)
		return nil
	})
}

// MarshalJSON writes the buckets as an object, in order.
func (bs MMBuckets) MarshalJSON() ([]byte, error) {
	o := py.NewObject()
	for _, b := range bs {
		o.Set(b.key(), b.Prob)
	}
	return o.MarshalJSON()
}

// key is the bucket's "height,width,frames".
func (b MMBucket) key() string { return fmt.Sprintf("%d,%d,%d", b.Height, b.Width, b.Frames) }

// modality is vLLM's map_config_to_modality: image for one frame, video
// for more.
func (b MMBucket) modality() string {
	if b.Frames == 1 {
		return "image"
	}
	return "video"
}

// eachMember calls fn with each member of the JSON object b, in order.
func eachMember(b []byte, fn func(k string, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("want a JSON object, got %.40s", b)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if err := fn(t.(string), v); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	Register(Kind{Name: "random_mm", Spec: newSpec[RandomMMSpec](), New: newRandomMMSource,
		IgnoreEOS: IgnoreEOSOnOpenAI, NeedsTokenizer: true, Check: checkRandomMM,
		// vLLM refuses random-mm on any backend but openai-chat.
		Backends: func() []string { return []string{"openai-chat"} },
		Count:    func(_ scenario.Dataset, n int) int { return n },
		Memory: func(spec scenario.Dataset, _ int) MemoryEstimate {
			r := spec.Spec.(*RandomMMSpec)
			in := float64(r.PrefixLen) + float64(r.InputLen)*(1+r.RangeRatio.Input)
			// A chunk's raw pixels and its encoded requests, made as the
			// run pulls them.
			return MemoryEstimate{Fixed: mmChunkBytes + randomChunk*mmRequestBytes(r), PromptTokens: in,
				OutputTokens: float64(r.OutputLen) * (1 + r.RangeRatio.Output)}
		}})
}

// mmSampling is what get_mm_item_sampling_params settles for a spec: the
// item count bounds, the caps of the modalities the buckets use, and the
// buckets with a positive probability, renormalised.
type mmSampling struct {
	minItems, maxItems int
	limits             MMLimits
	buckets            MMBuckets
}

// newMMSampling checks a spec's media settings as vLLM does and settles
// them.
func newMMSampling(r *RandomMMSpec) (mmSampling, error) {
	var s mmSampling
	if !(r.NumMMItemsRangeRatio >= 0 && r.NumMMItemsRangeRatio <= 1) {
		return s, errors.New("num_mm_items_range_ratio must be in [0, 1]")
	}
	limit := func(m string) (int, bool) {
		for _, l := range r.LimitMMPerPrompt {
			if l.Modality == m {
				return l.Max, true
			}
		}
		return 0, false
	}
	for _, b := range r.BucketConfig {
		if b.Frames < 1 || b.Height < 1 || b.Width < 1 {
			return s, fmt.Errorf("bucket %s: height, width and frames must be at least 1 (frames 1 is an image, more a video)", b.key())
		}
		if _, ok := limit(b.modality()); !ok {
			return s, fmt.Errorf("modality %s of bucket %s is not in limit_mm_per_prompt", b.modality(), b.key())
		}
	}
	var err error
	if s.buckets, err = normalizeBuckets(r.BucketConfig); err != nil {
		return s, err
	}
	used := map[string]bool{}
	for _, b := range s.buckets {
		used[b.modality()] = true
	}
	total := 0
	for _, l := range r.LimitMMPerPrompt {
		if used[l.Modality] {
			s.limits = append(s.limits, l)
			total += l.Max
		}
	}
	base, ratio := float64(r.BaseItemsPerRequest), r.NumMMItemsRangeRatio
	s.maxItems = min(total, int(math.Ceil(base*(1+ratio))))
	s.minItems = max(0, int(math.Floor(base*(1-ratio))))
	if s.minItems > s.maxItems {
		return s, fmt.Errorf("the fewest media items per request (%d) exceed the most (%d, capped by limit_mm_per_prompt)", s.minItems, s.maxItems)
	}
	return s, nil
}

// normalizeBuckets is vLLM's normalize_bucket_config: the buckets with a
// positive probability, each divided by their sum.
func normalizeBuckets(in MMBuckets) (MMBuckets, error) {
	var out MMBuckets
	total := 0.0
	for _, b := range in {
		if b.Prob < 0 {
			return nil, errors.New("bucket_config probabilities must be non-negative")
		}
		if b.Prob > 0 {
			out = append(out, b)
			total += b.Prob
		}
	}
	if len(out) == 0 {
		return nil, errors.New("bucket_config has no bucket with a positive probability")
	}
	for i := range out {
		out[i].Prob /= total
	}
	return out, nil
}

// logLines are vLLM's info lines about the settled media sampling.
func (s mmSampling) logLines() []string {
	var b strings.Builder
	b.WriteString("Normalized bucket config: {")
	for i, bk := range s.buckets {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, %d): %s", bk.Height, bk.Width, bk.Frames, py.Repr(bk.Prob))
	}
	b.WriteString("}")
	lines := []string{b.String()}
	b.Reset()
	b.WriteString("Updated mm-limit-per-prompt: {")
	for i, l := range s.limits {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %d", py.ReprString(l.Modality), l.Max)
	}
	b.WriteString("}")
	return append(lines, b.String(), fmt.Sprintf("Sampling number of multimodal items from [%d, %d]", s.minItems, s.maxItems))
}

// checkRandomMM refuses what vLLM's class refuses before it samples: a
// batch, a bucket of no shape, a modality without a cap, no bucket with a
// positive probability, and item bounds that cross.
func checkRandomMM(spec any) []scenario.Problem {
	r := spec.(*RandomMMSpec)
	var out []scenario.Problem
	if r.BatchSize != 1 {
		out = append(out, scenario.NewProblem("random_mm sends one prompt per request (vLLM raises NotImplementedError for a batch): want batch_size 1",
			"dataset", "random_mm", "batch_size"))
	}
	if _, err := newMMSampling(r); err != nil {
		out = append(out, scenario.NewProblem(err.Error(), "dataset", "random_mm", "bucket_config"))
	}
	if p := checkRandom(&r.RandomSpec); p != nil {
		for i := range p {
			p[i].Path = strings.Replace(p[i].Path, "dataset.random.", "dataset.random_mm.", 1)
		}
		out = append(out, p...)
	}
	return out
}

// randomMMSource is the random_mm kind's Source.
type randomMMSource struct{ spec RandomMMSpec }

func newRandomMMSource(spec scenario.Dataset) (Source, error) {
	r, err := specOf[RandomMMSpec](spec)
	if err != nil {
		return nil, err
	}
	return randomMMSource{spec: *r}, nil
}

// mmChunkBytes bounds the raw pixels one chunk of requests holds before
// they are encoded.
const mmChunkBytes = 64 << 20

// itemBytes is the raw size of a bucket's pixels.
func (b MMBucket) itemBytes() int { return b.Height * b.Width * 3 * b.Frames }

// mmRequestBytes estimates a request's media as sent: noise compresses
// badly, so about 0.9 bytes a pixel of JPEG, a third more in base64, for
// the mean item times the mean item count.
func mmRequestBytes(r *RandomMMSpec) float64 {
	mean := 0.0
	if bs, err := normalizeBuckets(r.BucketConfig); err == nil {
		for _, b := range bs {
			mean += b.Prob * float64(b.itemBytes()) / 3 * 0.9 * 4 / 3
		}
	}
	return mean * float64(r.BaseItemsPerRequest) * (1 + r.NumMMItemsRangeRatio)
}

// Requests makes the requests a chunk at a time as they are pulled, as
// random's do, and draws each request's media from the same generator
// right after its prompt (vLLM's order): its item count, then for each
// item its bucket and its pixels. The pixels are encoded as JPEG on the
// cores the run allows (Env.Workers).
func (s randomMMSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		m, err := newMMGen(&s.spec, env)
		if err != nil {
			yield(Request{}, err)
			return
		}
		for !m.g.done() {
			if err := ctx.Err(); err != nil {
				yield(Request{}, err)
				return
			}
			reqs, pending, err := m.next(env.workers())
			if err != nil {
				yield(Request{}, err)
				return
			}
			encodeMM(pending, env.workers(), s.spec.EnableMultimodalChat)
			for i := range reqs {
				if !yield(reqs[i], nil) {
					return
				}
			}
		}
		if env.Stderr != nil {
			for _, w := range m.g.info.Warnings() {
				fmt.Fprintln(env.Stderr, w)
			}
		}
	}
}

// mmGen makes random-mm requests a chunk at a time: random's prompts,
// each followed by its media draws.
type mmGen struct {
	g     *randomGen
	smp   mmSampling
	chunk int // requests per chunk, so that a chunk's raw pixels stay near mmChunkBytes
}

// newMMGen checks the spec, draws what comes before the first prompt and
// logs vLLM's sampling lines.
func newMMGen(spec *RandomMMSpec, env Env) (*mmGen, error) {
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	g, err := newRandomGenOf(spec.RandomSpec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix, true)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(env.Stderr, g.info.SamplingMessage())
	smp, err := newMMSampling(spec)
	if err != nil {
		return nil, fmt.Errorf("random_mm: %w", err)
	}
	for _, l := range smp.logLines() {
		fmt.Fprintln(env.Stderr, l)
	}
	largest := 1
	for _, b := range smp.buckets {
		largest = max(largest, b.itemBytes())
	}
	return &mmGen{g: g, smp: smp, chunk: max(1, min(randomChunk, mmChunkBytes/(largest*max(1, smp.maxItems))))}, nil
}

// next makes the next chunk of requests and their drawn, not yet encoded,
// media.
func (m *mmGen) next(workers int) ([]Request, []mmPending, error) {
	var pending []mmPending
	reqs, err := m.g.nextThen(m.chunk, workers, func(r *Request) error {
		items, err := m.smp.drawItems(m.g.rng)
		if err != nil {
			return err
		}
		pending = append(pending, mmPending{r: r, items: items})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("random_mm: %w", err)
	}
	return reqs, pending, nil
}

// mmItem is one drawn item: its bucket and raw pixels (frames × height ×
// width × RGB).
type mmItem struct {
	bucket MMBucket
	pixels []byte
}

// mmPending is a request whose items are drawn but not yet encoded.
type mmPending struct {
	r     *Request
	items []mmItem
}

// drawItems is vLLM's get_mm_item_iterator with the items made as it
// yields them: the item count uniform on [minItems, maxItems], then per
// item a bucket drawn by probability, a modality at its cap removed and
// the rest renormalised, and the item's pixels.
func (s mmSampling) drawItems(rng *numpy.Generator) ([]mmItem, error) {
	n, err := rng.Integers(int64(s.minItems), int64(s.maxItems)+1, 1)
	if err != nil {
		return nil, err
	}
	count := int(n[0])
	if count == 0 {
		return nil, nil
	}
	buckets := append(MMBuckets(nil), s.buckets...)
	counts := map[string]int{}
	limitOf := func(m string) int {
		for _, l := range s.limits {
			if l.Modality == m {
				return l.Max
			}
		}
		return 0
	}
	var items []mmItem
	p := make([]float64, 0, len(buckets))
	for len(items) < count {
		p = p[:0]
		for _, b := range buckets {
			p = append(p, b.Prob)
		}
		i, err := rng.ChoiceP(p)
		if err != nil {
			return nil, err
		}
		b := buckets[i]
		m := b.modality()
		if counts[m] < limitOf(m) {
			counts[m]++
			px := make([]byte, b.itemBytes())
			rng.Bytes(px)
			items = append(items, mmItem{bucket: b, pixels: px})
			continue
		}
		for k := range buckets {
			if buckets[k].modality() == m {
				buckets[k].Prob = 0
			}
		}
		if buckets, err = normalizeBuckets(buckets); err != nil {
			break // every modality at its cap: vLLM warns and stops
		}
	}
	return items, nil
}

// encodeMM encodes the drawn items as JPEG data URLs on up to workers
// goroutines and attaches them to their requests as chat content parts
// after the prompt's text: an image as image/jpeg, a video as vLLM's
// video/jpeg (its frames' JPEGs, comma-separated, which vLLM's video
// loader reads frame by frame) where vLLM sends an MP4.
func encodeMM(pending []mmPending, workers int, transformed bool) {
	type job struct{ req, item int }
	var jobs []job
	for i := range pending {
		for k := range pending[i].items {
			jobs = append(jobs, job{i, k})
		}
	}
	urls := make([][]string, len(pending))
	for i := range pending {
		urls[i] = make([]string, len(pending[i].items))
	}
	parallelN(len(jobs), workers, func(j int) {
		it := &pending[jobs[j].req].items[jobs[j].item]
		urls[jobs[j].req][jobs[j].item] = mediaURL(it)
		it.pixels = nil
	})
	for i := range pending {
		r := pending[i].r
		parts := []Part{{Type: PartText, Text: r.Prompt}}
		for k, it := range pending[i].items {
			typ := PartImage
			if it.bucket.Frames > 1 {
				typ = PartVideo
			}
			parts = append(parts, Part{Type: typ, URL: urls[i][k]})
		}
		r.Messages = []Message{{Role: RoleUser, Parts: parts, Transformed: transformed}}
	}
}

// mediaURL encodes one item: a JPEG data URL for an image, a video/jpeg
// data URL of its frames for a video.
func mediaURL(it *mmItem) string {
	b := it.bucket
	frame := b.Height * b.Width * 3
	var url strings.Builder
	if b.Frames == 1 {
		url.WriteString("data:image/jpeg;base64,")
	} else {
		url.WriteString("data:video/jpeg;base64,")
	}
	for f := range b.Frames {
		if f > 0 {
			url.WriteByte(',')
		}
		url.WriteString(base64.StdEncoding.EncodeToString(encodeJPEG(it.pixels[f*frame:(f+1)*frame], b.Width, b.Height)))
	}
	return url.String()
}

// encodeJPEG encodes RGB pixels (row-major, 3 bytes a pixel) at PIL's
// default quality, 75.
func encodeJPEG(rgb []byte, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, j := 0, 0; i < len(rgb); i, j = i+3, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = rgb[i], rgb[i+1], rgb[i+2], 0xff
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 75}) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// RandomMM generates vLLM's random-mm dataset for numPrompts requests, as
// the random_mm kind's Source does, all at once (for tests and vbench
// dataset).
func RandomMM(spec RandomMMSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string) ([]Request, error) {
	var out []Request
	src := randomMMSource{spec: spec}
	for r, err := range src.Requests(context.Background(), Env{Tokenizer: tok, NumPrompts: numPrompts, Seed: seed, IDPrefix: idPrefix}) {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
