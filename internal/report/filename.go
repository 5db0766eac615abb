package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/atomicfile"
	"github.com/vbench/vbench/internal/py"
)

// FileNameInput holds what the result file name depends on.
type FileNameInput struct {
	// Label is --label; "" uses Backend.
	Label string
	// Backend is the backend name, the default label.
	Backend string
	// RequestRate is the configured rate (+Inf for "inf").
	RequestRate float64
	// MaxConcurrency adds "-concurrency<N>" when non-nil.
	MaxConcurrency *int
	// ModelID is the model id; only the part after its last "/" is used.
	ModelID string
	// Date is the same YYYYMMDD-HHMMSS string as the result's date key.
	Date string
	// RampUp selects the ramp-up form of the name when non-nil.
	RampUp *RampUp
	// ResultFilename, when set, replaces the computed name.
	ResultFilename string
	// ResultDir, when set, is prefixed to the name.
	ResultDir string
}

// ResultFileName returns vLLM's result file path:
//
//	{label}-{rate}qps{-concurrency<N>}-{base_model_id}-{date}.json
//	{label}-ramp-up-{strategy}-{start}qps-{end}qps{-concurrency<N>}-{base_model_id}-{date}.json
//
// where rate is Python's str(float) ("inf", "10.0", "0.5", "1e-05"); a
// ResultFilename replaces the whole name, and a ResultDir is joined in front
// as os.path.join does (an absolute name stands alone).
func ResultFileName(in FileNameInput) string {
	label := in.Label
	if label == "" {
		label = in.Backend
	}
	base := in.ModelID[strings.LastIndexByte(in.ModelID, '/')+1:]
	conc := ""
	if in.MaxConcurrency != nil {
		conc = "-concurrency" + strconv.Itoa(*in.MaxConcurrency)
	}
	var name string
	if r := in.RampUp; r != nil {
		name = fmt.Sprintf("%s-ramp-up-%s-%sqps-%sqps%s-%s-%s.json",
			label, r.Strategy, pyNumberString(r.StartRPS), pyNumberString(r.EndRPS), conc, base, in.Date)
	} else {
		name = fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, py.Repr(in.RequestRate), conc, base, in.Date)
	}
	if in.ResultFilename != "" {
		name = in.ResultFilename
	}
	if in.ResultDir != "" {
		name = pyJoin(in.ResultDir, name)
	}
	return name
}

// pyNumberString is str() of integralOrFloat(f): "5" for an integral value, the
// float repr otherwise.
func pyNumberString(f float64) string {
	if n, ok := integralOrFloat(f).(int64); ok {
		return strconv.FormatInt(n, 10)
	}
	return py.Repr(f)
}

// pyJoin joins two path parts as Python's os.path.join does on POSIX.
func pyJoin(dir, name string) string {
	switch {
	case filepath.IsAbs(name):
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	default:
		return dir + "/" + name
	}
}

// WriteResultFile writes data to path atomically: the content goes to a
// temporary file in the same directory, which is synced and renamed over
// path, so readers see either the old or the new file, never a torn one.
// The parent directory is created if missing. With appendMode the new
// content is the existing file's, then "\n" if that was non-empty, then
// data (vLLM's --append-result: one JSON document per line); otherwise data
// replaces the file. An existing file keeps its permission bits; a new one
// gets 0644.
func WriteResultFile(path string, data []byte, appendMode bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	perm := fs.FileMode(0o644)
	st, err := os.Stat(path)
	switch {
	case err == nil:
		perm = st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("stat result file: %w", err)
	}
	content := data
	if appendMode {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read result file for append: %w", err)
		}
		if len(old) > 0 {
			content = make([]byte, 0, len(old)+1+len(data))
			content = append(append(append(content, old...), '\n'), data...)
		}
	}
	return atomicWrite(path, content, perm)
}

func atomicWrite(path string, content []byte, perm fs.FileMode) error {
	if err := atomicfile.WriteFile(path, content, perm); err != nil {
		return fmt.Errorf("write result file: %w", err)
	}
	return nil
}
