package py

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"
)

// golden is testdata/golden.json, written by testdata/gen.py from CPython.
type golden struct {
	Floats []struct {
		Bits, Repr, Str, JSON string
		Fixed2, Fixed3        string
	}
	Strings []struct {
		S, Dumps, Repr string
	}
	Dumps []struct {
		Text, Dumps string
	}
	Isoformat []struct {
		Fields    [7]int
		Isoformat string
	}
}

func readGolden(t *testing.T) *golden {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestFloatsMatchCPython(t *testing.T) {
	for _, c := range readGolden(t).Floats {
		raw, err := hex.DecodeString(c.Bits)
		if err != nil || len(raw) != 8 {
			t.Fatalf("bad bits %q", c.Bits)
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(raw))
		if got := Repr(f); got != c.Repr || got != c.Str {
			t.Errorf("Repr(%s) = %s, CPython repr %s, str %s", c.Bits, got, c.Repr, c.Str)
		}
		if got, err := Dumps(f); err != nil || string(got) != c.JSON {
			t.Errorf("Dumps(%s) = %s, %v; CPython %s", c.Bits, got, err, c.JSON)
		}
		if got := Fixed(f, 2); got != c.Fixed2 {
			t.Errorf("Fixed(%s, 2) = %s, CPython %s", c.Bits, got, c.Fixed2)
		}
		if got := Fixed(f, 3); got != c.Fixed3 {
			t.Errorf("Fixed(%s, 3) = %s, CPython %s", c.Bits, got, c.Fixed3)
		}
	}
}

func TestStringsMatchCPython(t *testing.T) {
	for _, c := range readGolden(t).Strings {
		if got := string(AppendString(nil, c.S)); got != c.Dumps {
			t.Errorf("AppendString(%q) = %s, CPython json.dumps %s", c.S, got, c.Dumps)
		}
		if got := ReprString(c.S); got != c.Repr {
			t.Errorf("ReprString(%q) = %s, CPython repr %s", c.S, got, c.Repr)
		}
	}
}

func TestDumpsMatchesCPython(t *testing.T) {
	for _, c := range readGolden(t).Dumps {
		v, err := Loads([]byte(c.Text))
		if err != nil {
			t.Fatalf("Loads(%s): %v", c.Text, err)
		}
		if got, err := Dumps(v); err != nil || string(got) != c.Dumps {
			t.Errorf("Dumps(Loads(%s)) = %s, %v; CPython %s", c.Text, got, err, c.Dumps)
		}
	}
}

func TestIsoformatMatchesCPython(t *testing.T) {
	for _, c := range readGolden(t).Isoformat {
		f := c.Fields
		tm := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], f[6]*1000+999, time.UTC)
		if got := Isoformat(tm); got != c.Isoformat {
			t.Errorf("Isoformat(%v) = %s, CPython %s", f, got, c.Isoformat)
		}
	}
}
