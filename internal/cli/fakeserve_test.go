package cli_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// fakeserve starts a server on loopback that misbehaves as real ones do,
// in front of an in-process simulator (o200k_base), and sets $FAKE_URL:
//
//	fakeserve llamacpp      /tokenize and /detokenize in llama.cpp's dialect:
//	                        {"content"} → {"tokens"}; vLLM's {"prompt"} body
//	                        gets 200 and {"tokens": []}; {"tokens"} → {"content"}
//	fakeserve hang          accepts connections and never answers
//	fakeserve hangtokenize  /tokenize and /detokenize never answer
//	fakeserve auth KEY      every request needs Authorization: Bearer KEY
//	                        (else 401), /tokenize and /detokenize also a
//	                        User-Agent vbench/... (else 400)
//
// Everything else goes to the simulator. The server stops when the script
// ends.
func fakeserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 || (args[0] == "auth") != (len(args) == 2) || len(args) > 2 {
		ts.Fatalf("usage: fakeserve llamacpp|hang|hangtokenize|auth KEY")
	}
	tok, err := tokenizer.Builtin("o200k_base")
	ts.Check(err)
	cfg := sim.DefaultConfig()
	cfg.Tokenizer = experiment.SimTokenizer(tok)
	simSrv, err := sim.Start(cfg, "127.0.0.1:0")
	ts.Check(err)
	target, err := url.Parse(simSrv.URL())
	ts.Check(err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	done := make(chan struct{})
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}
	isTokenize := func(r *http.Request) bool { return r.URL.Path == "/tokenize" || r.URL.Path == "/detokenize" }
	var h http.HandlerFunc
	switch args[0] {
	case "llamacpp":
		h = func(w http.ResponseWriter, r *http.Request) {
			if !isTokenize(r) {
				proxy.ServeHTTP(w, r)
				return
			}
			var body struct {
				Content string `json:"content"`
				Tokens  []int  `json:"tokens"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == "/tokenize" {
				_ = json.NewEncoder(w).Encode(map[string]any{"tokens": tok.Encode(body.Content, false)})
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"content": tok.Decode(body.Tokens)})
		}
	case "hang":
		h = hang
	case "hangtokenize":
		h = func(w http.ResponseWriter, r *http.Request) {
			if isTokenize(r) {
				hang(w, r)
				return
			}
			proxy.ServeHTTP(w, r)
		}
	case "auth":
		key := args[1]
		h = func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+key {
				http.Error(w, `{"error": "invalid api key"}`, http.StatusUnauthorized)
				return
			}
			if isTokenize(r) && !strings.HasPrefix(r.Header.Get("User-Agent"), "vbench/") {
				http.Error(w, `{"error": "unknown client"}`, http.StatusBadRequest)
				return
			}
			proxy.ServeHTTP(w, r)
		}
	default:
		ts.Fatalf("fakeserve: unknown mode %q", args[0])
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	ts.Setenv("FAKE_URL", "http://"+ln.Addr().String())
	ts.Defer(func() {
		close(done)
		_ = srv.Close()
		_ = simSrv.Close()
	})
}
