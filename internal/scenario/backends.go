package scenario

import (
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"
)

// The backend facts validation needs come from the schema, which states
// vLLM's contract. This package is a leaf of the configuration layer and
// does not import the backend package: the backend registry is the source
// of what vbench implements, and its tests check that it lists the same
// kinds, in the same order, with the same OpenAI compatibility.

// schemaBackends holds the schema's backend enumerations.
type schemaBackends struct {
	all, openAICompatible, completions, pooling []string
}

// readBackends reads the enumerations from the compiled schema.
func readBackends(root cue.Value) (schemaBackends, error) {
	var b schemaBackends
	for _, e := range []struct {
		def string
		out *[]string
	}{{"#Backend", &b.all}, {"#OpenAICompatibleBackend", &b.openAICompatible}, {"#CompletionsBackend", &b.completions}} {
		var err error
		if *e.out, err = enumStrings(root.LookupPath(cue.MakePath(cue.Def(e.def)))); err != nil {
			return b, fmt.Errorf("embedded schema: %s: %w", e.def, err)
		}
	}
	if err := root.LookupPath(cue.MakePath(cue.Def("#PoolingBackends"))).Decode(&b.pooling); err != nil {
		return b, fmt.Errorf("embedded schema: #PoolingBackends: %w", err)
	}
	return b, nil
}

// enumStrings returns the alternatives of a disjunction of strings in
// the order written.
func enumStrings(v cue.Value) ([]string, error) {
	if err := v.Err(); err != nil {
		return nil, err
	}
	op, args := v.Expr()
	if op != cue.OrOp {
		args = []cue.Value{v}
	}
	out := make([]string, len(args))
	for i, a := range args {
		s, err := a.String()
		if err != nil {
			return nil, fmt.Errorf("alternative %d: %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}

// mustBackends returns the schema's backend enumerations; the embedded
// schema is part of the binary, so failing to read them is a bug.
func mustBackends() *schemaBackends {
	cs, err := loadSchema()
	if err != nil {
		panic(fmt.Sprintf("internal error: %v", err))
	}
	return &cs.backends
}

// Backends returns the schema's #Backend values (vLLM's --backend
// choices) in vLLM's order.
func Backends() []string { return append([]string(nil), mustBackends().all...) }

// OpenAICompatibleBackends returns the schema's #OpenAICompatibleBackend
// values: vLLM's OPENAI_COMPATIBLE_BACKENDS, which take sampling
// parameters.
func OpenAICompatibleBackends() []string {
	return append([]string(nil), mustBackends().openAICompatible...)
}

// PoolingBackends returns the schema's #PoolingBackends: vLLM's
// POOLING_BACKENDS, whose runs report its pooling metrics.
func PoolingBackends() []string { return append([]string(nil), mustBackends().pooling...) }

// Pooling reports whether backend is one of PoolingBackends.
func Pooling(backend string) bool { return slices.Contains(mustBackends().pooling, backend) }

// CompletionsBackends returns the schema's #CompletionsBackend values: the
// backends that send vLLM's completions request.
func CompletionsBackends() []string { return append([]string(nil), mustBackends().completions...) }

// orList joins names as "a", "a or b", or "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
