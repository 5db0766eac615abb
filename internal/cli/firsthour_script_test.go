package cli_test

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["mistakes"] = mistakes }

// mistakes TABLE runs vbench once per row of the script's file TABLE and
// checks how it refuses: each row is
//
//	EXIT <TAB> STDERR-REGEXP <TAB> ARGS...
//
// with ARGS split at spaces after $VAR expansion. vbench must exit with
// EXIT and write one line to stderr, or two when the second is a
// "hint: ", matching STDERR-REGEXP; stdout must be empty, as
// nothing was run. Blank lines and lines starting with # are skipped. It
// prints "N mistakes answered".
func mistakes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mistakes TABLE")
	}
	n := 0
	for i, row := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if strings.TrimSpace(row) == "" || strings.HasPrefix(row, "#") {
			continue
		}
		cols := strings.Split(row, "\t")
		if len(cols) != 3 {
			ts.Fatalf("%s:%d: want EXIT, STDERR-REGEXP and ARGS separated by tabs", args[0], i+1)
		}
		want, err := strconv.Atoi(cols[0])
		ts.Check(err)
		re, err := regexp.Compile(cols[1])
		ts.Check(err)
		argv := strings.Fields(os.Expand(cols[2], ts.Getenv))
		err = ts.Exec("vbench", argv...)
		code := 0
		if err != nil {
			if _, scanErr := fmt.Sscanf(err.Error(), "exit status %d", &code); scanErr != nil {
				ts.Fatalf("%s:%d: vbench %s: %v", args[0], i+1, cols[2], err)
			}
		}
		stderr := strings.TrimRight(ts.ReadFile("stderr"), "\n")
		lines := strings.Split(stderr, "\n")
		where := fmt.Sprintf("%s:%d: vbench %s", args[0], i+1, strings.Join(argv, " "))
		switch {
		case code != want:
			ts.Fatalf("%s: exit %d, want %d; stderr:\n%s", where, code, want, stderr)
		case len(lines) > 2 || len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: "):
			ts.Fatalf("%s: %d lines on stderr, want one (and a hint):\n%s", where, len(lines), stderr)
		case !re.MatchString(stderr):
			ts.Fatalf("%s: stderr %q does not match %q", where, stderr, cols[1])
		case ts.ReadFile("stdout") != "":
			ts.Fatalf("%s: stdout is not empty:\n%s", where, ts.ReadFile("stdout"))
		}
		n++
	}
	fmt.Fprintf(ts.Stdout(), "%d mistakes answered\n", n)
}
