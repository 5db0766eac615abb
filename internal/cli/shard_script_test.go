package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The sharded-run script commands (freeport, of server_script_test.go,
// gives shard 0's clock a port): a start instant ahead, and the comparison of a merged result with a
// single client's.
func init() {
	scriptCmds["startat"] = startat
	scriptCmds["cmpresult"] = cmpresult
}

// startat VAR DURATION sets VAR to the RFC 3339 instant DURATION from now.
func startat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: startat VAR DURATION")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	ts.Setenv(args[0], time.Now().Add(d).UTC().Format(time.RFC3339Nano))
}

// cmpresult A B TOL checks that result JSONs A and B hold the same
// completed and failed counts and token totals, and request and output
// throughputs within the relative tolerance TOL.
func cmpresult(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: cmpresult A.json B.json TOL")
	}
	tol, err := strconv.ParseFloat(args[2], 64)
	ts.Check(err)
	read := func(name string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(ts.ReadFile(name)), &m); err != nil {
			ts.Fatalf("%s: %v", name, err)
		}
		return m
	}
	a, b := read(args[0]), read(args[1])
	for _, k := range []string{"completed", "failed", "total_input_tokens", "total_output_tokens", "num_prompts"} {
		if fmt.Sprint(a[k]) != fmt.Sprint(b[k]) {
			ts.Fatalf("%s: %v in %s, %v in %s", k, a[k], args[0], b[k], args[1])
		}
	}
	for _, k := range []string{"request_throughput", "output_throughput"} {
		x, ok1 := a[k].(float64)
		y, ok2 := b[k].(float64)
		if !ok1 || !ok2 || y == 0 || math.Abs(x-y)/y > tol {
			ts.Fatalf("%s: %v in %s, %v in %s: not within %g", k, a[k], args[0], b[k], args[1], tol)
		}
		ts.Logf("%s: %.3f vs %.3f", k, x, y)
	}
}
