package cli_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/record"
)

func init() {
	scriptCmds["convproxy"] = convproxy
	scriptCmds["checkturns"] = checkturns
}

// convRequest is one chat request as convproxy logs it.
type convRequest struct {
	ID       string   `json:"id"`
	Session  string   `json:"session"`
	Roles    []string `json:"roles"`
	Messages []string `json:"messages"`
}

// convproxy LOG starts a loopback forwarding proxy in front of $SIM_URL,
// sets $CONV_URL to it, and appends to LOG one JSON line per chat request:
// its X-Request-Id, its X-Session-Id, and its messages' roles and texts.
func convproxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: convproxy LOG")
	}
	logLine := openJSONLog(ts, args[0])
	startProxy(ts, "CONV_URL", func(r *http.Request, body []byte) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			return
		}
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		c := convRequest{ID: r.Header.Get("X-Request-Id"), Session: r.Header.Get("X-Session-Id")}
		if err := json.Unmarshal(body, &req); err != nil {
			c.Messages = []string{"unreadable request: " + err.Error()}
		}
		for _, m := range req.Messages {
			c.Roles = append(c.Roles, m.Role)
			c.Messages = append(c.Messages, messageText(m.Content))
		}
		logLine(c)
	})
}

// checkturns [-ttft-falls] RECORDS LOG THINK_MS TURNS checks a
// conversations run from its records file and convproxy's LOG: every
// conversation has TURNS turns ("-": any number), in order; no turn
// started before its predecessor's last token plus the think time; each
// turn's request carried the conversation's history, ending with the
// previous turn's answer as received, and the conversation's id as its
// session header (when the run sends one); with -ttft-falls, the mean
// TTFT of the later turns is below the first turn's (the simulator's
// prefix cache holds their history); with -max-active=N, no more than N
// conversations were under way at once.
func checkturns(ts *testscript.TestScript, neg bool, args []string) {
	falls, maxActive := false, 0
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		switch {
		case args[0] == "-ttft-falls":
			falls = true
		case strings.HasPrefix(args[0], "-max-active="):
			n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-max-active="))
			ts.Check(err)
			maxActive = n
		default:
			ts.Fatalf("checkturns: unknown flag %s", args[0])
		}
		args = args[1:]
	}
	if neg || len(args) != 4 {
		ts.Fatalf("usage: checkturns [-ttft-falls] [-max-active=N] RECORDS LOG THINK_MS TURNS|-")
	}
	f, err := record.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	think, err := strconv.Atoi(args[2])
	ts.Check(err)
	turns := -1
	if args[3] != "-" {
		turns, err = strconv.Atoi(args[3])
		ts.Check(err)
	}
	logged := map[string]convRequest{}
	lf, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer lf.Close()
	sc := bufio.NewScanner(lf)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c convRequest
		ts.Check(json.Unmarshal(sc.Bytes(), &c))
		logged[c.ID] = c
	}
	ts.Check(sc.Err())
	convs := map[string][]*record.Record{}
	for _, r := range f.Records {
		if !r.Success {
			ts.Fatalf("request %s failed: %s", r.RequestID, r.Error)
		}
		convs[r.Conversation] = append(convs[r.Conversation], r)
	}
	var first, later []float64
	for id, rs := range convs {
		slices.SortFunc(rs, func(a, b *record.Record) int { return a.Turn - b.Turn })
		if turns >= 0 && len(rs) != turns {
			ts.Fatalf("conversation %q has %d turns, want %d", id, len(rs), turns)
		}
		for t, r := range rs {
			req, ok := logged[r.RequestID]
			switch {
			case r.Turn != t:
				ts.Fatalf("conversation %q: turn %d missing", id, t)
			case !ok:
				ts.Fatalf("request %s of conversation %q was not seen by the proxy", r.RequestID, id)
			case req.Session != "" && req.Session != id:
				ts.Fatalf("request %s: session header %q, want %q", r.RequestID, req.Session, id)
			}
			if t == 0 {
				first = append(first, r.TTFT())
				continue
			}
			later = append(later, r.TTFT())
			prev := rs[t-1]
			if due := prev.End + time.Duration(think)*time.Millisecond; r.Start < due {
				ts.Fatalf("conversation %q turn %d started at %v, before its predecessor's end %v plus %d ms", id, t, r.Start, prev.End, think)
			}
			n := len(req.Messages)
			if n < 3 || req.Roles[n-2] != "assistant" || req.Messages[n-2] != prev.GeneratedText || req.Roles[n-1] != "user" {
				ts.Fatalf("request %s (turn %d) does not carry the previous answer %.60q before its user message: roles %v", r.RequestID, t, prev.GeneratedText, req.Roles)
			}
			if before := logged[prev.RequestID]; !slices.Equal(req.Messages[:len(before.Messages)], before.Messages) {
				ts.Fatalf("request %s (turn %d) does not start with turn %d's messages", r.RequestID, t, t-1)
			}
		}
	}
	if maxActive > 0 {
		// At no time were more conversations under way (from their
		// first turn's start to their last turn's end) than the cap.
		type edge struct {
			at    time.Duration
			delta int
		}
		var edges []edge
		for _, rs := range convs {
			edges = append(edges, edge{rs[0].Start, 1}, edge{rs[len(rs)-1].End, -1})
		}
		slices.SortFunc(edges, func(a, b edge) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return a.delta - b.delta // an end before a start at the same time
		})
		active := 0
		for _, e := range edges {
			if active += e.delta; active > maxActive {
				ts.Fatalf("%d conversations under way at %v, over the cap of %d", active, e.at, maxActive)
			}
		}
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	if falls && len(later) > 0 && mean(later) >= mean(first) {
		ts.Fatalf("mean TTFT of the later turns %.2f ms, of the first %.2f ms: want it lower", 1000*mean(later), 1000*mean(first))
	}
	ts.Logf("%d conversations (turns %s); mean TTFT first turn %.2f ms, later turns %.2f ms", len(convs), args[3], 1000*mean(first), 1000*mean(later))
}
