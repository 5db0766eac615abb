package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// KV is one output.metadata key and its value.
type KV struct {
	Key, Value string
}

// Metadata is the output.metadata object: string keys and values in the
// order the scenario wrote them (file order, or --metadata order), which is
// the order vLLM writes them into the result JSON. (Keys from several files,
// or from --set, follow CUE's order of merging them: deterministic, but not
// necessarily the order the files were given in.) It decodes from and
// encodes to a JSON object; the keys are distinct. The order is not part of
// the scenario's identity: [Scenario.Canonical] sorts the keys, so two
// scenarios that differ only in metadata order have the same hash.
type Metadata []KV

// Get returns the value of key and whether m has it.
func (m Metadata) Get(key string) (string, bool) {
	for _, kv := range m {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Set gives key the value v: in place if m has key, else appended.
func (m *Metadata) Set(key, v string) {
	for i := range *m {
		if (*m)[i].Key == key {
			(*m)[i].Value = v
			return
		}
	}
	*m = append(*m, KV{Key: key, Value: v})
}

// MarshalJSON writes m as a JSON object with its keys in order; a nil m
// is null.
func (m Metadata) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, kv := range m {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(kv.Key); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		buf.WriteByte(':')
		if err := enc.Encode(kv.Value); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of strings keeping its key order; a
// repeated key keeps its first position and takes the last value. null
// leaves m unchanged, as for a map.
func (m *Metadata) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("metadata: want a JSON object, got %v", tok)
	}
	out := Metadata{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("metadata: want a key, got %v", tok)
		}
		tok, err = dec.Token()
		if err != nil {
			return err
		}
		v, ok := tok.(string)
		if !ok {
			return fmt.Errorf("metadata %q: want a string value, got %v", key, tok)
		}
		out.Set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*m = out
	return nil
}
