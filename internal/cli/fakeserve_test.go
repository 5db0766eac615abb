package cli_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/tokenizer"
)

// fakeserve starts a server on loopback that misbehaves as real ones do,
// and sets $FAKE_URL. It tokenizes with o200k_base and answers streamed
// /v1/completions with max_tokens chunks of "a" (and usage):
//
//	fakeserve llamacpp      /tokenize and /detokenize in llama.cpp's dialect:
//	                        {"content"} → {"tokens"}; vLLM's {"prompt"} body
//	                        gets 200 and {"tokens": []}; {"tokens"} → {"content"}
//	fakeserve llamacpp-vocab N
//	                        llama.cpp's dialect over a vocabulary of N
//	                        tokens (N > 256): /tokenize gives each byte's
//	                        value, /detokenize turns ids below 256 into their
//	                        bytes and the others into words, and answers an
//	                        id >= N with HTTP 500, as llama.cpp does; its
//	                        /v1/models reports meta.n_vocab N
//	fakeserve llamacpp-novocab N
//	                        the same, with a /v1/models that does not say
//	fakeserve hang          accepts connections and never answers
//	fakeserve headers       answers completions with a 200 and SSE headers,
//	                        then nothing until the client goes away
//	fakeserve hangtokenize  /tokenize and /detokenize never answer
//	fakeserve auth KEY      every request needs Authorization: Bearer KEY
//	                        (else 401), /tokenize and /detokenize also a
//	                        User-Agent vbench/... (else 400)
//
// The server stops when the script ends.
func fakeserve(ts *testscript.TestScript, neg bool, args []string) {
	hasArg := args[0] == "auth" || args[0] == "llamacpp-vocab" || args[0] == "llamacpp-novocab"
	if neg || len(args) == 0 || hasArg != (len(args) == 2) || len(args) > 2 {
		ts.Fatalf("usage: fakeserve llamacpp|llamacpp-vocab N|llamacpp-novocab N|hang|headers|hangtokenize|auth KEY")
	}
	tok, err := tokenizer.Builtin("o200k_base")
	ts.Check(err)
	vllm := completions{tok}
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
				vllm.ServeHTTP(w, r)
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
	case "llamacpp-vocab", "llamacpp-novocab":
		n, err := strconv.Atoi(args[1])
		if err != nil || n <= 256 {
			ts.Fatalf("fakeserve %s: want a vocabulary size above 256, got %q", args[0], args[1])
		}
		h = llamaVocab(n, args[0] == "llamacpp-vocab", vllm)
	case "hang":
		h = hang
	case "headers":
		h = func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/completions") {
				vllm.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			hang(w, r)
		}
	case "hangtokenize":
		h = func(w http.ResponseWriter, r *http.Request) {
			if isTokenize(r) {
				hang(w, r)
				return
			}
			vllm.ServeHTTP(w, r)
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
			vllm.ServeHTTP(w, r)
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
	})
}

// completions answers as a vLLM server does: POST /tokenize
// ({"prompt"} → {"tokens"}), POST /detokenize ({"tokens"} → {"prompt"}),
// and POST /v1/completions streamed as max_tokens chunks of "a", then
// usage, then [DONE]; anything else is 404.
type completions struct{ tok tokenizer.Tokenizer }

func (c completions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && (r.URL.Path == "/tokenize" || r.URL.Path == "/detokenize") {
		var body struct {
			Prompt string `json:"prompt"`
			Tokens []int  `json:"tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/tokenize" {
			ids := c.tok.Encode(body.Prompt, false)
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids), "max_model_len": 131072})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"prompt": c.tok.Decode(body.Tokens)})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Prompt    string `json:"prompt"`
		MaxTokens int    `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	for i := range req.MaxTokens {
		finish := "null"
		if i == req.MaxTokens-1 {
			finish = `"length"`
		}
		fmt.Fprintf(w, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"vbench-sim\",\"choices\":[{\"index\":0,\"text\":\"a\",\"logprobs\":null,\"finish_reason\":%s}]}\n\n", finish)
		if f != nil {
			f.Flush()
		}
	}
	n := len(c.tok.Encode(req.Prompt, false))
	fmt.Fprintf(w, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"vbench-sim\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", n, req.MaxTokens, n+req.MaxTokens)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// llamaVocab is fakeserve llamacpp-vocab: llama.cpp's /tokenize,
// /detokenize and /v1/models (with meta.n_vocab when report is set) over a
// byte-level vocabulary of n tokens; completions go to vllm.
func llamaVocab(n int, report bool, vllm http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/models":
			if !report {
				fmt.Fprint(w, `{"object":"list","data":[{"id":"vbench-sim","object":"model","owned_by":"llamacpp"}]}`)
				return
			}
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"vbench-sim","object":"model","owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":%d,"n_ctx_train":2048}}]}`, n)
			return
		case "/tokenize", "/detokenize":
		default:
			vllm.ServeHTTP(w, r)
			return
		}
		var body struct {
			Content *string `json:"content"`
			Tokens  []int   `json:"tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/tokenize" {
			ids := []int{}
			if body.Content != nil {
				for _, b := range []byte(*body.Content) {
					ids = append(ids, int(b))
				}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
			return
		}
		var b strings.Builder
		for _, id := range body.Tokens {
			switch {
			case id < 0 || id >= n:
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, `{"error":{"code":500,"message":"invalid token id %d (n_vocab %d)","type":"server_error"}}`, id, n)
				return
			case id < 256:
				b.WriteByte(byte(id))
			default:
				fmt.Fprintf(&b, " w%d", id)
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"content": b.String()})
	}
}
