package sim

import (
	"encoding/json"
	"io"
	"net/http"
)

// readJSON decodes the body of r into v, answering 400 on failure.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		writeError(w, badRequest("read request body: %v", err))
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, badRequest("invalid JSON request body: %v", err))
		return false
	}
	return true
}

// serveTokenize answers POST /tokenize like vLLM: the request carries either
// "prompt" (a string) or "messages" (chat messages, tokenized exactly as a
// chat request's prompt is counted); the built-in tokenizer has no special
// tokens, so add_special_tokens changes nothing. The answer is
// {"count":N,"max_model_len":M,"tokens":[...],"token_strs":null}, with
// token_strs filled when return_token_strs is true.
func (s *Server) serveTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model           string          `json:"model"`
		Prompt          *string         `json:"prompt"`
		Messages        json.RawMessage `json:"messages"`
		ReturnTokenStrs bool            `json:"return_token_strs"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	var text string
	switch {
	case req.Prompt != nil && req.Messages == nil:
		text = *req.Prompt
	case req.Prompt == nil && req.Messages != nil:
		var e *apiError
		if text, e = chatText(req.Messages); e != nil {
			writeError(w, e)
			return
		}
	default:
		writeError(w, badRequest("exactly one of prompt and messages must be given"))
		return
	}
	ids := s.tok.Encode(text)
	if ids == nil {
		ids = []int{}
	}
	var strs []string
	if req.ReturnTokenStrs {
		strs = make([]string, len(ids))
		for i, id := range ids {
			strs[i] = s.tok.Decode([]int{id})
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Count       int      `json:"count"`
		MaxModelLen int      `json:"max_model_len"`
		Tokens      []int    `json:"tokens"`
		TokenStrs   []string `json:"token_strs"`
	}{len(ids), s.cfg.MaxModelLen, ids, strs})
}

// serveDetokenize answers POST /detokenize: {"tokens":[...]} → {"prompt":"..."}.
func (s *Server) serveDetokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Tokens []int  `json:"tokens"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	if e := checkTokenIDs(req.Tokens); e != nil {
		writeError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Prompt string `json:"prompt"`
	}{s.tok.Decode(req.Tokens)})
}
