package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["captureproxy"] = captureproxy
	scriptCmds["checkprompts"] = checkprompts
}

// capturedPrompt is one generation request's prompt as captureproxy logs it.
type capturedPrompt struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
}

// captureproxy LOG starts a loopback forwarding proxy in front of $SIM_URL,
// sets $CAPTURE_URL to it, and appends to LOG one JSON line per generation
// request: its X-Request-Id and the prompt it carried, as sent (a
// completions request's "prompt", a chat request's last message's text).
func captureproxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: captureproxy LOG")
	}
	logLine := openJSONLog(ts, args[0])
	startProxy(ts, "CAPTURE_URL", func(r *http.Request, body []byte) {
		if !strings.HasSuffix(r.URL.Path, "/completions") {
			return
		}
		var req struct {
			Prompt   *string `json:"prompt"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		c := capturedPrompt{ID: r.Header.Get("X-Request-Id")}
		if err := json.Unmarshal(body, &req); err != nil {
			c.Prompt = "unreadable request: " + err.Error()
		} else if req.Prompt != nil {
			c.Prompt = *req.Prompt
		} else if n := len(req.Messages); n > 0 {
			c.Prompt = messageText(req.Messages[n-1].Content)
		}
		logLine(c)
	})
}

// openJSONLog opens (or creates) the file name for appending, closed when
// the script ends, and returns a function that appends v to it as one
// JSON line; it is safe for concurrent use.
func openJSONLog(ts *testscript.TestScript, name string) func(v any) {
	log, err := os.OpenFile(ts.MkAbs(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	ts.Defer(func() { _ = log.Close() })
	var mu sync.Mutex
	return func(v any) {
		line, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		_, _ = log.Write(append(line, '\n'))
	}
}

// messageText is a chat message's text: its content string, or the text
// parts of its content list, concatenated.
func messageText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &parts); err != nil {
		return "unreadable content: " + err.Error()
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// checkprompts EXPORT LOG PREFIX checks that the prompts a run sent (LOG,
// from captureproxy; the requests whose X-Request-Id is PREFIX + index)
// equal, byte for byte and in order, those `vbench dataset --export` wrote
// to EXPORT. It prints "N prompts equal"; negated, it checks that they
// differ and prints the first difference.
func checkprompts(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: [!] checkprompts EXPORT LOG PREFIX")
	}
	var exported []string
	eachJSONLine(ts, args[0], func(line []byte) {
		var l struct {
			Prompt string `json:"prompt"`
		}
		ts.Check(json.Unmarshal(line, &l))
		exported = append(exported, l.Prompt)
	})
	sent := map[int]string{}
	eachJSONLine(ts, args[1], func(line []byte) {
		var c capturedPrompt
		ts.Check(json.Unmarshal(line, &c))
		rest, ok := strings.CutPrefix(c.ID, args[2])
		if !ok {
			return // the ready check and warmups carry no id
		}
		i, err := strconv.Atoi(rest)
		ts.Check(err)
		if _, dup := sent[i]; dup {
			ts.Fatalf("request %d was sent twice", i)
		}
		sent[i] = c.Prompt
	})
	diff := ""
	if len(sent) != len(exported) {
		diff = fmt.Sprintf("the run sent %d requests, the export has %d", len(sent), len(exported))
	}
	for i, want := range exported {
		if diff != "" {
			break
		}
		if got, ok := sent[i]; !ok {
			diff = fmt.Sprintf("request %d was not sent", i)
		} else if got != want {
			diff = fmt.Sprintf("request %d: the run sent %q, the export has %q", i, clip(got), clip(want))
		}
	}
	switch {
	case neg && diff == "":
		ts.Fatalf("all %d prompts are equal", len(exported))
	case neg:
		fmt.Fprintln(ts.Stdout(), diff)
	case diff != "":
		ts.Fatalf("%s", diff)
	default:
		fmt.Fprintf(ts.Stdout(), "%d prompts equal\n", len(exported))
	}
}

// eachJSONLine calls fn with each non-empty line of the script's file.
func eachJSONLine(ts *testscript.TestScript, name string, fn func(line []byte)) {
	f, err := os.Open(ts.MkAbs(name))
	ts.Check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			fn(sc.Bytes())
		}
	}
	ts.Check(sc.Err())
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
