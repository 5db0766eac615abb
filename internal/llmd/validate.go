package llmd

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the published Benchmark Report v0.2.1 schema (see
// schema/README.md).
//
//go:embed schema/br_v0_2_1_json_schema.json
var schemaJSON []byte

var compiled struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// Validate checks a Benchmark Report (JSON) against the published v0.2.1
// schema.
func Validate(report []byte) error {
	compiled.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compiled.err = err
			return
		}
		c := jsonschema.NewCompiler()
		const url = "https://llm-d.ai/schemas/br_v0_2_1_json_schema.json"
		if err := c.AddResource(url, doc); err != nil {
			compiled.err = err
			return
		}
		compiled.schema, compiled.err = c.Compile(url)
	})
	if compiled.err != nil {
		return fmt.Errorf("the Benchmark Report schema: %w", compiled.err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(report))
	if err != nil {
		return err
	}
	return compiled.schema.Validate(v)
}
