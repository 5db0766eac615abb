package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image/jpeg"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/numpy"
)

// mmGoldenCase is a case of testdata/randommm_golden.json.
type mmGoldenCase struct {
	Name       string       `json:"name"`
	Seed       int64        `json:"seed"`
	N          int          `json:"n"`
	InputLen   int          `json:"input_len"`
	OutputLen  int          `json:"output_len"`
	RangeRatio float64      `json:"range_ratio"`
	PrefixLen  int          `json:"prefix_len"`
	Base       int          `json:"base"`
	Ratio      float64      `json:"ratio"`
	Limits     [][2]any     `json:"limits"`
	Buckets    [][4]float64 `json:"buckets"`
	Requests   []struct {
		Prompt    string `json:"prompt"`
		PromptLen int    `json:"prompt_len"`
		OutputLen int    `json:"output_len"`
		Items     []struct {
			Bucket [3]int `json:"bucket"`
			SHA256 string `json:"sha256"`
		} `json:"items"`
	} `json:"requests"`
	Settled struct {
		Buckets  [][4]float64 `json:"buckets"`
		MinItems int          `json:"min_items"`
		MaxItems int          `json:"max_items"`
	} `json:"settled"`
}

func (c *mmGoldenCase) spec() RandomMMSpec {
	s := RandomMMSpec{RandomSpec: RandomSpec{InputLen: c.InputLen, OutputLen: c.OutputLen, RangeRatio: RangeRatio{c.RangeRatio, c.RangeRatio},
		PrefixLen: c.PrefixLen, BatchSize: 1}, BaseItemsPerRequest: c.Base, NumMMItemsRangeRatio: c.Ratio}
	for _, l := range c.Limits {
		s.LimitMMPerPrompt = append(s.LimitMMPerPrompt, MMLimit{l[0].(string), int(l[1].(float64))})
	}
	for _, b := range c.Buckets {
		s.BucketConfig = append(s.BucketConfig, MMBucket{int(b[0]), int(b[1]), int(b[2]), b[3]})
	}
	return s
}

// TestRandomMMMatchesVLLM compares the random_mm draws with
// testdata/randommm_golden.json, vLLM's RandomMultiModalDataset restated
// in Python with NumPy by testdata/randommm_golden.py and the toy
// tokenizer: the prompts, the item counts, each item's bucket and the
// SHA-256 of its raw pixels, request by request.
func TestRandomMMMatchesVLLM(t *testing.T) {
	data, err := os.ReadFile("testdata/randommm_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []mmGoldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 3 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			spec := c.spec()
			var log strings.Builder
			m, err := newMMGen(&spec, Env{Tokenizer: toyTokenizer{}, NumPrompts: c.N, Seed: c.Seed, IDPrefix: "p-", Stderr: &log})
			if err != nil {
				t.Fatal(err)
			}
			if m.smp.minItems != c.Settled.MinItems || m.smp.maxItems != c.Settled.MaxItems || len(m.smp.buckets) != len(c.Settled.Buckets) {
				t.Fatalf("settled %+v, want %+v", m.smp, c.Settled)
			}
			var reqs []Request
			var pending []mmPending
			for !m.g.done() {
				r, p, err := m.next(2)
				if err != nil {
					t.Fatal(err)
				}
				reqs, pending = append(reqs, r...), append(pending, p...)
			}
			if len(reqs) != len(c.Requests) {
				t.Fatalf("%d requests, want %d", len(reqs), len(c.Requests))
			}
			for i, w := range c.Requests {
				g := reqs[i]
				if g.Prompt != w.Prompt || g.PromptLen != w.PromptLen || g.OutputLen != w.OutputLen {
					t.Errorf("request %d = {%q %d %d}, want {%q %d %d}", i, g.Prompt, g.PromptLen, g.OutputLen, w.Prompt, w.PromptLen, w.OutputLen)
				}
				items := pending[i].items
				if len(items) != len(w.Items) {
					t.Fatalf("request %d: %d items, want %d", i, len(items), len(w.Items))
				}
				for k, it := range items {
					sum := sha256.Sum256(it.pixels)
					b := it.bucket
					if [3]int{b.Height, b.Width, b.Frames} != w.Items[k].Bucket || hex.EncodeToString(sum[:]) != w.Items[k].SHA256 {
						t.Errorf("request %d item %d: bucket %v pixels %x, want %v %s", i, k, b, sum[:4], w.Items[k].Bucket, w.Items[k].SHA256[:8])
					}
				}
			}
			if !strings.Contains(log.String(), "Normalized bucket config: {(") || !strings.Contains(log.String(), "Sampling number of multimodal items from [") {
				t.Errorf("log %q", log.String())
			}
		})
	}
}

// The item counts are uniform on vLLM's bounds and the buckets come up at
// their renormalised probabilities, a modality never above its cap: over
// 10,000 requests' draws with a fixed seed, each count's and each
// bucket's frequency is within 5 standard errors of its expectation.
func TestRandomMMItemStatistics(t *testing.T) {
	spec := RandomMMSpec{BaseItemsPerRequest: 3, NumMMItemsRangeRatio: 0.5,
		LimitMMPerPrompt: MMLimits{{"image", 3}, {"video", 1}},
		BucketConfig:     MMBuckets{{1, 1, 1, 0.6}, {1, 2, 1, 0.2}, {1, 1, 2, 0.2}, {9, 9, 1, 0}}}
	smp, err := newMMSampling(&spec)
	if err != nil {
		t.Fatal(err)
	}
	if smp.minItems != 1 || smp.maxItems != 4 || len(smp.buckets) != 3 {
		t.Fatalf("settled %+v", smp)
	}
	rng, _ := numpy.NewGenerator(1234)
	const draws = 10000
	counts := map[int]int{}
	buckets := map[string]int{}
	first := map[string]int{}
	for range draws {
		its, err := smp.drawItems(rng)
		if err != nil {
			t.Fatal(err)
		}
		counts[len(its)]++
		first[its[0].bucket.key()]++
		videos := 0
		for _, it := range its {
			buckets[it.bucket.key()]++
			if it.bucket.Frames > 1 {
				videos++
			}
		}
		if videos > 1 || len(its)-videos > 3 {
			t.Fatalf("a request with %d videos and %d images exceeds the caps", videos, len(its)-videos)
		}
	}
	within := func(what string, got int, n int, p float64) {
		mean, se := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
		if math.Abs(float64(got)-mean) > 5*se {
			t.Errorf("%s: %d, want %.0f ± %.0f", what, got, mean, 5*se)
		}
	}
	for k := 1; k <= 4; k++ {
		within("requests with "+string(rune('0'+k))+" items", counts[k], draws, 0.25)
	}
	// A request's first item follows the renormalised buckets (0 dropped:
	// 0.6, 0.2, 0.2); once its video is taken, a drawn video is dropped and
	// the images renormalised, which keeps their ratio 3:1.
	within("first items of bucket 1,1,1", first["1,1,1"], draws, 0.6)
	within("first items of bucket 1,2,1", first["1,2,1"], draws, 0.2)
	within("first items of bucket 1,1,2", first["1,1,2"], draws, 0.2)
	if r := float64(buckets["1,1,1"]) / float64(buckets["1,2,1"]); math.Abs(r-3) > 0.25 {
		t.Errorf("image buckets ratio %.3f, want 3", r)
	}
	if buckets["9,9,1"] != 0 {
		t.Error("a zero-probability bucket was drawn")
	}
}

// Requests carry valid JPEGs of their bucket's size in vLLM's content-part
// shape, videos as video/jpeg frame lists.
func TestRandomMMJPEGs(t *testing.T) {
	spec := RandomMMSpec{RandomSpec: RandomSpec{InputLen: 6, OutputLen: 2, BatchSize: 1}, BaseItemsPerRequest: 2,
		LimitMMPerPrompt: MMLimits{{"image", 2}, {"video", 1}}, BucketConfig: MMBuckets{{16, 24, 1, 0.5}, {8, 8, 3, 0.5}}}
	reqs, err := RandomMM(spec, 6, 0, toyTokenizer{}, "mm-")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[PartType]int{}
	for i, r := range reqs {
		if len(r.Messages) != 1 || r.Messages[0].Transformed || r.Messages[0].Parts[0] != (Part{Type: PartText, Text: r.Prompt}) {
			t.Fatalf("request %d messages %+v", i, r.Messages)
		}
		for _, p := range r.Messages[0].Parts[1:] {
			seen[p.Type]++
			prefix, w, h, frames := "data:image/jpeg;base64,", 24, 16, 1
			if p.Type == PartVideo {
				prefix, w, h, frames = "data:video/jpeg;base64,", 8, 8, 3
			}
			body, ok := strings.CutPrefix(p.URL, prefix)
			if !ok {
				t.Fatalf("request %d: %s part URL %.40s", i, p.Type, p.URL)
			}
			fs := strings.Split(body, ",")
			if len(fs) != frames {
				t.Fatalf("request %d: %d frames, want %d", i, len(fs), frames)
			}
			for _, f := range fs {
				raw, err := base64.StdEncoding.DecodeString(f)
				if err != nil {
					t.Fatal(err)
				}
				img, err := jpeg.Decode(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
					t.Errorf("request %d: a %dx%d JPEG, want %dx%d", i, b.Dx(), b.Dy(), w, h)
				}
			}
		}
	}
	if seen[PartImage] == 0 || seen[PartVideo] == 0 {
		t.Errorf("parts seen %v", seen)
	}
	spec.EnableMultimodalChat = true
	reqs, _ = RandomMM(spec, 1, 0, toyTokenizer{}, "")
	if !reqs[0].Messages[0].Transformed {
		t.Error("enable_multimodal_chat: the message is not vLLM's transformed one")
	}
}
