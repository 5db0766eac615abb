package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

// ErrOutput is wrapped by the errors of the output checks made before a run:
// the result could not be written where the scenario says, or would
// replace an existing result. It is a usage error (exit 2): nothing was
// sent.
var ErrOutput = errors.New("unusable output location")

// outputError is an output check's error; it matches ErrOutput.
type outputError struct{ msg string }

func (e *outputError) Error() string        { return e.msg }
func (e *outputError) Is(target error) bool { return target == ErrOutput }

// checkOutput is called once before a run's first request (before the
// tokenizer, the dataset and the ready check, so a bad location fails at
// once): when the scenario saves a result, it creates the result directory
// and writes and removes a probe file there, so that a directory under a
// regular file, a read-only one or one in /proc is refused before the run
// rather than after it. An explicit output.result_filename that exists is
// refused too, unless output.overwrite or output.append_result is set;
// planned says the name was chosen by an experiment's plan, which checks
// its files itself (checkPlanOutput), so that --resume may replace an
// unfinished run's result.
func checkOutput(sc *scenario.Scenario, planned bool) error {
	o := sc.Output
	if !o.SaveResult && !o.AppendResult {
		return nil
	}
	// The directory does not depend on the computed name's parts.
	path := report.ResultFileName(report.FileNameInput{Backend: "x", ModelID: "x", Date: "x",
		ResultFilename: o.ResultFilename, ResultDir: o.ResultDir})
	if err := probeDir(filepath.Dir(path)); err != nil {
		return err
	}
	if o.ResultFilename == "" || planned || o.AppendResult || o.Overwrite {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return &outputError{fmt.Sprintf("result file %s (--result-filename, output.result_filename) already exists and vbench does not overwrite results: pass --overwrite (output.overwrite: true) to replace it, --append-result to append to it, or choose another name", path)}
	}
	return nil
}

// checkPlanOutput is checkOutput for an experiment, called once before its
// first run: the result directory must be writable, and no run's result
// may exist already, unless replace is set (--resume: runs whose result
// is done are skipped, the others are run again and replace theirs; or
// --overwrite) or the run's output.overwrite is.
func checkPlanOutput(plan *Plan, replace bool) error {
	if err := probeDir(plan.Dir); err != nil {
		return err
	}
	if replace {
		return nil
	}
	for i := range plan.Runs {
		r := &plan.Runs[i]
		if r.Scenario.Output.Overwrite {
			continue
		}
		if _, err := os.Lstat(r.Path); err == nil {
			return &outputError{fmt.Sprintf("%s already exists (the result of an earlier run of this experiment?) and vbench does not overwrite results: pass --resume to continue that experiment, --overwrite (output.overwrite: true) to replace its results, or set output.result_dir to another directory", r.Path)}
		}
	}
	return nil
}

// probeDir creates dir if missing, then creates and removes a probe file in
// it. Its error names dir and wraps ErrOutput.
func probeDir(dir string) error {
	if dir == "" {
		dir = "."
	}
	fail := func(err error) error {
		return &outputError{fmt.Sprintf("results cannot be written to %s (--result-dir, output.result_dir): %v", dir, err)}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	f, err := os.CreateTemp(dir, ".vbench-probe-*")
	if err != nil {
		return fail(err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("probe\n"))
	cerr := f.Close()
	rerr := os.Remove(name)
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return fail(err)
	}
	return nil
}

// resultWrite says how writeResultFiles writes a result.
type resultWrite struct {
	// Path is the result's name (computed, or output.result_filename).
	Path string
	// Fresh means never replace a file: when Path (or its records file)
	// exists, the result goes to the first free Path-2, Path-3, … and
	// Stderr is told. It is set for computed names, and for an explicit
	// name without output.overwrite (checked before the run by
	// checkOutput, so only a file created during the run moves it).
	Fresh bool
	// Append appends the result to Path (--append-result).
	Append bool
	// Records are the per-request records to write next to the result
	// (nil: none).
	Records []*record.Record
	// Stderr receives the line saying a fresh name was chosen.
	Stderr io.Writer
}

// maxFreshNames bounds the suffixes tried before giving up.
const maxFreshNames = 1000

// writeResultFiles writes the records (when any) and then the result, which
// build makes given the records file's base name ("" without records), as
// spec says. It returns the paths written.
func writeResultFiles(spec resultWrite, build func(recordsName string) ([]byte, error)) (resultPath, recordsFile string, err error) {
	var jsonl []byte
	if spec.Records != nil {
		var b bytes.Buffer
		if err := record.WriteJSONL(&b, spec.Records); err != nil {
			return "", "", err
		}
		jsonl = b.Bytes()
	}
	if !spec.Fresh {
		return writeResultAt(spec.Path, spec.Records != nil, jsonl, spec.Append, build)
	}
	for k := 1; k <= maxFreshNames; k++ {
		path := report.NumberedPath(spec.Path, k)
		if exists(path) || (spec.Records != nil && exists(recordsPath(path))) {
			continue
		}
		rp, recs, err := writeNewResultAt(path, spec.Records != nil, jsonl, build)
		if errors.Is(err, fs.ErrExist) {
			continue // another writer took this name first
		}
		if err == nil && k > 1 {
			fmt.Fprintf(spec.Stderr, "%s already exists: vbench does not overwrite results, so this one is written to %s\n", spec.Path, path)
		}
		return rp, recs, err
	}
	return "", "", fmt.Errorf("writing the result: %s and the next %d numbered names all exist", spec.Path, maxFreshNames-1)
}

// writeResultAt writes the records and the result at path, replacing (or,
// with appendMode, appending to) what is there.
func writeResultAt(path string, withRecords bool, jsonl []byte, appendMode bool, build func(string) ([]byte, error)) (string, string, error) {
	recs := ""
	if withRecords {
		recs = recordsPath(path)
	}
	data, err := build(baseOrEmpty(recs))
	if err != nil {
		return "", "", err
	}
	// The records first: the result names them, so it must not exist
	// without them.
	if withRecords {
		if err := report.WriteResultFile(recs, jsonl, false); err != nil {
			return "", "", fmt.Errorf("writing the records: %w", err)
		}
	}
	if err := report.WriteResultFile(path, data, appendMode); err != nil {
		return "", recs, fmt.Errorf("writing the result: %w", err)
	}
	return path, recs, nil
}

// writeNewResultAt writes the records and the result at path, neither of
// which may exist: an error wrapping fs.ErrExist means one did, and nothing
// was left behind.
func writeNewResultAt(path string, withRecords bool, jsonl []byte, build func(string) ([]byte, error)) (string, string, error) {
	recs := ""
	if withRecords {
		recs = recordsPath(path)
	}
	data, err := build(baseOrEmpty(recs))
	if err != nil {
		return "", "", err
	}
	if withRecords {
		if err := report.WriteNewFile(recs, jsonl); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return "", "", err
			}
			return "", "", fmt.Errorf("writing the records: %w", err)
		}
	}
	if err := report.WriteNewFile(path, data); err != nil {
		if withRecords {
			os.Remove(recs) // written just above, for this result only
		}
		if errors.Is(err, fs.ErrExist) {
			return "", "", err
		}
		return "", "", fmt.Errorf("writing the result: %w", err)
	}
	return path, recs, nil
}

func baseOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Base(p)
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// writeNotSent prints, after vLLM's result block, how many of the planned
// requests an interrupted run never sent; nothing when every request was
// sent. vLLM's block counts only requests that ran ("Failed requests" are
// requests sent that failed), so these are reported apart.
func writeNotSent(w io.Writer, notSent, planned int) {
	if notSent <= 0 {
		return
	}
	fmt.Fprintf(w, "Requests not sent: %d of %d (the run was interrupted first; they are not counted as failed)\n", notSent, planned)
}
