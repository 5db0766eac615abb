package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// genRequest holds the fields of a completions or chat request the simulator
// honours.
type genRequest struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            json.RawMessage `json:"messages"`
	Input               json.RawMessage `json:"input"`  // Responses
	System              json.RawMessage `json:"system"` // Messages
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MaxOutputTokens     *int            `json:"max_output_tokens"` // Responses
	// Tools are a chat request's tool definitions, which a chat template
	// renders into the prompt: their JSON's tokens count as prompt tokens.
	Tools json.RawMessage `json:"tools"`

	mediaUnits    int  // the media units of its content parts (see mediaCost)
	MinTokens     *int `json:"min_tokens"`
	IgnoreEOS     bool `json:"ignore_eos"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// choice is the plan and progress of one generated sequence (one per prompt
// of a batched completions request).
type choice struct {
	index     int
	prompt    int    // prompt tokens
	n         int    // tokens to generate
	reason    int    // finishStop or finishLength
	key       uint64 // request key: seeds timing, length and text
	sched     scheduler
	reasoning int           // the first tokens that are reasoning (Config.ReasoningTokens)
	k         int           // tokens rendered so far
	due       time.Duration // due offset of token k
	last      time.Time     // when the previous token was written
	done      bool          // the last token was written
}

// token returns the k-th generated token of c; a natural stop ends with the
// EOS token, which has no text.
func (s *Server) token(c *choice, k int) *outToken {
	if c.reason == finishStop && k == c.n-1 {
		return &eosToken
	}
	return &s.pool[hash3(s.cfg.Seed, saltToken, c.key, uint64(k))%uint64(len(s.pool))]
}

var eosToken outToken

// serveGenerate answers POST /v1/completions, /v1/chat/completions,
// /v1/responses and /v1/messages (the API a says which).
func (s *Server) serveGenerate(w http.ResponseWriter, r *http.Request, a api) {
	in, ok := s.admit(w, r)
	if !ok {
		return
	}
	m, t0, seq, reqID, body, fail := s.metrics, in.t0, in.seq, in.reqID, in.body, in.fail
	var req genRequest
	var prompts [][]int
	var e *apiError
	if a == apiAudio {
		prompts, e = s.transcriptionRequest(body, r.Header.Get("Content-Type"), &req)
	} else if err := json.Unmarshal(body, &req); err != nil {
		fail(badRequest("invalid JSON request body: %v", err))
		return
	} else {
		prompts, e = s.apiPrompts(&req, a)
	}
	if e != nil {
		fail(e)
		return
	}
	if a == apiMessages && req.MaxTokens == nil {
		fail(badRequest("max_tokens: Field required"))
		return
	}
	if req.StreamOptions != nil && !req.Stream {
		fail(badRequest("Stream options can only be defined when `stream=True`."))
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		fail(e)
		return
	}
	lora := s.countLoRA(req.Model)
	var waited time.Duration
	if s.slots != nil { // Config.MaxNumSeqs
		select {
		case s.slots <- struct{}{}: // a free slot: no wait
		default:
			queued := time.Now()
			m.waiting.Add(1)
			select {
			case s.slots <- struct{}{}:
				m.waiting.Add(-1)
			case <-r.Context().Done():
				m.waiting.Add(-1)
				return
			}
			waited = time.Since(queued)
		}
		defer func() { <-s.slots }()
	}
	choices := make([]choice, len(prompts))
	for i, ids := range prompts {
		if e := s.plan(&choices[i], i, ids, &req, a); e != nil {
			fail(e)
			return
		}
		choices[i].delay(waited)
	}

	prefix, object := a.idPrefix(), a.object()
	if reqID == "" {
		reqID = fmt.Sprintf("%016x%016x", hash3(s.cfg.Seed, saltRequest, seq, 0), hash3(s.cfg.Seed, saltRequest, seq, 1))
	}
	g := &generation{
		s: s, w: w, ctx: r.Context(), t0: t0, api: a, chat: a == apiChat || a == apiAudio,
		choices: choices,
		id:      prefix + reqID,
		created: t0.Unix(),
		model:   s.cfg.Model, modelJSON: s.modelJSON,
		sendFD: -1,
	}
	if lora >= 0 { // vLLM answers with the LoRA module's name
		g.model, g.modelJSON = s.cfg.LoRAModules[lora], s.loraJSON[lora]
	}
	defer g.finishRaw() // after running is decremented
	blocks := 0
	for i := range choices {
		blocks += kvBlocks(choices[i].prompt + choices[i].n)
	}
	m.prefix.hold(blocks)
	defer m.prefix.hold(-blocks)
	m.running.Add(1)
	defer m.running.Add(-1)
	switch {
	case in.stream == FaultDisconnect:
		m.injected.Add(1)
		if !req.Stream {
			resetConn(w)
			return
		}
		total := 0
		for i := range choices {
			total += choices[i].n
		}
		g.cutAt = cutRemaining(total)
	case in.stream != "":
		if in.stream == FaultBadJSON && req.Stream {
			m.injected.Add(1)
		}
		g.quirk = in.stream
	}
	if req.Stream {
		switch a {
		case apiChat:
			object = "chat.completion.chunk"
		case apiAudio:
			object = "transcription.chunk"
		}
		g.includeUsage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
		g.stream(r, object)
		return
	}
	g.respond(object)
}

// admitted is a request the simulator took in (see admit).
type admitted struct {
	t0    time.Time // its arrival: when its first byte reached the host, if known
	seq   uint64    // its 1-based arrival count over the model endpoints
	reqID string    // its X-Request-Id
	body  []byte    // its whole body
	fail  func(*apiError)
	// stream is the fault its stream carries out (a disconnect or a
	// stream quirk), "" for none.
	stream FaultKind
}

// admit takes in a request to a model endpoint (generation or pooling):
// it counts it, reads its whole body and applies the injected faults
// (DropEvery, FailEvery, Faults). ok false means it has been answered
// already.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) (in admitted, ok bool) {
	in.t0 = time.Now()
	m := s.metrics
	in.seq = s.seq.Add(1)
	m.requests.Add(1)
	in.reqID = r.Header.Get("X-Request-Id")
	in.fail = func(e *apiError) {
		m.failed.Add(1)
		writeError(w, e)
	}
	// Read the whole body first: reaching EOF lets net/http watch the
	// connection, so a client that goes away cancels r.Context().
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		in.fail(badRequest("read request body: %v", err))
		return in, false
	}
	in.body = body
	if at, ok := arrival(r.Context(), time.Now()); ok {
		in.t0 = at
	}
	if s.conns.arrived(s.cfg, in.reqID, in.seq) && s.conns.drop(w) {
		return in, false
	}
	if n := s.cfg.FailEvery; n > 0 && in.seq%uint64(n) == 0 {
		m.injected.Add(1)
		in.fail(&apiError{http.StatusInternalServerError, "InternalServerError",
			fmt.Sprintf("simulated failure: request %d (fail-every %d)", in.seq, n)})
		return in, false
	}
	if f := s.faultFor(in.seq, in.reqID); f != nil && s.inject(w, r, &in, f) {
		return in, false
	}
	return in, true
}

// parsePrompts returns the token ids of each prompt of a request: one for
// chat, one or more for completions.
func (s *Server) parsePrompts(req *genRequest, chat bool) ([][]int, *apiError) {
	if chat {
		text, media, e := chatContent(req.Messages)
		if e != nil {
			return nil, e
		}
		return [][]int{s.withMedia(req, s.tok.Encode(text), media)}, nil
	}
	p := strings.TrimSpace(string(req.Prompt))
	bad := badRequest("prompt must be a string, a list of strings, a list of token ids or a list of token-id lists")
	switch {
	case p == "" || p == "null" || p == `""`:
		return nil, badRequest("Either prompt or prompt_embeds must be provided and non-empty.")
	case p[0] == '"':
		var text string
		if err := json.Unmarshal(req.Prompt, &text); err != nil {
			return nil, bad
		}
		return [][]int{s.tok.Encode(text)}, nil
	case p[0] != '[':
		return nil, bad
	}
	inner := strings.TrimSpace(p[1:])
	switch {
	case inner == "" || inner[0] == ']':
		return nil, badRequest("Either prompt or prompt_embeds must be provided and non-empty.")
	case inner[0] == '"':
		var texts []string
		if err := json.Unmarshal(req.Prompt, &texts); err != nil {
			return nil, bad
		}
		out := make([][]int, len(texts))
		for i, t := range texts {
			out[i] = s.tok.Encode(t)
		}
		return out, nil
	case inner[0] == '[':
		var lists [][]int
		if err := json.Unmarshal(req.Prompt, &lists); err != nil {
			return nil, bad
		}
		for _, ids := range lists {
			if e := checkTokenIDs(ids); e != nil {
				return nil, e
			}
		}
		return lists, nil
	default:
		var ids []int
		if err := json.Unmarshal(req.Prompt, &ids); err != nil {
			return nil, bad
		}
		if e := checkTokenIDs(ids); e != nil {
			return nil, e
		}
		return [][]int{ids}, nil
	}
}

// checkTokenIDs rejects negative token ids.
func checkTokenIDs(ids []int) *apiError {
	for _, id := range ids {
		if id < 0 {
			return badRequest("token ids must be non-negative, got %d", id)
		}
	}
	return nil
}

// chatText returns the prompt text of chat messages: the text of every
// message (string content, or its content parts of type "text"), joined by
// newlines. Other content parts (images, audio) add nothing.
func chatText(raw json.RawMessage) (string, *apiError) {
	text, _, e := chatContent(raw)
	return text, e
}

// chatContent is chatText that also returns the media parts: images,
// videos and audio, in order.
func chatContent(raw json.RawMessage) (string, []mediaRef, *apiError) {
	var media []mediaRef
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil || len(msgs) == 0 {
		return "", nil, badRequest("messages must be a non-empty list of {role, content} objects")
	}
	var b strings.Builder
	for i, msg := range msgs {
		if i > 0 {
			b.WriteByte('\n')
		}
		c := strings.TrimSpace(string(msg.Content))
		switch {
		case c == "" || c == "null":
		case c[0] == '"':
			var text string
			if err := json.Unmarshal(msg.Content, &text); err != nil {
				return "", nil, badRequest("messages[%d].content: %v", i, err)
			}
			b.WriteString(text)
		case c[0] == '[':
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL *struct {
					URL string `json:"url"`
				} `json:"image_url"`
				VideoURL *struct {
					URL string `json:"url"`
				} `json:"video_url"`
				AudioURL *struct {
					URL string `json:"url"`
				} `json:"audio_url"`
				InputAudio *struct {
					Data string `json:"data"`
				} `json:"input_audio"`
			}
			if err := json.Unmarshal(msg.Content, &parts); err != nil {
				return "", nil, badRequest("messages[%d].content: %v", i, err)
			}
			for j, part := range parts {
				switch {
				case part.Type == "image_url" && part.ImageURL != nil:
					media = append(media, mediaRef{kind: mediaImage, url: part.ImageURL.URL})
					continue
				case part.Type == "video_url" && part.VideoURL != nil:
					media = append(media, mediaRef{kind: mediaVideo, url: part.VideoURL.URL})
					continue
				case part.Type == "audio_url" && part.AudioURL != nil:
					media = append(media, mediaRef{kind: mediaAudio, url: part.AudioURL.URL})
					continue
				case part.Type == "input_audio" && part.InputAudio != nil:
					media = append(media, mediaRef{kind: mediaAudio, url: "data:audio/wav;base64," + part.InputAudio.Data})
					continue
				case part.Type != "text" && part.Type != "input_text" && part.Type != "output_text":
					continue // another part type (Responses' text parts are input_text and output_text)
				}
				if j > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(part.Text)
			}
		default:
			return "", nil, badRequest("messages[%d].content must be a string or a list of content parts", i)
		}
	}
	return b.String(), media, nil
}

// promptKey is the request key of a prompt: FNV-1a over its token ids (as
// little-endian 64-bit words), mixed with the choice index.
func promptKey(ids []int, index int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, id := range ids {
		v := uint64(id)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		_, _ = h.Write(b[:])
	}
	return mix64(h.Sum64() + uint64(index))
}

// plan fixes the length, finish reason and schedule of one choice, applying
// vLLM's length rules.
func (s *Server) plan(c *choice, index int, ids []int, req *genRequest, a api) *apiError {
	p, limit := len(ids), s.cfg.MaxModelLen
	requested, name := req.MaxTokens, "max_tokens"
	switch {
	case (a == apiChat || a == apiAudio) && req.MaxCompletionTokens != nil:
		requested, name = req.MaxCompletionTokens, "max_completion_tokens"
	case a == apiResponses:
		requested, name = req.MaxOutputTokens, "max_output_tokens"
	}
	if p >= limit {
		return badRequest("This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.", limit, p)
	}
	maxTokens := min(s.cfg.DefaultOutputLen, limit-p)
	if requested != nil {
		maxTokens = *requested
		if maxTokens < 1 {
			return badRequest("%s must be at least 1, got %d.", name, maxTokens)
		}
		if p+maxTokens > limit {
			return badRequest("'%s' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).",
				name, maxTokens, limit, p, maxTokens, limit, p)
		}
	}
	minTokens := 0
	if req.MinTokens != nil {
		minTokens = *req.MinTokens
	}
	if minTokens < 0 {
		return badRequest("min_tokens must be greater than or equal to 0, got %d.", minTokens)
	}
	if minTokens > maxTokens {
		return badRequest("min_tokens must be less than or equal to max_tokens=%d, got %d.", maxTokens, minTokens)
	}
	*c = choice{index: index, prompt: p, key: promptKey(ids, index)}
	c.n, c.reason = maxTokens, finishLength
	if !req.IgnoreEOS {
		if n, stop := NaturalLength(s.cfg.Seed, c.key, minTokens, maxTokens); stop {
			c.n, c.reason = n, finishStop
		}
	}
	if a != apiCompletions && a != apiAudio {
		c.reasoning = min(s.cfg.ReasoningTokens, c.n-1)
	}
	hit := s.metrics.prefix.lookup(ids)
	c.sched = newScheduler(s.cfg, p, c.key)
	c.sched.itl += time.Duration(s.metrics.running.Load()+1) * s.cfg.ITLPerRunning
	if b := s.cfg.MaxNumBatchedTokens; b > 0 && p > b {
		c.sched.base += time.Duration((p+b-1)/b-1) * s.cfg.ITL // chunked prefill
	}
	c.sched.base += time.Duration(req.mediaUnits) * s.cfg.PrefillPerMediaItem
	if cp := s.cfg.CachedPrefillPerToken; cp != nil {
		// The cached tokens' prefill costs what a cached token does.
		c.sched.base += time.Duration(hit) * (*cp - s.cfg.PrefillPerToken)
	}
	c.due = c.sched.next()
	return nil
}

// delay moves a planned choice's schedule d later (a request that waited
// d for a slot).
func (c *choice) delay(d time.Duration) {
	c.sched.base += d
	c.sched.prev += d
	c.due += d
}

// generation is one request being answered.
type generation struct {
	s            *Server
	w            http.ResponseWriter
	ctx          context.Context
	t0           time.Time
	api          api
	chat         bool // api == apiChat
	includeUsage bool
	choices      []choice
	id           string
	idEsc        []byte // id JSON-escaped, without quotes (Responses' item ids)
	seq          int    // the next Responses sequence_number
	created      int64
	model        string // the model the request named: the served model or a LoRA module
	modelJSON    []byte // model as a JSON string
	head         []byte // `{"id":…,"object":…,"created":…,"model":…,"choices":[`
	buf          []byte
	pending      [maxCoalesce]pendingEvent
	waiter       *waiter     // for the waker, made on first use
	timer        *time.Timer // for plain Go timer sleeps, made on first use

	// Streaming state.
	rc          *http.ResponseController // when net/http writes the response
	raw         net.Conn                 // when the stream took its connection over (raw.go)
	closeAfter  bool                     // close raw after the stream (Connection: close)
	rawOK       bool                     // the stream on raw completed
	sysConn     syscall.RawConn          // raw's, for non-blocking writes
	nonblock    bool                     // a stream loop writes raw, without blocking
	stalled     bool                     // a non-blocking write could not write everything
	unsent      []byte                   // what it could not write
	nb          nbWrite                  // the non-blocking write in progress
	nbWrite     func(fd uintptr) bool    // g.writeNB, made once
	sendFD      int                      // while a stream loop serves it, raw's descriptor duplicated for the loop's ring; -1 when none
	unrecorded  int                      // pending events of the stalled write, recorded once it is out
	stash       []byte                   // bytes read from raw meanwhile, for its next request
	remaining   int                      // events still to write
	cutAt       int                      // a disconnect fault cuts the stream when remaining is this (0: never)
	cut         bool                     // the stream was cut
	quirk       FaultKind                // a stream quirk fault: how the stream is written
	quirkedOnce bool                     // the quirk has seen the stream's first write
	started     bool                     // the first event was written
	loop        loopState
}

// maxCoalesce bounds how many already-due events a late writer sends in one
// write.
const maxCoalesce = 16

// pendingEvent is an event rendered into the write buffer, not yet flushed.
type pendingEvent struct {
	c   *choice
	k   int
	due time.Time
}

// Fixed fragments of the SSE chunks.
const (
	sseData          = "data: "
	sseEnd           = "}]}\n\n"
	sseDone          = "data: [DONE]\n\n"
	chatRoleDelta    = `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null`
	chatContentStart = `,"delta":{"content":"`
	chatContentEnd   = `"},"logprobs":null,"finish_reason":`
	textStart        = `,"text":"`
	textEnd          = `","logprobs":null,"finish_reason":`
	finishNone       = `null`
	stopReasonNull   = `,"stop_reason":null`
)

var finishJSON = [numFinish]string{`"stop"`, `"length"`, `"abort"`}

// appendToken appends the SSE event of token k of choice c.
func (g *generation) appendToken(b []byte, c *choice, k int) []byte {
	switch {
	case g.api == apiResponses:
		return g.appendResponsesToken(b, c, k)
	case g.api == apiMessages:
		return g.appendMessagesToken(b, c, k)
	case k < c.reasoning:
		return g.appendChatReasoning(b, c, k)
	}
	b = append(b, sseData...)
	b = append(b, g.head...)
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(c.index), 10)
	if g.chat {
		b = append(b, chatContentStart...)
	} else {
		b = append(b, textStart...)
	}
	b = append(b, g.s.token(c, k).esc...)
	if g.chat {
		b = append(b, chatContentEnd...)
	} else {
		b = append(b, textEnd...)
	}
	switch {
	case k == c.n-1 && g.quirk == FaultEmptyFinal && !g.chunkless():
		// The last token's chunk has no finish reason; a chunk of its
		// own carries it.
		b = append(b, finishNone...)
		if !g.chat {
			b = append(b, stopReasonNull...)
		}
		b = append(b, sseEnd...)
		b = append(b, sseData...)
		b = append(b, g.head...)
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(c.index), 10)
		if g.chat {
			b = append(b, `,"delta":{},"logprobs":null,"finish_reason":`...)
		} else {
			b = append(b, `,"text":"","logprobs":null,"finish_reason":`...)
		}
		b = append(b, finishJSON[c.reason]...)
		b = append(b, stopReasonNull...)
	case k == c.n-1:
		b = append(b, finishJSON[c.reason]...)
		b = append(b, stopReasonNull...)
	case g.chat:
		b = append(b, finishNone...)
	default:
		b = append(b, finishNone...)
		b = append(b, stopReasonNull...)
	}
	return append(b, sseEnd...)
}

// appendUsage appends the usage event: the same head with no choices.
func (g *generation) appendUsage(b []byte) []byte {
	b = append(b, sseData...)
	b = append(b, g.head...)
	b = append(b, `],"usage":`...)
	b = g.appendUsageObject(b)
	return append(b, "}\n\n"...)
}

// appendUsageObject appends the stream's usage object.
func (g *generation) appendUsageObject(b []byte) []byte {
	var prompt, completion, reasoning int
	for i := range g.choices {
		prompt += g.choices[i].prompt
		completion += g.choices[i].n
		reasoning += g.choices[i].reasoning
	}
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	if reasoning > 0 {
		b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(reasoning), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// stream answers with Server-Sent Events, writing each token at its absolute
// due time t0+d_k. On a connection it can take over (raw.go) a stream loop
// writes the events (see [streamLoop]); otherwise, and with PlainTimers,
// this goroutine sleeps until each event is due and writes it through
// net/http.
func (g *generation) stream(r *http.Request, object string) {
	s := g.s
	g.head = fmt.Appendf(nil, `{"id":%s,"object":"%s","created":%d,"model":%s,"choices":[`,
		appendJSONString(nil, g.id), object, g.created, g.modelJSON)
	q := appendJSONString(nil, g.id)
	g.idEsc = q[1 : len(q)-1]
	g.buf = make([]byte, 0, 1024)
	for i := range g.choices {
		g.remaining += g.choices[i].n
	}
	// A split fault writes through net/http, which makes each piece a
	// chunk of its own.
	if !s.cfg.PlainTimers && g.quirk != FaultSplit && g.takeOver(r) {
		if !g.streamRaw() {
			g.abort()
		}
		return
	}
	g.rc = http.NewResponseController(g.w)
	g.w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	g.w.WriteHeader(http.StatusOK)
	if g.rc.Flush() != nil || !g.writeRest() {
		g.abort()
		if g.cut {
			// Close the connection without the chunked stream's end.
			panic(http.ErrAbortHandler)
		}
	}
}

// writeRest writes the stream's remaining events from this goroutine, each
// at its due time, and returns false if the client went away or a write
// failed.
func (g *generation) writeRest() bool {
	for g.remaining > 0 {
		if !g.sleepUntil(g.nextDue()) || !g.writeDue() {
			return false
		}
	}
	return true
}

// nextDue returns the due time of the next event of an unfinished stream.
func (g *generation) nextDue() time.Time { return g.t0.Add(g.earliest().due) }

// writeDue writes the next event of the stream, which is due, together with
// every later event that is already due too (only when the writer runs
// late), and records their lateness. It returns false if the write failed.
func (g *generation) writeDue() bool {
	b, n, ok := g.renderDue()
	if !ok {
		return false
	}
	return g.writeRendered(b, n)
}

// writeRendered writes b, which renderDue made with n events, and records
// them; it returns false if the write failed.
func (g *generation) writeRendered(b []byte, n int) bool {
	switch {
	case g.nonblock:
		if g.tryWrite(g.frame(b)) != nil {
			return false
		}
	case g.raw != nil:
		if _, err := g.raw.Write(g.frame(b)); err != nil {
			return false
		}
	case g.quirk == FaultSplit:
		for len(b) > 0 {
			n := min(splitPiece, len(b))
			if _, err := g.w.Write(b[:n]); err != nil || g.rc.Flush() != nil {
				return false
			}
			b = b[n:]
		}
	default:
		if _, err := g.w.Write(b); err != nil {
			return false
		}
		if g.rc.Flush() != nil {
			return false
		}
	}
	g.wrote(n)
	return true
}

// renderDue renders the next event of the stream, which is due, and every
// later one already due too, into g.buf (behind chunkRoom bytes for a
// taken-over connection, see frame), and returns the bytes and how many
// events they hold. It returns false when a disconnect fault ends the
// stream here instead.
func (g *generation) renderDue() ([]byte, int, bool) {
	if g.cutAt > 0 && g.remaining <= g.cutAt {
		g.cut = true // a disconnect fault: the stream ends here
		return nil, 0, false
	}
	c := g.earliest()
	due := g.t0.Add(c.due)
	ready := time.Now()
	b := g.buf[:0]
	if g.raw != nil {
		b = g.buf[:chunkRoom]
	}
	if !g.started {
		b = g.appendPrologue(b)
	}
	g.started = true
	n := 0
	for {
		g.pending[n] = pendingEvent{c, c.k, due}
		n++
		b = g.appendToken(b, c, c.k)
		c.k++
		if c.k < c.n {
			c.due = c.sched.next()
		}
		if g.remaining--; g.remaining == 0 {
			if g.quirk == FaultUsageInLast && g.includeUsage && !g.chunkless() {
				// The usage goes in the last chunk, not after it.
				b = append(b[:len(b)-len("}\n\n")], `,"usage":`...)
				b = g.appendUsageObject(b)
				b = append(b, "}\n\n"...)
			}
			b = g.appendEpilogue(b)
			break
		}
		if n == len(g.pending) || g.cutAt > 0 && g.remaining <= g.cutAt {
			break // a disconnect cuts the stream here: its next write
		}
		c = g.earliest()
		if due = g.t0.Add(c.due); due.After(ready) {
			break
		}
	}
	g.buf = b
	if g.quirk != "" {
		off := 0
		if g.raw != nil {
			off = chunkRoom
		}
		b = quirked(g.quirk, b, off, !g.quirkedOnce)
		g.quirkedOnce = true
	}
	return b, n, true
}

// wrote records the n events of a write that succeeded: now, or, when
// part of it waits in g.unsent, once that is out (finishSlow).
func (g *generation) wrote(n int) {
	if g.stalled {
		g.unrecorded = n
		return
	}
	g.recordWritten(n, time.Now())
}

// recordWritten records the lateness and engine metrics of the first n
// pending events, written at now.
func (g *generation) recordWritten(n int, now time.Time) {
	m := g.s.metrics
	for _, p := range g.pending[:n] {
		m.recordToken(p.k, now.Sub(p.due), now.Sub(p.c.last))
		m.genTokens.Add(1)
		if p.k == 0 {
			m.promptTokens.Add(uint64(p.c.prompt))
			m.ttft.observe(now.Sub(g.t0))
		}
		p.c.last = now
		if p.k == p.c.n-1 {
			p.c.done = true
			m.finished[p.c.reason].Add(1)
			m.spec.record(p.c.key, p.c.n)
			m.e2e.observe(now.Sub(g.t0))
		}
	}
}

// earliest returns the unfinished choice whose next token is due first (the
// lowest index on ties).
func (g *generation) earliest() *choice {
	var best *choice
	for i := range g.choices {
		if c := &g.choices[i]; c.k < c.n && (best == nil || c.due < best.due) {
			best = c
		}
	}
	return best
}

// abort counts the unfinished choices of a request whose client went away.
func (g *generation) abort() {
	for i := range g.choices {
		if !g.choices[i].done {
			g.s.metrics.finished[finishAbort].Add(1)
		}
	}
}

// sleepUntil waits for the absolute time due; it returns false if ctx ends
// first. It uses the process-wide waker (see wakerWindow) unless
// Config.PlainTimers is set or the waker is saturated.
func (g *generation) sleepUntil(due time.Time) bool {
	d := time.Until(due)
	switch {
	case d <= 0:
		return g.ctx.Err() == nil
	case g.s.cfg.PlainTimers || theWaker.busy():
		if g.timer == nil {
			g.timer = time.NewTimer(d)
		} else {
			g.timer.Reset(d)
		}
		select {
		case <-g.timer.C:
			return true
		case <-g.ctx.Done():
			g.timer.Stop()
			return false
		}
	}
	if g.waiter == nil {
		g.waiter = newWaiter()
	}
	theWaker.add(g.waiter, due)
	select {
	case <-g.waiter.ch:
		return true
	case <-g.ctx.Done():
		return false
	}
}

// JSON shapes of non-streaming responses.
type (
	usageJSON struct {
		PromptTokens        int       `json:"prompt_tokens"`
		TotalTokens         int       `json:"total_tokens"`
		CompletionTokens    int       `json:"completion_tokens"`
		PromptTokensDetails *struct{} `json:"prompt_tokens_details"`
	}
	completionChoiceJSON struct {
		Index          int       `json:"index"`
		Text           string    `json:"text"`
		Logprobs       *struct{} `json:"logprobs"`
		FinishReason   string    `json:"finish_reason"`
		StopReason     *struct{} `json:"stop_reason"`
		PromptLogprobs *struct{} `json:"prompt_logprobs"`
	}
	chatChoiceJSON struct {
		Index   int `json:"index"`
		Message struct {
			Role             string     `json:"role"`
			Content          string     `json:"content"`
			ReasoningContent *string    `json:"reasoning_content,omitempty"`
			ToolCalls        []struct{} `json:"tool_calls"`
		} `json:"message"`
		Logprobs     *struct{} `json:"logprobs"`
		FinishReason string    `json:"finish_reason"`
		StopReason   *struct{} `json:"stop_reason"`
	}
	responseJSON struct {
		ID                string    `json:"id"`
		Object            string    `json:"object"`
		Created           int64     `json:"created"`
		Model             string    `json:"model"`
		Choices           any       `json:"choices"`
		ServiceTier       *string   `json:"service_tier"`
		SystemFingerprint *string   `json:"system_fingerprint"`
		Usage             usageJSON `json:"usage"`
	}
)

// writeChoices writes the non-streamed completions or chat answer: each
// choice's text (chat: its answer in content, its reasoning in
// reasoning_content) and the usage.
func (g *generation) writeChoices(object string) {
	s := g.s
	resp := responseJSON{ID: g.id, Object: object, Created: g.created, Model: g.model}
	var completionChoices []completionChoiceJSON
	var chatChoices []chatChoiceJSON
	for i := range g.choices {
		c := &g.choices[i]
		var text, reasoning strings.Builder
		for k := range c.n {
			if k < c.reasoning {
				reasoning.WriteString(s.token(c, k).text)
			} else {
				text.WriteString(s.token(c, k).text)
			}
		}
		reason := finishNames[c.reason]
		if g.chat {
			cc := chatChoiceJSON{Index: c.index, FinishReason: reason}
			cc.Message.Role, cc.Message.Content, cc.Message.ToolCalls = "assistant", text.String(), []struct{}{}
			if c.reasoning > 0 {
				r := reasoning.String()
				cc.Message.ReasoningContent = &r
			}
			chatChoices = append(chatChoices, cc)
		} else {
			completionChoices = append(completionChoices, completionChoiceJSON{Index: c.index, Text: text.String(), FinishReason: reason})
		}
		resp.Usage.PromptTokens += c.prompt
		resp.Usage.CompletionTokens += c.n
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	resp.Choices = completionChoices
	if g.chat {
		resp.Choices = chatChoices
	}
	writeJSON(g.w, http.StatusOK, resp)
}

// respond answers with one JSON object once the last token of every choice is
// due.
func (g *generation) respond(object string) {
	m := g.s.metrics
	var final time.Duration
	for i := range g.choices {
		c := &g.choices[i]
		sc, last := c.sched, c.due // a copy: the metrics replay the schedule below
		for k := 1; k < c.n; k++ {
			last = sc.next()
		}
		final = max(final, last)
	}
	due := g.t0.Add(final)
	if !g.sleepUntil(due) {
		g.abort()
		return
	}
	if g.api == apiResponses || g.api == apiMessages || g.api == apiAudio {
		writeJSON(g.w, http.StatusOK, g.apiBody())
	} else {
		g.writeChoices(object)
	}
	now := time.Now()
	m.lateness.record(now.Sub(due))
	for i := range g.choices {
		c := &g.choices[i]
		c.k, c.done = c.n, true
		// The tokens were generated on schedule, only not sent: the engine
		// metrics use the scheduled times.
		m.ttft.observe(c.due)
		for prev, k := c.due, 1; k < c.n; k++ {
			d := c.sched.next()
			m.itl.observe(d - prev)
			prev = d
		}
		m.promptTokens.Add(uint64(c.prompt))
		m.genTokens.Add(uint64(c.n))
		m.finished[c.reason].Add(1)
		m.spec.record(c.key, c.n)
		m.e2e.observe(now.Sub(g.t0))
	}
}
