package report

import (
	"fmt"
	"io"

	"github.com/vbench/vbench/internal/py"
)

// The Python JSON model lives in package py. These names stay so that the
// packages built on the report's JSON keep compiling unchanged; new code
// calls py directly.

// Object is py.Object: a JSON object with Python dict order semantics.
type Object = py.Object

// NewObject returns an empty Object.
func NewObject() *Object { return py.NewObject() }

// ErrTrailingData is py.ErrTrailingData, returned (wrapped) by DecodePython
// when the input holds more than one JSON value.
var ErrTrailingData = py.ErrTrailingData

// PyFloatRepr is py.Repr: Python's repr (and str) of a float.
func PyFloatRepr(f float64) string { return py.Repr(f) }

// MarshalPython is py.Dumps: v as Python's json.dumps(v) writes it.
func MarshalPython(v any) ([]byte, error) { return py.Dumps(v) }

// EncodePython writes MarshalPython(v) to w.
func EncodePython(w io.Writer, v any) error {
	b, err := py.Dumps(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// DecodePython reads all of r and parses it with py.Loads (Python's
// json.load: ordered *Object, int/float kept apart, NaN and Infinity
// accepted, trailing data an error).
func DecodePython(r io.Reader) (any, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read json: %w", err)
	}
	v, err := py.Loads(data)
	if err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	return v, nil
}
