package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ServerAPI calls a vLLM-style server's auxiliary endpoints: /v1/models,
// /tokenize, /detokenize and the ready check. It is not used on the timed
// path.
type ServerAPI struct {
	base    string
	model   string
	headers map[string]string
	http    *http.Client
}

// NewServerAPI returns a ServerAPI for the server at base (no trailing
// slash). model is sent with /tokenize requests; headers go only on
// /v1/models, as vLLM does. insecure skips TLS verification and caFile, if
// not empty, names a PEM file of extra CA certificates, as for the timed
// path's Config. It fails only when caFile cannot be used.
func NewServerAPI(base, model string, headers map[string]string, insecure bool, caFile string) (*ServerAPI, error) {
	tr, err := transport(Config{Insecure: insecure, CAFile: caFile}, nil)
	if err != nil {
		return nil, err
	}
	return &ServerAPI{base: strings.TrimSuffix(base, "/"), model: model, headers: headers,
		http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}, nil
}

// WithModel returns a ServerAPI for the same server that sends model with
// /tokenize requests; it shares s's HTTP client and so its connections.
func (s *ServerAPI) WithModel(model string) *ServerAPI {
	c := *s
	c.model = model
	return &c
}

// Models returns the first model's id (the payload name) and root (the
// model id used for the tokenizer and the result), as vLLM does when no
// model is given.
func (s *ServerAPI) Models(ctx context.Context) (id, root string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/v1/models", nil)
	if err != nil {
		return "", "", err
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
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
		return "", "", fmt.Errorf("fetching the model list: %s/v1/models lists no models", s.base)
	}
	root = out.Data[0].Root
	if root == "" {
		root = out.Data[0].ID
	}
	return out.Data[0].ID, root, nil
}

// Tokenize returns the server's token ids for prompt, without special tokens.
func (s *ServerAPI) Tokenize(ctx context.Context, prompt string) ([]int, error) {
	var out struct {
		Tokens []int `json:"tokens"`
	}
	body := map[string]any{"model": s.model, "prompt": prompt, "add_special_tokens": false}
	if err := s.post(ctx, "/tokenize", body, &out); err != nil {
		return nil, err
	}
	return out.Tokens, nil
}

// Detokenize returns the server's text for ids.
func (s *ServerAPI) Detokenize(ctx context.Context, ids []int) (string, error) {
	var out struct {
		Prompt string `json:"prompt"`
	}
	if err := s.post(ctx, "/detokenize", map[string]any{"model": s.model, "tokens": ids}, &out); err != nil {
		return "", err
	}
	return out.Prompt, nil
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

func (s *ServerAPI) do(req *http.Request, out any) error {
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, statusError(resp))
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s %s: invalid JSON: %w", req.Method, req.URL.Path, err)
	}
	return nil
}
