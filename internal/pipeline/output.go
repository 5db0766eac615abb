package pipeline

import (
	"errors"
	"fmt"
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
// once): when the scenario saves a result or its timeline (which goes
// next to it), it creates the result directory
// and writes and removes a probe file there, so that a directory under a
// regular file, a read-only one or one in /proc is refused before the run
// rather than after it. An explicit output.result_filename that exists is
// refused too, unless output.overwrite or output.append_result is set;
// planned says the name was chosen by an experiment's plan, which checks
// its files itself (checkPlanOutput), so that --resume may replace an
// unfinished run's result.
func checkOutput(sc *scenario.Scenario, planned bool) error {
	o := sc.Output
	if !o.SaveResult && !o.AppendResult && !o.PlotTimeline {
		return nil
	}
	// The directory does not depend on the computed name's parts.
	path := report.ResultFileName(report.FileNameInput{Backend: "x", ModelID: "x", Date: "x",
		ResultFilename: o.ResultFilename, ResultDir: o.ResultDir})
	if err := ProbeDir(filepath.Dir(path)); err != nil {
		return err
	}
	if !o.SaveResult || o.ResultFilename == "" || planned || o.AppendResult || o.Overwrite {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return &outputError{fmt.Sprintf("result file %s (--result-filename, output.result_filename) already exists and vbench does not overwrite results: pass --overwrite (output.overwrite: true) to replace it, --append-result to append to it, or choose another name", path)}
	}
	return nil
}

// ProbeDir creates dir if missing, then creates and removes a probe file in
// it, so that a directory that cannot hold results fails before a run
// rather than after it. Its error names dir and wraps ErrOutput.
func ProbeDir(dir string) error {
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

// OutputErrorf returns an error of the output checks made before a run:
// its message is the formatted text alone, and it matches ErrOutput.
func OutputErrorf(format string, args ...any) error {
	return &outputError{fmt.Sprintf(format, args...)}
}

// maxFreshNames bounds the numbered names tried before giving up.
const maxFreshNames = 1000

// claimFiles settles the run's output names before the run and opens its
// records file, into which the records stream as they complete. With
// fresh (a computed name, or an explicit one without output.overwrite
// outside an experiment) no file is ever replaced: when the result or its
// records file exists, the first free name of result-2, result-3, … is
// taken instead and say is told; the records file is created exclusively,
// so two runs racing for a name cannot both take it. Without fresh the
// records file is replaced (output.overwrite, or an experiment's planned
// name, which checkPlanOutput vetted). The returned sink is nil when no
// records are written.
func claimFiles(sc *scenario.Scenario, f runFiles, fresh bool, say func(string)) (runFiles, *record.FileSink, error) {
	if f.result == "" {
		return f, nil, nil
	}
	withRecords := f.records != ""
	if !fresh {
		if !withRecords {
			return f, nil, nil
		}
		if !sc.Output.AppendResult {
			sink, err := createRecords(sc, f.records, record.CreateFile)
			return f, sink, err
		}
		// Appended results each name their own records file: the first
		// free one of x.records.jsonl, x-2.records.jsonl, …, so that the
		// earlier runs' records are kept.
		for k := 1; k <= maxFreshNames; k++ {
			path := recordsPath(report.NumberedPath(f.result, k))
			sink, err := createRecords(sc, path, record.CreateNewFile)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err == nil {
				f.records = path
			}
			return f, sink, err
		}
		return f, nil, fmt.Errorf("writing the records: %s and the next %d numbered names all exist", f.records, maxFreshNames-1)
	}
	first := f.result
	for k := 1; k <= maxFreshNames; k++ {
		path := report.NumberedPath(first, k)
		if exists(path) || (withRecords && exists(recordsPath(path))) {
			continue
		}
		var sink *record.FileSink
		if withRecords {
			var err error
			sink, err = createRecords(sc, recordsPath(path), record.CreateNewFile)
			if errors.Is(err, fs.ErrExist) {
				continue // another writer took this name first
			}
			if err != nil {
				return f, nil, err
			}
			f.records = recordsPath(path)
		}
		if k > 1 {
			say(fmt.Sprintf("%s already exists: vbench does not overwrite results, so this one is written to %s", first, path))
		}
		f.result = path
		return f, sink, nil
	}
	return f, nil, fmt.Errorf("writing the result: %s and the next %d numbered names all exist", first, maxFreshNames-1)
}

// writeResult writes a run's result JSON at f.result: appended with
// output.append_result, replacing the file without fresh, and otherwise
// as a new file: when one appeared there during the run, the result goes
// to the next free numbered name (its records file keeps its name, which
// the result names) and say is told. It returns the path written.
func writeResult(f runFiles, data []byte, fresh, appendMode bool, say func(string)) (string, error) {
	if !fresh {
		if err := report.WriteResultFile(f.result, data, appendMode); err != nil {
			return "", fmt.Errorf("writing the result: %w", err)
		}
		return f.result, nil
	}
	for k := 1; k <= maxFreshNames; k++ {
		path := report.NumberedPath(f.result, k)
		err := report.WriteNewFile(path, data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("writing the result: %w", err)
		}
		if k > 1 {
			say(fmt.Sprintf("%s was created during the run: vbench does not overwrite results, so this one is written to %s", f.result, path))
		}
		return path, nil
	}
	return "", fmt.Errorf("writing the result: %s and the next %d numbered names all exist", f.result, maxFreshNames-1)
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// notSentText is the line printed after vLLM's result block saying how
// many of the planned requests an interrupted run never sent ("" when every
// request was sent). vLLM's block counts only requests that ran ("Failed
// requests" are requests sent that failed), so these are reported apart.
func notSentText(notSent, planned int) string {
	if notSent <= 0 {
		return ""
	}
	return fmt.Sprintf("Requests not sent: %d of %d (the run was interrupted first; they are not counted as failed)\n", notSent, planned)
}

// endedTurnsText is the line on the turns of ended conversations that were
// not sent (see dataset.ConversationsSpec), "" when there are none.
func endedTurnsText(skipped, planned int) string {
	if skipped <= 0 {
		return ""
	}
	return fmt.Sprintf("Requests not sent: %d of %d (turns of conversations that ended when a turn failed; they are not counted as failed)\n", skipped, planned)
}
