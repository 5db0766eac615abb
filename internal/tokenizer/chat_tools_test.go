package tokenizer

import (
	"testing"

	"github.com/vbench/vbench/internal/py"
)

// An ordered JSON object given to a chat template (BFCL's tools, as
// py.Loads reads them) keeps its key order, as transformers passes Python
// dicts: a template's tojson writes the keys as the dataset has them.
func TestChatTemplateKeepsObjectOrder(t *testing.T) {
	tools, err := py.Loads([]byte(`[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer","default":7}}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	ct := &chatTemplate{name: "t", source: `{{ tools | tojson }}|{{ tools[0].function.parameters.properties.a.default + 1 }}`}
	got, err := ct.apply(nil, false, map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer", "default": 7}}}}}]|8`
	if got != want {
		t.Errorf("rendered\n got %s\nwant %s", got, want)
	}
}
