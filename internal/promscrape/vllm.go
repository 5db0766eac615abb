package promscrape

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// vLLM's speculative-decoding counter families, as exposed (with "_total").
const (
	FamSpecDrafts         = "vllm:spec_decode_num_drafts_total"
	FamSpecDraftTokens    = "vllm:spec_decode_num_draft_tokens_total"
	FamSpecAccepted       = "vllm:spec_decode_num_accepted_tokens_total"
	FamSpecAcceptedPerPos = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
	// PositionLabel is the per-position family's label of the draft position.
	PositionLabel = "position"
)

// vLLM's diffusion (dLLM) decoding counter families, as exposed.
const (
	FamDiffusionSteps     = "vllm:diffusion_num_denoising_steps_total"
	FamDiffusionPositions = "vllm:diffusion_num_canvas_positions_total"
	FamDiffusionCommitted = "vllm:diffusion_num_committed_tokens_total"
)

// The family prefixes vLLM looks for.
const (
	specPrefix      = "vllm:spec_decode"
	diffusionPrefix = "vllm:diffusion"
)

// SpecDecodeStats are vLLM's speculative-decoding statistics of a run.
type SpecDecodeStats struct {
	// AcceptanceRate is 100 · Δaccepted / Δdraft tokens.
	AcceptanceRate float64
	// AcceptanceLength is 1 + Δaccepted / Δdrafts (0 without drafts).
	AcceptanceLength float64
	// NumDrafts, DraftTokens and AcceptedTokens are the counter deltas,
	// summed over engines and models.
	NumDrafts, DraftTokens, AcceptedTokens int64
	// PerPosition are Δaccepted at position k / Δdrafts, for the sorted
	// positions of either scrape (empty without drafts).
	PerPosition []float64
}

// DiffusionStats are vLLM's diffusion-decoding statistics of a run.
type DiffusionStats struct {
	// CommittedThroughput is Δcommitted / the run's duration.
	CommittedThroughput float64
	// StepsPerCanvas is denoising steps / canvases.
	StepsPerCanvas float64
	// CommittedPerStep is Δcommitted / denoising steps.
	CommittedPerStep float64
	// CommittedTokens and CanvasPositions are the counter deltas;
	// DenoisingSteps is Δsteps less the commit steps, truncated as vLLM
	// saves it.
	CommittedTokens, DenoisingSteps, CanvasPositions int64
}

// hasCounters reports whether s has a counter family named prefix…_total:
// vLLM's test that the server exposes the feature at all.
func hasCounters(s *Snapshot, prefix string) bool {
	if s == nil {
		return false
	}
	for name, f := range s.Families {
		if f.Kind == Counter && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, "_total") {
			return true
		}
	}
	return false
}

// intDelta is a series' increase as vLLM counts it: each sample is
// truncated to an integer (int(float(v))) before the subtraction. A NaN or
// infinite sample is taken as absent from its scrape, as vLLM's reader
// skips a NaN line (int(float("nan")) raises ValueError; an infinite one
// raises OverflowError, which stops vLLM's client): absent before, the
// series counts from 0; absent after, it is unchanged (see Delta.Value).
// So a position whose sample is NaN keeps its slot in the per-position
// rates, with the increase the finite scrape gives.
func intDelta(d Delta) int64 {
	t := Delta{Labels: d.Labels,
		Before: math.Trunc(d.Before), After: math.Trunc(d.After),
		InBefore: d.InBefore && finite(d.Before), InAfter: d.InAfter && finite(d.After)}
	return int64(t.Value())
}

// sumInt is the increase of a family over all its label sets.
func sumInt(d Deltas, name string) int64 {
	var n int64
	for _, x := range d[name] {
		n += intDelta(x)
	}
	return n
}

// SpecDecode computes vLLM's speculative-decoding statistics from the
// scrapes before and after the timed phase. It returns nil, as vLLM
// reports nothing, unless both scrapes have a vllm:spec_decode…_total
// counter and draft tokens were proposed during the run.
//
// The counters are read by family name, never by substring, and summed
// over all label sets (engines, models); the per-position family's
// position comes from its "position" label, whatever the label order.
// A series that reset counts from 0; one gone after the run is taken as
// unchanged (vLLM does so for positions).
func SpecDecode(before, after *Snapshot) *SpecDecodeStats {
	if !hasCounters(before, specPrefix) || !hasCounters(after, specPrefix) {
		return nil
	}
	d := Diff(before, after)
	st := &SpecDecodeStats{
		NumDrafts:      sumInt(d, FamSpecDrafts),
		DraftTokens:    sumInt(d, FamSpecDraftTokens),
		AcceptedTokens: sumInt(d, FamSpecAccepted),
	}
	if st.DraftTokens <= 0 {
		return nil
	}
	st.AcceptanceRate = float64(st.AcceptedTokens) / float64(st.DraftTokens) * 100
	if st.NumDrafts > 0 {
		st.AcceptanceLength = 1 + float64(st.AcceptedTokens)/float64(st.NumDrafts)
		perPos := map[int]int64{}
		for _, x := range d[FamSpecAcceptedPerPos] {
			pos, err := strconv.Atoi(x.Labels[PositionLabel])
			if err != nil {
				continue // vLLM skips a position that is not an integer
			}
			perPos[pos] += intDelta(x)
		}
		positions := make([]int, 0, len(perPos))
		for p := range perPos {
			positions = append(positions, p)
		}
		slices.Sort(positions)
		st.PerPosition = make([]float64, len(positions))
		for i, p := range positions {
			st.PerPosition[i] = float64(perPos[p]) / float64(st.NumDrafts)
		}
	}
	return st
}

// Diffusion computes vLLM's diffusion-decoding statistics from the scrapes
// before and after the timed phase, over duration seconds. It returns nil
// unless both scrapes have a vllm:diffusion…_total counter and denoising
// steps and committed tokens grew; also (where vLLM would fail dividing by
// zero) when no canvas positions or no denoising steps remain.
func Diffusion(before, after *Snapshot, duration float64) *DiffusionStats {
	if !hasCounters(before, diffusionPrefix) || !hasCounters(after, diffusionPrefix) {
		return nil
	}
	d := Diff(before, after)
	steps := sumInt(d, FamDiffusionSteps)
	positions := sumInt(d, FamDiffusionPositions)
	committed := sumInt(d, FamDiffusionCommitted)
	if steps <= 0 || committed <= 0 || positions == 0 {
		return nil
	}
	block := float64(positions) / float64(steps) // canvas length
	canvases := float64(committed) / block       // commit steps
	denoising := float64(steps) - canvases       // less the commit steps
	if denoising == 0 {
		return nil
	}
	return &DiffusionStats{
		CommittedThroughput: float64(committed) / duration,
		StepsPerCanvas:      denoising / canvases,
		CommittedPerStep:    float64(committed) / denoising,
		CommittedTokens:     committed,
		DenoisingSteps:      int64(denoising),
		CanvasPositions:     positions,
	}
}
