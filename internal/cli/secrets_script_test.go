package cli_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["echoproxy"] = echoproxy }

// echoproxy N starts a loopback proxy in front of $SIM_URL that answers as
// a careless gateway does: every Nth generation request (a POST whose path
// ends in "completions", counted from 1, so N 1 fails them all) and every
// GET /v1/models get a 401 whose body repeats the request's headers, values
// and all; everything else is forwarded. It sets $ECHO_URL. The
// testscripts secrets_*.txtar use it to check that vbench shows no secret
// a server echoes.
func echoproxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: echoproxy N")
	}
	every, err := strconv.Atoi(args[0])
	if err != nil || every < 1 {
		ts.Fatalf("echoproxy: N must be a positive integer, got %q", args[0])
	}
	var mu sync.Mutex
	generations := 0
	startProxyAnswering(ts, "ECHO_URL", func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		echo := r.Method == http.MethodGet && r.URL.Path == "/v1/models"
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "completions") {
			mu.Lock()
			generations++
			echo = generations%every == 0
			mu.Unlock()
		}
		if !echo {
			return false
		}
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(r.Header)) {
			fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(r.Header[k], ", "))
		}
		http.Error(w, "unauthorized request with headers "+b.String(), http.StatusUnauthorized)
		return true
	})
}
