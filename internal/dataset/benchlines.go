package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// benchFormat is the line format of a benchmark suite's JSONL file whose
// lines each hold one prompt and a "category" (SpecBench, SPEED-Bench):
// vLLM reads both the same way, a prompt per line, optionally of one
// category only.
type benchFormat struct {
	// object describes a line, for errors: `an object with a "turns" list`.
	object string
	// categoryFlag is the flag of the category filter, for errors.
	categoryFlag string
	// prompt returns the prompt of a line (a JSON object), or an error
	// saying what is wrong with it.
	prompt func(obj map[string]json.RawMessage) (string, error)
}

// readBenchLines reads the JSON lines of r (the file name), each an object
// of format f; blank lines are skipped. With category not "", only the
// lines whose "category" is that string are kept, and only those need a
// prompt, as in vLLM. The kept lines come in file order, as CustomLines
// without output_tokens; objects is the number of lines read, kept or not.
// Its errors are one line naming the file, the line and what was expected;
// a category no line has is an error that lists the file's categories.
func readBenchLines(name string, r io.Reader, category string, f benchFormat) (lines []CustomLine, objects int, err error) {
	var categories []string
	err = eachLine(name, r, func(n int, b []byte) error {
		objects++
		var obj map[string]json.RawMessage
		if b[0] != '{' || json.Unmarshal(b, &obj) != nil {
			if !json.Valid(b) {
				return invalidJSON(b)
			}
			return fmt.Errorf("a JSON %s, expected %s", jsonKind(b), f.object)
		}
		if category != "" {
			var c string
			if raw, ok := obj["category"]; ok && json.Unmarshal(raw, &c) == nil && raw[0] == '"' {
				if !slices.Contains(categories, c) {
					categories = append(categories, c)
				}
			}
			if c != category {
				return nil
			}
		}
		prompt, err := f.prompt(obj)
		if err != nil {
			return err
		}
		lines = append(lines, CustomLine{Prompt: prompt, OutputTokens: -1, Line: n})
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	switch {
	case objects == 0:
		return nil, 0, fmt.Errorf("%s: the file is empty: expected JSON lines, each %s", name, f.object)
	case len(lines) == 0:
		if len(categories) == 0 {
			return nil, 0, fmt.Errorf("%s: no line has \"category\" %q (%s): no line has a \"category\" string", name, category, f.categoryFlag)
		}
		slices.Sort(categories)
		for i, c := range categories {
			if q := strconv.Quote(c); q[1:len(q)-1] != c {
				categories[i] = q // keep the error on one line
			}
		}
		return nil, 0, fmt.Errorf("%s: no line has \"category\" %q (%s): the file's categories are %s", name, category, f.categoryFlag, strings.Join(categories, ", "))
	}
	return lines, objects, nil
}

// eachLine calls f with the number (from 1) and the bytes, trimmed, of
// each line of r (the file name) that is not blank, until f fails: f's
// error, prefixed with the file and line, or the reader's, with the file.
func eachLine(name string, r io.Reader, f func(n int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := f(n, b); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// benchCounts is what a suite's category filter counted, for Env.Counts:
// the objects read, those outside the category, and the copies
// oversampling added to the kept lines to make reqs. Without a category
// nothing is filtered.
func benchCounts(category string, objects, kept int, reqs []Request) Counts {
	if category == "" {
		return Counts{}
	}
	return Counts{Filtered: true, Examined: objects, Dropped: objects - kept, Oversampled: len(reqs) - min(kept, len(reqs))}
}
