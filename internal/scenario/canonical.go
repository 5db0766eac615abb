package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// RedactedValue replaces header values in [Scenario.Redacted].
const RedactedValue = "<redacted>"

// Canonical returns the canonical form of s: its JSON encoding with the
// keys of every object sorted and no insignificant whitespace. Scenarios
// that resolve to the same values have the same canonical form, whichever
// files, formats, defaults or overrides they came from.
//
// The canonical form includes header values, which are secrets: print or
// save s.Redacted().Canonical() instead. Canonical panics if s holds a
// value JSON cannot encode (NaN, or an infinity outside a [Float] field),
// which a loaded scenario never does.
func (s *Scenario) Canonical() []byte {
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("internal error: encode scenario: %v", err))
	}
	c, err := canonicalJSON(data)
	if err != nil {
		panic(fmt.Sprintf("internal error: canonical scenario: %v", err))
	}
	return c
}

// Hash returns "sha256:" and the hex SHA-256 of s's canonical form. It
// identifies the resolved scenario: any change of value changes it. It is
// computed over the header values but does not reveal them.
func (s *Scenario) Hash() string {
	sum := sha256.Sum256(s.Canonical())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// PlanHash is, for a shard's run (load.shard), the hash of the whole plan
// it is a stripe of: Hash of s without load.shard and without
// output.result_dir (each shard may write to a directory of its own), the
// same for every shard of one split run (vbench merge checks the shards by
// it). For a run that is not split it is Hash.
func (s *Scenario) PlanHash() string {
	if s.Load.Shard == nil {
		return s.Hash()
	}
	c := *s
	c.Load.Shard = nil
	c.Output.ResultDir = ""
	return c.Hash()
}

// canonicalJSON re-encodes JSON with sorted keys, numbers written as they
// are, and no HTML escaping or whitespace.
func canonicalJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Redacted returns a deep copy of s in which every header value is
// replaced by [RedactedValue] and the password of every target base_url by
// "xxxxx" (as [url.URL.Redacted] does), including those in compare variants
// and sweep axes. Use it wherever a scenario is printed or saved.
func (s *Scenario) Redacted() *Scenario {
	c := s.clone()
	redactHeaders(c.Target.Headers)
	c.Target.BaseURL = RedactURL(c.Target.BaseURL)
	if sv := c.Target.Server; sv != nil {
		redactHeaders(sv.Env) // tokens such as HF_TOKEN
		sv.Command = RedactArgv(sv.Command)
		for k := range sv.Args {
			if secretOption(k) {
				sv.Args[k] = json.RawMessage(strconv.Quote(RedactedValue))
			}
		}
	}
	if c.Compare != nil {
		for name, raw := range c.Compare.Variants {
			c.Compare.Variants[name] = redactJSON(raw, func(v any) any {
				if target, ok := field(v, "target"); ok {
					redactAny(field(target, "headers"))
					redactURLField(target)
					if server, ok := field(target, "server"); ok {
						redactAny(field(server, "env"))
					}
				}
				return v
			})
		}
	}
	if c.Sweep != nil {
		for path, values := range c.Sweep.Axes {
			labels, err := fieldPath(path)
			if err != nil || len(labels) == 0 || labels[0] != "target" {
				continue
			}
			for i, raw := range values {
				values[i] = redactJSON(raw, func(v any) any {
					switch {
					case len(labels) == 1:
						redactAny(field(v, "headers"))
						redactURLField(v)
						if server, ok := field(v, "server"); ok {
							redactAny(field(server, "env"))
						}
					case labels[1] == "server" && len(labels) == 2:
						redactAny(field(v, "env"))
					case labels[1] == "server" && len(labels) == 3 && labels[2] == "env":
						redactAny(v, true)
					case labels[1] == "server" && len(labels) == 4 && labels[2] == "env":
						return RedactedValue
					case labels[1] == "base_url" && len(labels) == 2:
						if u, ok := v.(string); ok {
							return RedactURL(u)
						}
					case labels[1] != "headers":
					case len(labels) == 2:
						redactAny(v, true)
					default:
						return RedactedValue
					}
					return v
				})
			}
		}
	}
	return c
}

// RedactURL returns u with its password, if any, replaced by "xxxxx". A
// string that does not parse as a URL with a host but may hold
// credentials (such as "user:pw@host:8000", without a scheme) is replaced
// by [RedactedValue] whole.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Opaque != "" || p.Host == "" {
		if strings.Contains(u, "@") {
			return RedactedValue
		}
		return u
	}
	if _, has := p.User.Password(); !has {
		return u
	}
	return p.Redacted()
}

// redactURLField redacts the base_url of the JSON object target.
func redactURLField(target any) {
	if m, ok := target.(map[string]any); ok {
		if u, ok := m["base_url"].(string); ok {
			m["base_url"] = RedactURL(u)
		}
	}
}

func redactHeaders(h map[string]string) {
	for k := range h {
		h[k] = RedactedValue
	}
}

// redactJSON decodes raw, lets f redact it, and encodes the result.
func redactJSON(raw json.RawMessage, f func(any) any) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(f(v))
	if err != nil {
		return raw
	}
	return out
}

// field returns the value of key in v when v is a JSON object.
func field(v any, key string) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	x, ok := m[key]
	return x, ok
}

// redactAny replaces every value of the JSON object v.
func redactAny(v any, ok bool) {
	if m, isMap := v.(map[string]any); ok && isMap {
		for k := range m {
			m[k] = RedactedValue
		}
	}
}

// clone returns a deep copy of s.
func (s *Scenario) clone() *Scenario {
	return deepCopy(reflect.ValueOf(s)).Interface().(*Scenario)
}

// deepCopy copies v and everything it points to.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(deepCopy(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			c.Field(i).Set(deepCopy(v.Field(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return reflect.ValueOf(slices.Clone(v.Bytes())).Convert(v.Type())
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(deepCopy(v.Elem()))
		return c
	}
	return v
}

// RedactArgv returns argv with the values of options that look secret
// (see secretOption: vLLM's --api-key, --hf-token) replaced by
// [RedactedValue], in both the "--name value" and "--name=value" forms.
func RedactArgv(argv []string) []string {
	out := slices.Clone(argv)
	for i := 0; i < len(out); i++ {
		w := out[i]
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name, _, inline := strings.Cut(w, "=")
		if !secretOption(name) {
			continue
		}
		if inline {
			out[i] = name + "=" + RedactedValue
		} else if i+1 < len(out) && !strings.HasPrefix(out[i+1], "-") {
			out[i+1] = RedactedValue
			i++
		}
	}
	return out
}

// secretOption says whether an option or parameter name looks like it
// carries a secret: "token" or "key", or ending in "-token" or "-key"
// (api-key, hf-token), or holding "secret" or "password"; underscores
// count as dashes. max-num-batched-tokens and tokenizer do not.
func secretOption(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimLeft(name, "-")), "_", "-")
	return n == "token" || n == "key" || strings.HasSuffix(n, "-token") || strings.HasSuffix(n, "-key") ||
		strings.Contains(n, "secret") || strings.Contains(n, "password")
}
