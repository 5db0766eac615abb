package pipeline

import (
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
)

// assignLoRA gives each request its payload model among the target's
// LoRA modules (target.lora_modules, --lora-modules), as vLLM does before
// the timed run: "round-robin" gives request i module i mod M; "random"
// draws each with Python's random.choice from the global generator that
// random.seed(seed) seeded at start. That reproduces vLLM's choices when
// the dataset draws nothing from Python's global generator before (the
// random dataset draws from its own). It runs once, before the payloads
// are built. No modules leaves the requests unchanged.
func assignLoRA(reqs []dataset.Request, t scenario.Target, seed int64) {
	mods := t.LoraModules
	if len(mods) == 0 {
		return
	}
	if t.LoraAssignment == "round-robin" {
		for i := range reqs {
			reqs[i].Model = mods[i%len(mods)]
		}
		return
	}
	m := numpy.NewMT19937Key(numpy.PythonSeedKey(absSeed(seed)))
	for i := range reqs {
		reqs[i].Model = mods[numpy.PyRandbelow(m, uint64(len(mods)))]
	}
}

// absSeed is |seed|, which CPython's random.seed(int) seeds with.
func absSeed(seed int64) uint64 {
	if seed < 0 {
		return uint64(-(seed + 1)) + 1
	}
	return uint64(seed)
}
