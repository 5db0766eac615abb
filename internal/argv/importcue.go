package argv

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue/format"

	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/scenario"
)

// leafObjects are the scenario fields whose objects are values (maps and
// unions), written whole when they differ, rather than field by field.
var leafObjects = []string{
	"target.headers", "output.metadata", "sampling.extra_body", "metrics.goodput", "dataset.random.range_ratio",
}

// CUE writes the scenario of a parsed command line as a CUE scenario file:
// only the fields that differ from the defaults, each under a comment
// naming the flag it came from. Header values are redacted, as in every
// scenario vbench prints. Loading the file gives cmd.Scenario back (with the
// header values redacted).
func CUE(cmd *Command) ([]byte, error) {
	got, err := scenarioJSON(cmd.Scenario.Redacted())
	if err != nil {
		return nil, err
	}
	def, err := scenarioJSON(scenario.Default())
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("// Imported from a vllm bench serve command line by vbench import: only the\n")
	b.WriteString("// fields that differ from the defaults, each under the flag it came from.\n")
	if len(cmd.Scenario.Target.Headers) > 0 {
		b.WriteString("// Header values are redacted: set them here or with\n")
		b.WriteString("// --set 'target.headers.\"NAME\"=VALUE'.\n")
	}
	if cmd.Extras {
		b.WriteString("// --vbench-extras is a vbench serve option, not part of the scenario: vbench\n")
		b.WriteString("// run always adds the vbench extras.\n")
	}
	b.WriteString("\n")
	writeDiff(&b, got, def, "", cmd.Sources)
	out, err := format.Source([]byte(b.String()), format.Simplify())
	if err != nil {
		return nil, fmt.Errorf("internal error: format imported scenario: %w\n%s", err, b.String())
	}
	return out, nil
}

// scenarioJSON is s's JSON form as an ordered object (struct field order).
func scenarioJSON(s *scenario.Scenario) (*py.Object, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("internal error: encode scenario: %w", err)
	}
	v, err := parseJSON(string(data))
	if err != nil {
		return nil, fmt.Errorf("internal error: decode scenario: %w", err)
	}
	o, ok := v.(*py.Object)
	if !ok {
		return nil, fmt.Errorf("internal error: the scenario encodes as %T", v)
	}
	return o, nil
}

// writeDiff writes the fields of got that differ from def (nil: absent),
// recursing into objects that are not leafObjects.
func writeDiff(b *strings.Builder, got, def *py.Object, path string, sources map[string]string) {
	for k, v := range got.All() {
		p := k
		if path != "" {
			p = path + "." + k
		}
		var d any
		hasDef := false
		if def != nil {
			d, hasDef = def.Get(k)
		}
		if hasDef && dumps(v) == dumps(d) {
			continue
		}
		if obj, ok := v.(*py.Object); ok && !slices.Contains(leafObjects, p) {
			defObj, _ := d.(*py.Object)
			var sub strings.Builder
			writeDiff(&sub, obj, defObj, p, sources)
			if sub.Len() > 0 {
				fmt.Fprintf(b, "%s: {\n%s}\n", k, sub.String())
			}
			continue
		}
		if flag := sources[p]; flag != "" {
			fmt.Fprintf(b, "// %s\n", flag)
		}
		fmt.Fprintf(b, "%s: %s\n", k, cueValue(p, v))
	}
}

// cueValue writes the JSON value of the field at path as a CUE literal
// (JSON's syntax is CUE's); a range ratio with equal parts is one number.
func cueValue(path string, v any) string {
	if o, ok := v.(*py.Object); ok && path == "dataset.random.range_ratio" && o.Len() == 2 {
		var parts []string
		for _, x := range o.All() {
			parts = append(parts, dumps(x))
		}
		if parts[0] == parts[1] {
			return parts[0]
		}
	}
	return dumps(v)
}
