package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	cuejson "cuelang.org/go/encoding/json"
	cueyaml "cuelang.org/go/encoding/yaml"
)

// Formats are the formats Export writes.
var Formats = []string{"cue", "json", "yaml"}

// Export writes s as a scenario file in format "cue" (formatted CUE),
// "json" (indented) or "yaml": every field written out, defaults included,
// in the order of the Go types, map keys sorted (metadata keeps its own
// order). Loading the output gives a scenario with the same [Scenario.Hash].
//
// Export writes header values as they are: export s.Redacted() for
// anything shown or saved.
func Export(s *Scenario, format string) ([]byte, error) {
	data, err := marshalCompact(s)
	if err != nil {
		return nil, fmt.Errorf("export scenario: %w", err)
	}
	switch format {
	case "json":
		var buf bytes.Buffer
		if err := json.Indent(&buf, data, "", "  "); err != nil {
			return nil, fmt.Errorf("export scenario as json: %w", err)
		}
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	case "cue":
		return exportCUE(data)
	case "yaml":
		x, err := cuejson.Extract("scenario.json", data)
		if err != nil {
			return nil, fmt.Errorf("export scenario as yaml: %w", err)
		}
		out, err := cueyaml.Encode(cuecontext.New().BuildExpr(x))
		if err != nil {
			return nil, fmt.Errorf("export scenario as yaml: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("export scenario: unknown format %q (want cue, json or yaml)", format)
}

// exportCUE formats the JSON form of s as a CUE file.
func exportCUE(data []byte) ([]byte, error) {
	x, err := cuejson.Extract("scenario.json", data)
	if err != nil {
		return nil, fmt.Errorf("export scenario as cue: %w", err)
	}
	body, err := format.Node(exprFile("scenario.cue", x), format.Simplify())
	if err != nil {
		return nil, fmt.Errorf("export scenario as cue: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString("// A resolved vbench scenario: every field written out, defaults included.\n\n")
	buf.Write(body)
	return buf.Bytes(), nil
}

// marshalCompact encodes v as compact JSON without HTML escaping.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
