package argv

import (
	"math"
	"testing"
)

func TestPyInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"5", 5, true}, {" -7\n", -7, true}, {"+3", 3, true}, {"1_000", 1000, true}, {"007", 7, true},
		{"1__0", 0, false}, {"_1", 0, false}, {"1.0", 0, false}, {"1e3", 0, false}, {"", 0, false}, {"0x10", 0, false},
		{"9223372036854775807", math.MaxInt64, true}, {"9223372036854775808", 0, false},
	} {
		got, err := pyInt(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("pyInt(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestPyFloat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true}, {" .5 ", 0.5, true}, {"5.", 5, true}, {"-1e-3", -0.001, true}, {"1_0.2_5", 10.25, true},
		{"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true}, {"+INF", math.Inf(1), true}, {"1e400", math.Inf(1), true},
		{"", 0, false}, {".", 0, false}, {"1e", 0, false}, {"0x1p3", 0, false}, {"infinit", 0, false}, {"--1", 0, false}, {"1_", 0, false},
	} {
		got, err := pyFloat(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("pyFloat(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if f, err := pyFloat("NaN"); err != nil || !math.IsNaN(f) {
		t.Errorf("pyFloat(NaN) = %v, %v", f, err)
	}
}

// humanReadableInt follows vLLM's human_readable_int, including its float
// arithmetic for decimal suffixes (1.001k is 1000).
func TestHumanReadableInt(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"1k", "1000", true}, {"1K", "1024", true}, {"25.6k", "25600", true}, {"1.001k", "1000", true},
		{"2M", "2097152", true}, {"3g", "3000000000", true}, {"1T", "1099511627776", true}, {"12", "12", true},
		{" 4k ", "4000", true}, {"1_5", "15", true}, {"99999999999999999999k", "99999999999999991611392", true},
		{"1.5K", "", false}, {"k", "", false}, {"1kb", "", false}, {"-1k", "", false}, {"x", "", false},
	} {
		got, err := humanReadableInt(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("humanReadableInt(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// dumps writes what Python's json.dumps writes.
func TestDumps(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"a":[1.0,2.5e-7,1e16,"é",null,true],"b":{"x":-0}}`: `{"b": {"x": 0}, "a": [1.0, 2.5e-07, 1e+16, "\u00e9", null, true]}`,
		`"😀\u0001\t"`:              `"\ud83d\ude00\u0001\t"`,
		`100000000000000000000000`: `100000000000000000000000`,
		` [ ] `:                    `[]`,
	} {
		v, err := parseJSON(in)
		if err != nil {
			t.Errorf("parseJSON(%s): %v", in, err)
			continue
		}
		if got := dumps(v); got != want {
			t.Errorf("dumps(%s) = %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", "{", "[1,]", "NaN", "1 2", "1e400", `{"a" 1}`} {
		if _, err := parseJSON(bad); err == nil {
			t.Errorf("parseJSON(%q) succeeded", bad)
		}
	}
}
