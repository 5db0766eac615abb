package backend_test

import (
	"slices"
	"testing"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/scenario"
)

// TestRegistryMatchesSchema checks the registry against the schema, which
// states vLLM's contract for the configuration layer (it cannot import
// this package): #Backend lists the registered kinds in the same order,
// #OpenAICompatibleBackend the OpenAI-compatible ones, and
// #CompletionsBackend the ones that send the completions request, and
// #PoolingBackends the pooling ones.
func TestRegistryMatchesSchema(t *testing.T) {
	var compatible, completions, pooling []string
	for _, k := range backend.Kinds() {
		if k.Task == backend.TaskPooling {
			pooling = append(pooling, k.Name)
		}
		if k.OpenAICompatible {
			compatible = append(compatible, k.Name)
		}
		if k.URLSuffix == "completions" {
			completions = append(completions, k.Name)
		}
	}
	for _, tc := range []struct {
		def              string
		schema, registry []string
	}{
		{"#Backend", scenario.Backends(), backend.Names()},
		{"#OpenAICompatibleBackend", scenario.OpenAICompatibleBackends(), compatible},
		{"#CompletionsBackend", scenario.CompletionsBackends(), completions},
		{"#PoolingBackends", scenario.PoolingBackends(), pooling},
	} {
		if len(tc.schema) == 0 || !slices.Equal(tc.schema, tc.registry) {
			t.Errorf("schema %s = %q\nregistry has %q", tc.def, tc.schema, tc.registry)
		}
	}
}
