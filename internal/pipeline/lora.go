package pipeline

import (
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
)

// assignLoRA gives each request its payload model among the target's
// LoRA modules (target.lora_modules, --lora-modules), as vLLM does before
// the timed run: "round-robin" gives request i module i mod M; "random"
// draws each with Python's random.choice from py, Python's global
// generator as the dataset left it (see pyGlobalRandom). It runs once,
// before the payloads are built. No modules leaves the requests unchanged.
func assignLoRA(reqs []dataset.Request, t scenario.Target, py *numpy.PyRandom) {
	if assign := loraAssigner(t, py); assign != nil {
		for i := range reqs {
			assign(i, &reqs[i])
		}
	}
}

// loraAssigner is assignLoRA for one request at a time, called with the
// requests in order (request i, then i+1): nil without LoRA modules.
func loraAssigner(t scenario.Target, py *numpy.PyRandom) func(i int, r *dataset.Request) {
	mods := t.LoraModules
	if len(mods) == 0 {
		return nil
	}
	if t.LoraAssignment == "round-robin" {
		return func(i int, r *dataset.Request) { r.Model = mods[i%len(mods)] }
	}
	return func(_ int, r *dataset.Request) { r.Model = mods[py.Choice(len(mods))] }
}

// pyGlobalRandom is Python's global random generator as vLLM starts:
// random.seed(seed). The run hands it to the dataset (dataset.Env.PyGlobal)
// and then to the LoRA assignment, so that the choices follow what the
// dataset drew from it, as vLLM's do: a kind that reseeds and draws from
// it as vLLM's class does leaves it as vLLM's would; a kind whose vLLM
// class draws from it while its Source here uses a generator of its own
// (dataset.Kind.PythonRandom) is refused with random assignment
// (CheckRun).
func pyGlobalRandom(seed int64) *numpy.PyRandom {
	return numpy.NewPyRandom(seed)
}
