package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultServerTimeout bounds one call of a ServerAPI when
// ServerOptions.Timeout is 0.
const DefaultServerTimeout = 30 * time.Second

// Errors of ServerAPI calls, for callers to tell apart (wrapped).
var (
	// ErrServerAuth: the server answered 401 or 403, so it wants (other)
	// credentials.
	ErrServerAuth = errors.New("authentication failed")
	// ErrServerTimeout: the server did not answer within the call's
	// timeout.
	ErrServerTimeout = errors.New("no answer")
	// ErrCannotTokenize: the server's /tokenize answered with no tokens
	// for a non-empty text in both dialects (vLLM's and llama.cpp's).
	ErrCannotTokenize = errors.New("the server cannot tokenize")
)

// ServerOptions configure a ServerAPI.
type ServerOptions struct {
	// Model is sent with /tokenize and /detokenize requests.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>" on every
	// call.
	APIKey string
	// Headers are sent on every call, after User-Agent and Authorization
	// (so they can override them).
	Headers map[string]string
	// Insecure skips TLS verification; CAFile, if not empty, names a PEM
	// file of extra CA certificates, as for the timed path's Config.
	Insecure bool
	CAFile   string
	// Timeout bounds each call, from connecting to reading the whole
	// answer; 0 means DefaultServerTimeout.
	Timeout time.Duration
}

// ServerAPI calls a vLLM-style server's auxiliary endpoints: /v1/models,
// /tokenize and /detokenize. It is not used on the timed path.
//
// Every call carries User-Agent vbench/<version>, the API key and the
// headers of its options, as the timed requests do. (vLLM's /tokenize
// calls carry none of these; a server behind an authenticating gateway
// would refuse them.) They go to the server's origin only: a redirect
// elsewhere is not followed, and its answer is an error.
//
// /tokenize speaks vLLM's dialect ({"model", "prompt",
// "add_special_tokens": false}) and llama.cpp's ({"content",
// "add_special": false}, which answers vLLM's body with an empty token
// list): the first call that gets no tokens for a non-empty text retries
// in llama.cpp's dialect, and the dialect that answered is kept for later
// calls. /detokenize reads either answer ("prompt" or "content").
type ServerAPI struct {
	base    string
	model   string
	header  http.Header
	timeout time.Duration
	http    *http.Client
	dialect *atomic.Int32     // a tokenizeDialect, shared by the WithModel copies
	redact  *strings.Replacer // the secrets to keep out of error texts (nil: none); see secrets.go
}

// tokenizeDialect is the body a server's /tokenize understands.
type tokenizeDialect int32

const (
	dialectUnknown  tokenizeDialect = iota
	dialectVLLM                     // {"model", "prompt", "add_special_tokens"}
	dialectLlamaCpp                 // {"content", "add_special"}
)

// NewServerAPI returns a ServerAPI for the server at base with model and
// headers (see ServerOptions), no API key and the default timeout. It
// fails only when caFile cannot be used.
func NewServerAPI(base, model string, headers map[string]string, insecure bool, caFile string) (*ServerAPI, error) {
	return NewServerAPIWith(base, ServerOptions{Model: model, Headers: headers, Insecure: insecure, CAFile: caFile})
}

// NewServerAPIWith returns a ServerAPI for the server at base (a trailing
// slash is dropped). It fails only when o.CAFile cannot be used.
func NewServerAPIWith(base string, o ServerOptions) (*ServerAPI, error) {
	tr, err := transport(Config{Insecure: o.Insecure, CAFile: o.CAFile}, nil)
	if err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultServerTimeout
	}
	h := requestHeader(http.Header{}, o.APIKey, o.Headers)
	return &ServerAPI{base: strings.TrimSuffix(base, "/"), model: o.Model, header: h, timeout: o.Timeout,
		http:    &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: sameOriginRedirect},
		dialect: new(atomic.Int32), redact: newRedactor(o.APIKey, o.Headers)}, nil
}

// CloseIdleConnections closes the client's idle keep-alive connections,
// so that they do not stay open through a run beside the benchmark's own;
// later calls dial again.
func (s *ServerAPI) CloseIdleConnections() { s.http.CloseIdleConnections() }

// Base returns the server's base URL for messages: its password, if
// any, redacted.
func (s *ServerAPI) Base() string { return displayURL(s.base) }

// displayURL is u for messages: with its password, if any, redacted.
func displayURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Redacted()
}

// Timeout returns the bound of one call.
func (s *ServerAPI) Timeout() time.Duration { return s.timeout }

// Dialect names the /tokenize dialect in use: "vLLM", "llama.cpp", or ""
// before the first call that told.
func (s *ServerAPI) Dialect() string {
	switch tokenizeDialect(s.dialect.Load()) {
	case dialectVLLM:
		return "vLLM"
	case dialectLlamaCpp:
		return "llama.cpp"
	}
	return ""
}

// WithModel returns a ServerAPI for the same server that sends model with
// /tokenize requests; it shares s's HTTP client, and so its connections,
// and the /tokenize dialect any of them found.
func (s *ServerAPI) WithModel(model string) *ServerAPI {
	return &ServerAPI{base: s.base, model: model, header: s.header, timeout: s.timeout, http: s.http, dialect: s.dialect, redact: s.redact}
}

// Models returns the first model's id (the payload name) and root (the
// model id used for the tokenizer and the result), as vLLM does when no
// model is given.
func (s *ServerAPI) Models(ctx context.Context) (id, root string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/v1/models", nil)
	if err != nil {
		return "", "", err
	}
	var out struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	if err := s.do(req, &out); err != nil {
		return "", "", fmt.Errorf("fetching the model list: %w", err)
	}
	if len(out.Data) == 0 {
		return "", "", fmt.Errorf("fetching the model list: %s/v1/models lists no models", s.Base())
	}
	root = out.Data[0].Root
	if root == "" {
		root = out.Data[0].ID
	}
	return out.Data[0].ID, root, nil
}

// VocabSize returns the vocabulary size the server reports: llama.cpp's
// server lists it as meta.n_vocab in its /v1/models entries (the entry of
// the model sent with /tokenize, else the first); 0 when the server
// reports none (vLLM's does not).
func (s *ServerAPI) VocabSize(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/v1/models", nil)
	if err != nil {
		return 0, err
	}
	var out struct {
		Data []struct {
			ID   string `json:"id"`
			Meta struct {
				NVocab int `json:"n_vocab"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := s.do(req, &out); err != nil {
		return 0, fmt.Errorf("fetching the model list: %w", err)
	}
	n := 0
	for i, m := range out.Data {
		if m.ID == s.model {
			return max(m.Meta.NVocab, 0), nil
		}
		if i == 0 {
			n = m.Meta.NVocab
		}
	}
	return max(n, 0), nil
}

// Profile posts to the server's profiler endpoint path ("/start_profile"
// or "/stop_profile") with no body, as vLLM's --profile does: nil when the
// server answers 200, else an error naming the call and the answer (vLLM
// serves these routes only with a profiler configured).
func (s *ServerAPI) Profile(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, nil)
	if err != nil {
		return err
	}
	// A profiler flushes its trace before /stop_profile answers, which can
	// take far longer than the bound of a tokenizer call: only ctx bounds
	// these calls (vLLM's client gives them hours).
	long := *s
	long.http = &http.Client{Transport: s.http.Transport, CheckRedirect: sameOriginRedirect}
	return long.do(req, nil)
}

// Tokenize returns the server's token ids for prompt, without special
// tokens. A non-empty prompt that gets no tokens in either dialect is an
// error wrapping ErrCannotTokenize.
func (s *ServerAPI) Tokenize(ctx context.Context, prompt string) ([]int, error) {
	d := tokenizeDialect(s.dialect.Load())
	if d == dialectUnknown || d == dialectVLLM {
		ids, err := s.tokenize(ctx, dialectVLLM, prompt)
		if err != nil || len(ids) > 0 || prompt == "" {
			return ids, err
		}
		if d == dialectVLLM {
			return nil, fmt.Errorf("POST /tokenize: %w: no tokens for a text of %d bytes", ErrCannotTokenize, len(prompt))
		}
	}
	ids, err := s.tokenize(ctx, dialectLlamaCpp, prompt)
	if err != nil {
		if d == dialectUnknown {
			return nil, fmt.Errorf("POST /tokenize: %w: no tokens for a text of %d bytes with vLLM's body {\"prompt\"}, and llama.cpp's body {\"content\"} failed: %w",
				ErrCannotTokenize, len(prompt), err)
		}
		return nil, err
	}
	if len(ids) == 0 && prompt != "" {
		return nil, fmt.Errorf("POST /tokenize: %w: no tokens for a text of %d bytes, with vLLM's body {\"prompt\"} or llama.cpp's {\"content\"}",
			ErrCannotTokenize, len(prompt))
	}
	return ids, nil
}

// tokenize calls /tokenize in dialect d, and remembers d when it gave
// tokens for a non-empty text.
func (s *ServerAPI) tokenize(ctx context.Context, d tokenizeDialect, prompt string) ([]int, error) {
	var body any
	if d == dialectLlamaCpp {
		body = struct {
			Content    string `json:"content"`
			AddSpecial bool   `json:"add_special"`
		}{prompt, false}
	} else {
		body = struct {
			Model            string `json:"model"`
			Prompt           string `json:"prompt"`
			AddSpecialTokens bool   `json:"add_special_tokens"`
		}{s.model, prompt, false}
	}
	var out struct {
		Tokens []int `json:"tokens"`
	}
	if err := s.post(ctx, "/tokenize", body, &out); err != nil {
		return nil, err
	}
	if len(out.Tokens) > 0 {
		s.dialect.CompareAndSwap(int32(dialectUnknown), int32(d))
	}
	return out.Tokens, nil
}

// Detokenize returns the server's text for ids: the "prompt" of vLLM's
// answer or the "content" of llama.cpp's.
func (s *ServerAPI) Detokenize(ctx context.Context, ids []int) (string, error) {
	var out struct {
		Prompt  *string `json:"prompt"`
		Content *string `json:"content"`
	}
	body := struct {
		Model  string `json:"model"`
		Tokens []int  `json:"tokens"`
	}{s.model, ids}
	if body.Tokens == nil {
		body.Tokens = []int{}
	}
	if err := s.post(ctx, "/detokenize", body, &out); err != nil {
		return "", err
	}
	switch {
	case out.Prompt != nil:
		return *out.Prompt, nil
	case out.Content != nil:
		return *out.Content, nil
	}
	return "", errors.New(`POST /detokenize: the answer has neither "prompt" (vLLM) nor "content" (llama.cpp)`)
}

func (s *ServerAPI) post(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return s.do(req, out)
}

// do sends req with the client's headers and decodes a 200 answer's JSON
// body into out (nil: the body is read and dropped). Redirects are
// followed within the server's origin only; the API key and header values
// never appear in its errors (see secrets.go).
func (s *ServerAPI) do(req *http.Request, out any) error {
	return redactError(s.redact, s.exchange(req, out))
}

// exchange is do but for the redaction of its errors.
func (s *ServerAPI) exchange(req *http.Request, out any) error {
	for k, v := range s.header {
		req.Header[k] = v
	}
	resp, err := s.http.Do(req)
	if err != nil {
		if req.Context().Err() == nil && isTimeout(err) {
			return fmt.Errorf("%s %s: %w within %s (the server accepted the connection but did not answer)",
				req.Method, req.URL.Path, ErrServerTimeout, s.timeout)
		}
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%s %s: %w (HTTP %d %s): set OPENAI_API_KEY (sent as Authorization: Bearer) or the header the server wants (target.headers, --header)",
			req.Method, req.URL.Path, ErrServerAuth, resp.StatusCode, statusError(resp))
	default:
		return fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, statusError(resp))
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		if isTimeout(err) {
			return fmt.Errorf("%s %s: %w within %s (the answer did not finish)", req.Method, req.URL.Path, ErrServerTimeout, s.timeout)
		}
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s %s: invalid JSON: %w", req.Method, req.URL.Path, err)
	}
	return nil
}

// isTimeout reports whether err is a timeout of the HTTP client.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// NewTransport returns an HTTP/1.1 transport with the benchmark's TLS
// settings (insecure skips certificate verification; caFile, if not
// empty, adds its PEM certificates to the system pool), for calls beside
// the timed path such as the /metrics scrapes. It fails only when caFile
// cannot be used.
func NewTransport(insecure bool, caFile string) (*http.Transport, error) {
	return transport(Config{Insecure: insecure, CAFile: caFile, MaxConns: 2}, nil)
}
