package scenario

import (
	"fmt"
	"math"
	"slices"
)

// validateRunnable checks values the schema allows but a run cannot use,
// so that vet reports them instead of the run failing: no requests, or
// prompts that are always empty.
func (s *Scenario) validateRunnable() []Problem {
	var problems []Problem
	// load.num_prompts 0 means "every line" for the custom datasets and
	// spec_bench and speed_bench (vLLM's SpecBench and SpeedBench are
	// CustomDatasets) only;
	// any other dataset would send nothing.
	if s.Load.NumPrompts == 0 && !slices.Contains([]string{"custom", "custom_image", "custom_audio", "spec_bench", "speed_bench"}, s.Dataset.Kind()) {
		problems = append(problems, newProblem("0 requests: want at least 1", "load", "num_prompts"))
	}
	// The random dataset's shortest prompt is prefix_len plus
	// floor(input_len·(1−range_ratio.input)) tokens (fewer once the
	// tokenizer's special tokens are taken off, which only the run knows);
	// when that is 0 for any tokenizer, the run always fails.
	if r := s.Dataset.Random; r != nil {
		if low := int(math.Floor(float64(r.InputLen) * (1 - r.RangeRatio.Input))); r.PrefixLen+low < 1 {
			problems = append(problems, newProblem(fmt.Sprintf(
				"prompts of %d tokens: want prefix_len + floor(input_len × (1 − range_ratio)) >= 1, e.g. input_len >= 1", r.PrefixLen+low),
				"dataset", "random", "input_len"))
		}
	}
	return problems
}
