package sim

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// DefaultEmbeddingDim is the length of the vectors the pooling endpoints
// return when a request does not ask for dimensions.
const DefaultEmbeddingDim = 16

// poolRequest holds the fields of an embeddings, pooling or rerank request
// the simulator honours.
type poolRequest struct {
	Model                string          `json:"model"`
	Input                json.RawMessage `json:"input"`
	Messages             json.RawMessage `json:"messages"`
	Modality             string          `json:"modality"`
	EncodingFormat       string          `json:"encoding_format"`
	Dimensions           *int            `json:"dimensions"`
	TruncatePromptTokens *int            `json:"truncate_prompt_tokens"`
	Query                *string         `json:"query"`
	Documents            []string        `json:"documents"`
	TopN                 int             `json:"top_n"`
}

// The pooling endpoints' kinds of answer.
const (
	poolEmbed  = iota // /v1/embeddings: one embedding per input
	poolPool          // /pooling: one pooled output per input
	poolRerank        // /rerank: a relevance score per document
)

// servePooling answers POST /v1/embeddings (also Infinity's /embeddings),
// /pooling and /rerank (also /v1/rerank and /v2/rerank) as vLLM does, after the prefill time of all
// their tokens and media (TTFT + PrefillPerToken·tokens +
// PrefillPerMediaItem·units: a pooling model runs prefill only). Vectors are deterministic unit vectors of each input's
// tokens; a rerank score is the cosine of the query's and the document's.
// encoding_format float (default) and base64 answer JSON; bytes answers
// the raw little-endian float32 vectors with the JSON metadata (usage
// included) in a "metadata" header, and bytes_only the raw vectors alone.
func (s *Server) servePooling(w http.ResponseWriter, r *http.Request, kind int) {
	in, ok := s.admit(w, r)
	if !ok {
		return
	}
	m := s.metrics
	if in.stream == FaultDisconnect { // no stream to cut: a reset
		m.injected.Add(1)
		resetConn(w)
		return
	}
	var req poolRequest
	if err := json.Unmarshal(in.body, &req); err != nil {
		in.fail(badRequest("invalid JSON request body: %v", err))
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		in.fail(e)
		return
	}
	switch req.EncodingFormat {
	case "", "float", "base64", "bytes", "bytes_only":
	default:
		in.fail(badRequest("encoding_format must be one of float, base64, bytes, bytes_only, got %q", req.EncodingFormat))
		return
	}
	dim := DefaultEmbeddingDim
	if req.Dimensions != nil {
		if *req.Dimensions < 1 || *req.Dimensions > 4096 {
			in.fail(badRequest("dimensions must be in [1, 4096], got %d", *req.Dimensions))
			return
		}
		dim = *req.Dimensions
	}
	inputs, units, e := s.poolInputs(&req, kind)
	if e != nil {
		in.fail(e)
		return
	}
	tokens := 0
	for i, ids := range inputs {
		if inputs[i], e = s.truncate(ids, req.TruncatePromptTokens); e != nil {
			in.fail(e)
			return
		}
		tokens += len(inputs[i])
	}
	m.running.Add(1)
	defer m.running.Add(-1)
	sc := newScheduler(s.cfg, tokens, promptKey(inputs[0], len(inputs)))
	sc.base += time.Duration(units) * s.cfg.PrefillPerMediaItem
	if !sleepCtx(r, in.t0.Add(sc.next())) {
		return
	}
	vecs := make([][]float32, len(inputs))
	for i, ids := range inputs {
		vecs[i] = s.embed(ids, dim)
	}
	usage := poolUsage{PromptTokens: tokens, TotalTokens: tokens}
	id := fmt.Sprintf("%016x", hash3(s.cfg.Seed, saltRequest, in.seq, 2))
	created := in.t0.Unix()
	var body any
	switch kind {
	case poolRerank:
		body = s.rerankBody(&req, vecs, "rerank-"+id, usage)
	default:
		if req.EncodingFormat == "bytes" || req.EncodingFormat == "bytes_only" {
			s.writeRawVectors(w, &req, kind, vecs, id, created, usage)
			m.promptTokens.Add(uint64(tokens))
			m.e2e.observe(time.Since(in.t0))
			return
		}
		body = s.vectorBody(&req, kind, vecs, id, created, usage)
	}
	writeJSON(w, http.StatusOK, body)
	m.promptTokens.Add(uint64(tokens))
	m.e2e.observe(time.Since(in.t0))
}

// poolUsage is a pooling answer's usage.
type poolUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// poolInputs returns the token ids of each input of a request and its
// media units (see mediaCost): a rerank's query and documents (the query
// first), an embeddings request's chat messages (one input, media parts
// included), an Infinity request's one media URL (input with a
// "modality"), or its input (a string, strings, token ids or lists of
// them).
func (s *Server) poolInputs(req *poolRequest, kind int) ([][]int, int, *apiError) {
	if kind == poolRerank {
		if req.Query == nil || len(req.Documents) == 0 {
			return nil, 0, badRequest("a rerank request needs a query and a non-empty list of documents")
		}
		out := [][]int{s.tok.Encode(*req.Query)}
		for _, d := range req.Documents {
			out = append(out, s.tok.Encode(d))
		}
		return out, 0, nil
	}
	if req.Modality != "" && req.Modality != "text" && kind == poolEmbed {
		kinds := map[string]mediaKind{"image": mediaImage, "video": mediaVideo, "audio": mediaAudio}
		mk, ok := kinds[req.Modality]
		var url string
		if !ok || json.Unmarshal(req.Input, &url) != nil || url == "" {
			return nil, 0, badRequest(`modality must be "text", "image", "video" or "audio", with the media's URL as input`)
		}
		ids, units := s.mediaCost([]mediaRef{{mk, url}})
		return [][]int{ids}, units, nil
	}
	g := genRequest{Prompt: req.Input}
	if len(req.Messages) > 0 && kind == poolEmbed {
		g = genRequest{Messages: req.Messages}
	}
	inputs, e := s.parsePrompts(&g, g.Messages != nil)
	return inputs, g.mediaUnits, e
}

// truncate applies truncate_prompt_tokens: -1 keeps the last MaxModelLen
// tokens, k > 0 the last k; without it an input longer than the context
// is refused.
func (s *Server) truncate(ids []int, limit *int) ([]int, *apiError) {
	keep := s.cfg.MaxModelLen
	switch {
	case limit == nil:
		if len(ids) > keep {
			return nil, badRequest("This model's maximum context length is %d tokens. However, you requested %d tokens in the input for embedding generation. Please reduce the length of the input.", keep, len(ids))
		}
	case *limit > 0:
		keep = min(keep, *limit)
	case *limit != -1:
		return nil, badRequest("truncate_prompt_tokens must be -1 or positive, got %d", *limit)
	}
	if len(ids) > keep {
		ids = ids[len(ids)-keep:]
	}
	return ids, nil
}

// embed returns the unit vector of dim components of a token sequence:
// each component a pseudo-random value of (seed, the tokens' key, its
// index), then normalised.
func (s *Server) embed(ids []int, dim int) []float32 {
	key := promptKey(ids, 0)
	v := make([]float64, dim)
	norm := 0.0
	for i := range v {
		v[i] = 2*unit(hash3(s.cfg.Seed, saltEmbed, key, uint64(i))) - 1
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dim)
	for i := range v {
		out[i] = float32(v[i] / norm)
	}
	return out
}

// vectorBody is the JSON answer of /v1/embeddings or /pooling.
func (s *Server) vectorBody(req *poolRequest, kind int, vecs [][]float32, id string, created int64, usage poolUsage) any {
	type item struct {
		Index     int    `json:"index"`
		Object    string `json:"object"`
		Embedding any    `json:"embedding,omitempty"`
		Data      any    `json:"data,omitempty"`
	}
	prefix, object := "embd-", "embedding"
	if kind == poolPool {
		prefix, object = "pool-", "pooling"
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		var val any = floats(v)
		if req.EncodingFormat == "base64" {
			val = base64.StdEncoding.EncodeToString(rawFloats(v))
		}
		data[i] = item{Index: i, Object: object}
		if kind == poolPool {
			data[i].Data = val
		} else {
			data[i].Embedding = val
		}
	}
	return struct {
		ID      string    `json:"id"`
		Object  string    `json:"object"`
		Created int64     `json:"created"`
		Model   string    `json:"model"`
		Data    []item    `json:"data"`
		Usage   poolUsage `json:"usage"`
	}{prefix + id, "list", created, s.answerModel(req.Model), data, usage}
}

// writeRawVectors answers encoding_format bytes or bytes_only: the
// vectors as little-endian float32s, one after another, with (bytes) the
// answer's JSON without its vectors in the "metadata" header.
func (s *Server) writeRawVectors(w http.ResponseWriter, req *poolRequest, kind int, vecs [][]float32, id string, created int64, usage poolUsage) {
	var body []byte
	for _, v := range vecs {
		body = append(body, rawFloats(v)...)
	}
	if req.EncodingFormat == "bytes" {
		type item struct {
			Index  int    `json:"index"`
			Object string `json:"object"`
			Shape  []int  `json:"shape"`
		}
		object := "embedding"
		if kind == poolPool {
			object = "pooling"
		}
		items := make([]item, len(vecs))
		for i, v := range vecs {
			items[i] = item{i, object, []int{len(v)}}
		}
		md, err := json.Marshal(struct {
			ID      string    `json:"id"`
			Created int64     `json:"created"`
			Model   string    `json:"model"`
			Data    []item    `json:"data"`
			Usage   poolUsage `json:"usage"`
		}{id, created, s.answerModel(req.Model), items, usage})
		if err != nil {
			http.Error(w, "encode metadata: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("metadata", string(md))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// rerankBody is the JSON answer of /rerank: each document's relevance
// score (the cosine of its vector and the query's, mapped to [0, 1]),
// best first, the top_n best when top_n is positive.
func (s *Server) rerankBody(req *poolRequest, vecs [][]float32, id string, usage poolUsage) any {
	type doc struct {
		Text string `json:"text"`
	}
	type result struct {
		Index          int     `json:"index"`
		Document       doc     `json:"document"`
		RelevanceScore float64 `json:"relevance_score"`
	}
	q := vecs[0]
	results := make([]result, len(req.Documents))
	for i, d := range req.Documents {
		dot := 0.0
		for k := range q {
			dot += float64(q[k]) * float64(vecs[i+1][k])
		}
		results[i] = result{Index: i, Document: doc{d}, RelevanceScore: (dot + 1) / 2}
	}
	slices.SortStableFunc(results, func(a, b result) int {
		switch {
		case a.RelevanceScore > b.RelevanceScore:
			return -1
		case a.RelevanceScore < b.RelevanceScore:
			return 1
		}
		return 0
	})
	if req.TopN > 0 && req.TopN < len(results) {
		results = results[:req.TopN]
	}
	return struct {
		ID      string    `json:"id"`
		Model   string    `json:"model"`
		Usage   poolUsage `json:"usage"`
		Results []result  `json:"results"`
	}{id, s.answerModel(req.Model), usage, results}
}

// answerModel is the model an answer names: the request's (the served
// model or a LoRA module), else the served model.
func (s *Server) answerModel(name string) string {
	if name == "" {
		return s.cfg.Model
	}
	return name
}

// floats returns v as float64s, which encoding/json writes in their
// shortest form (as Python writes a float32 converted to float).
func floats(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

// rawFloats returns v as little-endian float32 bytes.
func rawFloats(v []float32) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, v) // a bytes.Buffer does not fail
	return b.Bytes()
}

// sleepCtx waits until due or until the request's client goes away,
// reporting whether due was reached.
func sleepCtx(r *http.Request, due time.Time) bool {
	d := time.Until(due)
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
