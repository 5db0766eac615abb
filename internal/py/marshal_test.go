package py

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// goJSON is what encoding/json writes for v without HTML escaping.
func goJSON(t testing.TB, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "error: " + err.Error()
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// marshalled is what marshalTo writes for v.
func marshalled(v any) string {
	var b bytes.Buffer
	if err := marshalTo(&b, v); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

// marshalTo writes every value as encoding/json does: the direct paths
// (strings, numbers, booleans, nil, Objects, maps) and the fallback alike.
func TestMarshalToMatchesEncodingJSON(t *testing.T) {
	o := NewObject()
	o.Set("model", "m")
	o.Set("prompt", "héllo <wörld> & \"quoted\"\n\u2028")
	o.Set("max_tokens", 128)
	o.Set("stream_options", map[string]any{"include_usage": true, "b": []int{1, 2}, "a": nil})
	values := []any{
		nil, true, false, 0, -7, int64(math.MaxInt64), "", "plain", "<>&", "tab\t", "quote\"", `back\slash`,
		"\x7f", "é", "\u2028", "\u2029", "bad \xff utf8", "emoji 😀",
		0.0, 1.0, -1.5, 1e-6, 9.99e-7, 1e21, 1e20, 123456789.125, 5e-324, math.MaxFloat64, math.Copysign(0, -1), 0.1,
		math.NaN(), math.Inf(1), []string{"a"}, []int{1}, map[string]any{"z": 1.0, "a": "x"}, o, json.Number("1.50"),
	}
	for _, v := range values {
		if got, want := marshalled(v), goJSON(t, v); got != want {
			t.Errorf("marshalTo(%#v) = %s, encoding/json %s", v, got, want)
		}
	}
}

func FuzzMarshalString(f *testing.F) {
	for _, s := range []string{"", "plain", "é\u2028", "\xff", "a\"b", "\x00"} {
		f.Add(s, 1.5)
	}
	f.Fuzz(func(t *testing.T, s string, x float64) {
		if got, want := marshalled(s), goJSON(t, s); got != want {
			t.Fatalf("marshalTo(%q) = %s, encoding/json %s", s, got, want)
		}
		if got, want := marshalled(x), goJSON(t, x); got != want && !(math.IsNaN(x) || math.IsInf(x, 0)) {
			t.Fatalf("marshalTo(%v) = %s, encoding/json %s", x, got, want)
		}
	})
}

func BenchmarkObjectMarshalJSON(b *testing.B) {
	o := NewObject()
	o.Set("model", "vbench-sim")
	o.Set("prompt", "a short prompt of a few random tokens: 数据 données")
	o.Set("repetition_penalty", 1.0)
	o.Set("max_tokens", 1)
	o.Set("logprobs", nil)
	o.Set("stream", true)
	o.Set("stream_options", map[string]any{"include_usage": true})
	o.Set("ignore_eos", true)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
