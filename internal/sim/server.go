package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbench/vbench/internal/rxtime"
)

// maxBodyBytes bounds a request body (a 128k-token prompt is well below it).
const maxBodyBytes = 64 << 20

// Server is a simulated OpenAI-compatible LLM server. Create it with [New]
// (then serve [Server.Handler] yourself) or with [Start].
type Server struct {
	cfg       Config
	tok       Tokenizer
	builtin   bool       // tok is the built-in WordTokenizer
	pool      []outToken // the tokens the simulator generates
	modelJSON []byte     // the model name as a JSON string
	started   time.Time
	metrics   *metrics
	seq       atomic.Uint64 // generation request arrivals, 1-based
	handler   http.Handler
	profile   profileCalls
	resets    map[string]*atomic.Int64 // calls of each cache-reset route
	slots     chan struct{}            // Config.MaxNumSeqs's running requests; nil without a limit
	lora      []atomic.Int64           // generation requests per Config.LoRAModules entry
	loraJSON  [][]byte                 // Config.LoRAModules as JSON strings
	conns     connFaults               // Config.CloseAfterStream and DropEvery

	// active counts running handlers so that Close can wait for them.
	mu     sync.Mutex
	idle   *sync.Cond
	active int

	// Connections streams took over from net/http (see raw.go), and
	// whether Close has begun closing them; guarded by mu.
	hijacked map[net.Conn]struct{}
	closing  bool

	// Set by Start.
	listener  *injectListener
	limit     *limitListener // Config.MaxConns's, nil without a limit
	resetIDs  sync.Map       // X-Request-Ids a reset fault reset, whose resend is reset too
	srv       *http.Server
	url       string
	served    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// outToken is one token the simulator can generate.
type outToken struct {
	text string // its text
	esc  []byte // its text JSON-escaped, without quotes
}

// poolSampleWords is how many built-in words are encoded with a custom
// tokenizer to find the token ids the simulator generates.
const poolSampleWords = 512

// New validates cfg and returns a server that is not yet listening.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		tok:       cfg.Tokenizer,
		modelJSON: appendJSONString(nil, cfg.Model),
		started:   time.Now(),
		metrics:   newMetrics(),
		resets:    map[string]*atomic.Int64{},
	}
	if cfg.MaxNumSeqs > 0 {
		s.slots = make(chan struct{}, cfg.MaxNumSeqs)
	}
	for _, route := range []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"} {
		s.resets[route] = new(atomic.Int64)
	}
	s.metrics.spec = newSpecCounters(cfg.SpecDecodeTokens, cfg.SpecDecodeAcceptance, s.started)
	s.metrics.prefix = newPrefixCache(cfg.PrefixCacheBlocks, s.started)
	s.idle = sync.NewCond(&s.mu)
	s.lora = make([]atomic.Int64, len(cfg.LoRAModules))
	for _, name := range cfg.LoRAModules {
		s.loraJSON = append(s.loraJSON, appendJSONString(nil, name))
	}
	if s.tok == nil {
		s.tok, s.builtin = WordTokenizer{}, true
		s.pool = make([]outToken, WordVocabSize)
		for id := range s.pool {
			s.pool[id] = newOutToken(" " + wordText(id))
		}
	} else {
		ids := make([]int, poolSampleWords)
		for i := range ids {
			ids[i] = i * (WordVocabSize / poolSampleWords)
		}
		s.pool = tokenPool(s.tok, s.tok.Encode(WordTokenizer{}.Decode(ids)))
		if len(s.pool) == 0 {
			return nil, errors.New("invalid simulator config: the tokenizer decodes no token of its sample text to non-empty text")
		}
	}
	s.handler = s.routes()
	return s, nil
}

// tokenPool is the tokens the simulator generates with a custom tokenizer:
// the distinct ids among ids whose text is a space and a lowercase word
// that the tokenizer encodes back to that one id, so that a client
// re-tokenizing the generated text counts the tokens the usage reports
// (the pre-tokenizers of BPE tokenizers split before each space, so such
// words do not merge). When ids hold no such token, every id with text
// serves, and a client's count of the text may differ from the usage.
func tokenPool(tok Tokenizer, ids []int) []outToken {
	var stable, all []outToken
	seen := map[int]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		text := tok.Decode([]int{id})
		if text == "" {
			continue
		}
		all = append(all, newOutToken(text))
		if spaceWord(text) && slices.Equal(tok.Encode(text), []int{id}) {
			stable = append(stable, newOutToken(text))
		}
	}
	if len(stable) > 0 {
		return stable
	}
	return all
}

// spaceWord reports whether text is a space followed by lowercase ASCII
// letters.
func spaceWord(text string) bool {
	if len(text) < 2 || text[0] != ' ' {
		return false
	}
	for i := 1; i < len(text); i++ {
		if text[i] < 'a' || text[i] > 'z' {
			return false
		}
	}
	return true
}

func newOutToken(text string) outToken {
	q := appendJSONString(nil, text)
	return outToken{text: text, esc: q[1 : len(q)-1]}
}

// appendJSONString appends s as a JSON string, escaping like Python's
// json/pydantic (no HTML escaping; non-ASCII kept as UTF-8).
func appendJSONString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.serveModels)
	for path, a := range map[string]api{"/v1/completions": apiCompletions, "/v1/chat/completions": apiChat,
		"/v1/responses": apiResponses, "/v1/messages": apiMessages,
		"/v1/audio/transcriptions": apiAudio, "/v1/audio/translations": apiAudio} {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, a) })
	}
	for path, kind := range map[string]int{"/v1/embeddings": poolEmbed, "/embeddings": poolEmbed, "/pooling": poolPool,
		"/rerank": poolRerank, "/v1/rerank": poolRerank, "/v2/rerank": poolRerank} {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, kind) })
	}
	if !s.cfg.Bare {
		mux.HandleFunc("POST /tokenize", s.serveTokenize)
		mux.HandleFunc("POST /detokenize", s.serveDetokenize)
		mux.HandleFunc("GET /metrics", s.serveMetrics)
	}
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	if !s.cfg.Bare {
		for route := range s.resets {
			mux.HandleFunc("POST "+route, func(w http.ResponseWriter, _ *http.Request) { s.serveCacheReset(w, route) })
		}
	}
	mux.HandleFunc("POST /start_profile", func(w http.ResponseWriter, _ *http.Request) { s.serveProfile(w, &s.profile.starts) })
	mux.HandleFunc("POST /stop_profile", func(w http.ResponseWriter, _ *http.Request) { s.serveProfile(w, &s.profile.stops) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("X-Request-Id"); id != "" {
			w.Header().Set("X-Request-Id", id)
		}
		s.mu.Lock()
		s.active++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.active--
			if s.active == 0 {
				s.idle.Broadcast()
			}
			s.mu.Unlock()
		}()
		mux.ServeHTTP(w, r)
	})
}

// Start creates a server with [New], listens on addr ("127.0.0.1:0" picks a
// free port; "" means [DefaultAddr]) and serves in the background until
// [Server.Close].
func Start(cfg Config, addr string) (*Server, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("start simulator: %w", err)
	}
	s.url = "http://" + dialAddr(ln.Addr())
	s.srv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 30 * time.Second, ConnContext: connContext}
	ln = rxtime.Listen(ln)
	if s.cfg.MaxConns > 0 {
		s.limit = &limitListener{Listener: ln, max: int64(s.cfg.MaxConns)}
		ln = s.limit
	}
	s.listener = newInjectListener(ln)
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(s.listener) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// dialAddr returns a host:port a client can dial for a listener address,
// replacing an unspecified host (0.0.0.0, ::) by 127.0.0.1.
func dialAddr(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		if t.IP == nil || t.IP.IsUnspecified() {
			return net.JoinHostPort("127.0.0.1", strconv.Itoa(t.Port))
		}
		return net.JoinHostPort(t.IP.String(), strconv.Itoa(t.Port))
	}
	return a.String()
}

// URL returns the base URL of a server made by [Start], such as
// "http://127.0.0.1:8000", or "" for a server made by [New].
func (s *Server) URL() string { return s.url }

// Close stops a server made by [Start]: it closes the listener and every
// connection, which cancels the running streams, and waits until their
// handlers have returned. It does nothing for a server made by [New].
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	s.closeOnce.Do(func() {
		if err := s.srv.Close(); err != nil {
			s.closeErr = fmt.Errorf("close simulator: %w", err)
		}
		<-s.served
		s.closeHijacked()
		s.mu.Lock()
		for s.active > 0 {
			s.idle.Wait()
		}
		s.mu.Unlock()
	})
	return s.closeErr
}

// apiError is an error answered in vLLM's error JSON.
type apiError struct {
	status  int
	typ     string
	message string
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "BadRequestError", fmt.Sprintf(format, args...)}
}

// writeError answers e as {"object":"error","message":...,"type":...,"param":null,"code":N}.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, struct {
		Object  string  `json:"object"`
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    int     `json:"code"`
	}{"error", e.message, e.typ, nil, e.status})
}

// writeJSON answers v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	body := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// checkModel returns the 404 vLLM answers for a model it does not serve; an
// empty name selects the served model.
func (s *Server) checkModel(name string) *apiError {
	if name == "" || name == s.cfg.Model || slices.Contains(s.cfg.LoRAModules, name) {
		return nil
	}
	return &apiError{http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", name)}
}

// serveModels answers GET /v1/models in vLLM's shape.
func (s *Server) serveModels(w http.ResponseWriter, _ *http.Request) {
	type permission struct {
		ID                 string  `json:"id"`
		Object             string  `json:"object"`
		Created            int64   `json:"created"`
		AllowCreateEngine  bool    `json:"allow_create_engine"`
		AllowSampling      bool    `json:"allow_sampling"`
		AllowLogprobs      bool    `json:"allow_logprobs"`
		AllowSearchIndices bool    `json:"allow_search_indices"`
		AllowView          bool    `json:"allow_view"`
		AllowFineTuning    bool    `json:"allow_fine_tuning"`
		Organization       string  `json:"organization"`
		Group              *string `json:"group"`
		IsBlocking         bool    `json:"is_blocking"`
	}
	type model struct {
		ID          string       `json:"id"`
		Object      string       `json:"object"`
		Created     int64        `json:"created"`
		OwnedBy     string       `json:"owned_by"`
		Root        string       `json:"root"`
		Parent      *string      `json:"parent"`
		MaxModelLen int          `json:"max_model_len"`
		Permission  []permission `json:"permission"`
	}
	created := s.started.Unix()
	h := hash3(s.cfg.Seed, saltRequest, 0, 0)
	perm := []permission{{
		ID: fmt.Sprintf("modelperm-%016x", h), Object: "model_permission", Created: created,
		AllowSampling: true, AllowLogprobs: true, AllowView: true, Organization: "*",
	}}
	models := []model{{
		ID: s.cfg.Model, Object: "model", Created: created, OwnedBy: "vllm",
		Root: s.cfg.Model, MaxModelLen: s.cfg.MaxModelLen, Permission: perm,
	}}
	// vLLM lists each LoRA adapter after the base model, with the base
	// model as its parent (and its path as its root: here its name).
	for _, name := range s.cfg.LoRAModules {
		models = append(models, model{ID: name, Object: "model", Created: created, OwnedBy: "vllm",
			Root: name, Parent: &s.cfg.Model, MaxModelLen: s.cfg.MaxModelLen, Permission: perm})
	}
	if s.cfg.Bare {
		type bareModel struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Created int64  `json:"created"`
			OwnedBy string `json:"owned_by"`
		}
		bare := make([]bareModel, len(models))
		for i, m := range models {
			bare[i] = bareModel{m.ID, m.Object, m.Created, "organization-owner"}
		}
		writeJSON(w, http.StatusOK, struct {
			Object string      `json:"object"`
			Data   []bareModel `json:"data"`
		}{"list", bare})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", models})
}
