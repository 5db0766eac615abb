// Package backend sends benchmark requests to a serving endpoint and turns
// each response into a record: vLLM's payloads per backend kind, HTTP with
// connection reuse, and SSE parsing with a timestamp per message. Failures
// are written into the record, never returned; *http.Request never leaves
// this package.
//
// Backend kinds live in a registry (registry.go): vLLM's twelve, in its
// --backend order, each with its URL suffix, task and OpenAI
// compatibility, and a Codec (payload builder and response decoder) for
// the ones vbench implements. Every list of backends reads it. To add one
// of vLLM's kinds, write one file with its Codec that calls implement from
// init (see completions.go and chat.go), plus its tests; a kind vLLM does
// not have is added with Register (and then also needs the schema's
// #Backend and argv's --backend choices, which a test keeps equal to the
// registry).
package backend

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/ringnet"
	"github.com/vbench/vbench/internal/rxtime"
	"github.com/vbench/vbench/internal/version"
)

// Config configures a Client.
type Config struct {
	// Backend is the backend name (see Kinds).
	Backend string
	// URL is the full API URL (base URL + endpoint).
	URL string
	// Model is the payload's model field.
	Model string
	// Headers are sent on every benchmark request, after Authorization.
	Headers map[string]string
	// APIKey, when set, is sent as "Authorization: Bearer <key>" (vLLM reads
	// it from OPENAI_API_KEY).
	APIKey string
	// IgnoreEOS adds "ignore_eos": true to every payload.
	IgnoreEOS bool
	// Logprobs is the completions payload's logprobs (nil sends null).
	Logprobs *int
	// ExtraBody is shallow-merged into every payload last (sampling
	// parameters and --extra-body), overriding earlier keys.
	ExtraBody map[string]any
	// MaxConns limits connections to the host (0 = unlimited); size it to
	// the run's concurrency so connections are reused, not re-dialled.
	MaxConns int
	// Insecure skips TLS certificate verification.
	Insecure bool
	// CAFile is an extra PEM CA bundle.
	CAFile string
	// Timeout bounds one request (vLLM: 6 hours).
	Timeout time.Duration
	// TraceContext sends a W3C traceparent header, with a trace id of its
	// own, on every request prepared with ids (see traceparent.go).
	TraceContext bool
	// ExactCounting counts a streamed chunk as a token arrival only when
	// it carries text, and reads usage counts from any chunk. Without it
	// vbench counts as vLLM's client does: every chunk with a non-empty
	// choices array is a token arrival (a chunk with only a role or a
	// finish reason too), and usage is read only from a chunk without
	// choices (usage in the last content chunk is ignored, and the output
	// is counted by tokenizing its text).
	ExactCounting bool
	// LastByte, when set, receives the time (on the clock Send is given)
	// of every response message read, for a progress display that shows a
	// stalled server: one atomic store per message.
	LastByte *atomic.Int64
}

// Client sends prepared requests. It is safe for concurrent use.
type Client struct {
	dial   *dialer
	cfg    Config
	kind   Kind
	codec  Codec
	opts   PayloadOptions
	http   *http.Client
	header http.Header
	h1     *h1Client         // the lean HTTP/1.1 path; nil: net/http (https, proxies)
	redact *strings.Replacer // the secrets to keep out of error texts (nil: none); see secrets.go
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	kind, ok := Lookup(cfg.Backend)
	if !ok {
		return nil, unknownError(cfg.Backend)
	}
	if !kind.Supported() {
		return nil, errors.New(UnsupportedMessage(cfg.Backend))
	}
	if !kind.AcceptsURL(cfg.URL) {
		return nil, fmt.Errorf("%s URL must end with one of: {%s, 'profile'} (got %s; set the endpoint, e.g. %s)",
			kind.APIName, kind.Suffixes(), displayURL(cfg.URL), kind.ExampleEndpoint())
	}
	d := &dialer{d: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
	tr, err := transport(cfg, d.DialContext)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 6 * time.Hour
	}
	// vLLM's chat function sets it; for completions aiohttp adds it for a JSON body.
	base := http.Header{"Content-Type": {"application/json"}}
	boundary := ""
	if kind.Multipart {
		boundary = newBoundary()
		base.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	}
	for k, v := range kind.Headers {
		base.Set(k, v)
	}
	if kind.APIKeyHeader != "" && cfg.APIKey != "" {
		base.Set(kind.APIKeyHeader, cfg.APIKey)
	}
	h := requestHeader(base, cfg.APIKey, cfg.Headers)
	c := &Client{dial: d, cfg: cfg, kind: kind, codec: kind.Codec, header: h, redact: newRedactor(cfg.APIKey, cfg.Headers),
		http: &http.Client{Transport: tr, Timeout: cfg.Timeout, CheckRedirect: noRedirect},
		opts: PayloadOptions{Model: cfg.Model, IgnoreEOS: cfg.IgnoreEOS, Logprobs: cfg.Logprobs, ExtraBody: cfg.ExtraBody, Boundary: boundary}}
	if u, err := url.Parse(cfg.URL); err == nil {
		if c.h1 = newH1Client(u, h, cfg, d.DialContext); c.h1 != nil {
			c.h1.take = d.take
		}
	}
	return c, nil
}

// transport builds an HTTP/1.1 transport with connection reuse sized to the
// run. Go's dialer sets TCP_NODELAY by default.
// dial is the transport's DialContext; nil uses a plain net.Dialer.
func transport(cfg Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*http.Transport, error) {
	tlsCfg := &tls.Config{InsecureSkipVerify: cfg.Insecure} //nolint:gosec // user asked for it
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificates", cfg.CAFile)
		}
		tlsCfg.RootCAs = pool
	}
	idle := cfg.MaxConns
	if idle <= 0 {
		idle = 4096
	}
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dial,
		TLSClientConfig:     tlsCfg,
		MaxConnsPerHost:     cfg.MaxConns,
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     60 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		// The default 4 KB buffers suffice: bufio passes large bodies and
		// large reads straight through, and small buffers keep a wave of
		// new connections cheap.
	}, nil
}

// Close releases idle and unused pre-dialled connections.
func (c *Client) Close() {
	c.http.CloseIdleConnections()
	if c.h1 != nil {
		c.h1.pool.closeIdle()
	}
	c.dial.close()
}

// Prepared is a request whose payload was built before the run.
type Prepared struct {
	body         []byte
	header       http.Header // shared and read-only when id and traceID are empty
	id           string
	traceID      string // the traceparent's trace id; "" when none is sent
	trace        []byte // the rendered traceparent lines, one per attempt (nil: none)
	promptLen    int
	outputLen    int
	sequences    int     // a pooling request's num_input_sequences (0: generation)
	audioSeconds float64 // the duration of the audio clip it uploads (0: none)
	format       uint8   // a pooling response's body format (formatJSON, ...)
	conv         string  // the conversation's id (dataset.Request.Conversation), "" for none
	turn         int     // the turn's index in it
	skip         string  // why it is not sent (dataset.Request.Skip), "" to send it
	extra        []byte  // the request's own header lines (dataset.Request.Headers), for the lean client
}

// Conversation returns the id of the request's conversation and its turn
// index ("" and 0 outside a conversation).
func (p *Prepared) Conversation() (string, int) { return p.conv, p.turn }

// NotSent returns why the request is not to be sent (dataset.Request.Skip),
// "" when it is sent.
func (p *Prepared) NotSent() string { return p.skip }

// Prepare builds the payloads of reqs. Doing it before the clock starts
// keeps JSON encoding off the hot path. withIDs controls whether the
// x-request-id header and, with Config.TraceContext, the traceparent
// header are sent (warmups and ready checks send neither).
func (c *Client) Prepare(reqs []dataset.Request, withIDs bool) ([]Prepared, error) {
	out := make([]Prepared, len(reqs))
	var tl traceLines
	if withIDs && c.cfg.TraceContext {
		var err error
		if tl, err = newTraceLines(len(reqs), randomReader); err != nil {
			return nil, err
		}
	}
	_, tools := c.codec.(toolSender)
	for i := range reqs {
		if _, ok := reqs[i].ExtraBody["tools"]; ok && !tools {
			return nil, fmt.Errorf("request %d: the request carries tools (a tool-calling dataset's, such as BFCL), which only the openai-chat backend sends", i)
		}
		if reqs[i].Skip != "" {
			out[i] = Prepared{skip: reqs[i].Skip, promptLen: reqs[i].PromptLen, outputLen: reqs[i].OutputLen, id: reqs[i].ID, turn: reqs[i].Turn}
			if cv := reqs[i].Conversation; cv != nil {
				out[i].conv = cv.ID
			}
			continue
		}
		b, err := c.codec.Payload(&reqs[i], &c.opts)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
		p := Prepared{body: b, header: c.header, promptLen: reqs[i].PromptLen, outputLen: reqs[i].OutputLen, turn: reqs[i].Turn}
		if cv := reqs[i].Conversation; cv != nil {
			p.conv = cv.ID
		}
		if as, ok := c.codec.(audioSeconder); ok {
			p.audioSeconds = as.AudioSeconds(&reqs[i])
		}
		if sq, ok := c.codec.(sequencer); ok {
			p.sequences, p.format = sq.Sequences(&reqs[i]), uint8(poolingFormat(&reqs[i], &c.opts))
		}
		if withIDs && reqs[i].ID != "" {
			p.id = reqs[i].ID
			p.header = c.header.Clone()
			p.header.Set("x-request-id", reqs[i].ID)
		}

		if tl.buf != nil {
			p.traceID = tl.traceID(i)
			p.trace = tl.buf[i*traceAttempts*traceLineLen : (i+1)*traceAttempts*traceLineLen]
			if p.id == "" {
				p.header = c.header.Clone()
			}
			p.header[http.CanonicalHeaderKey(traceHeaderKey)] = []string{tl.value(i)}
		}
		if len(reqs[i].Headers) > 0 {
			// The request's own headers (a session id), for both paths.
			p.header = p.header.Clone()
			for _, k := range slices.Sorted(maps.Keys(reqs[i].Headers)) {
				v := reqs[i].Headers[k]
				if !validHeaderValue(v) {
					return nil, fmt.Errorf("request %d: header %s: a value may hold no control character", i, k)
				}
				p.header.Set(k, v)
				p.extra = append(p.extra, http.CanonicalHeaderKey(k)+": "+v+"\r\n"...)
			}
		}
		out[i] = p
	}
	return out, nil
}

// Send performs one prepared request and fills rec: Start (before
// dialling or waiting for a connection when it must, else just before the
// request is written; see sendH1), a time per token-bearing SSE message (for a
// non-streaming kind, one: when the whole body has arrived), End, token
// counts, text, and on failure Success=false with the error text. now is
// the run's monotonic clock. Send never returns an error: failures are data.
//
// Plain http:// URLs without a proxy go through a lean HTTP/1.1 client
// (h1.go); everything else through net/http. Both fill rec the same way,
// follow no redirect (a 3xx answer fails the request) and keep the API
// key and header values out of the error text (see secrets.go).
func (c *Client) Send(ctx context.Context, p *Prepared, rec *record.Record, now func() time.Duration) {
	c.send(ctx, p, rec, now)
	if rec.Error != "" && c.redact != nil {
		rec.Error = c.redact.Replace(rec.Error)
	}
}

// send is Send but for the redaction of the error text.
func (c *Client) send(ctx context.Context, p *Prepared, rec *record.Record, now func() time.Duration) {
	rec.RequestID = p.id
	rec.TraceID = p.traceID
	rec.PromptLen = p.promptLen
	rec.InputAudioSeconds = p.audioSeconds
	if p.sequences > 0 {
		// vLLM's pooling output starts with prompt_len 0: a failure
		// reports 0, a success the server's count.
		rec.PromptLen, rec.InputSequences = 0, p.sequences
	}
	if c.kind.Stream {
		rec.Chunks = make([]time.Duration, 0, p.outputLen+1)
	} else {
		rec.Chunks = make([]time.Duration, 0, 1) // the whole body is one message
	}
	if c.h1 != nil {
		c.sendH1(ctx, p, rec, now)
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(p.body))
	if err != nil {
		rec.Error = err.Error()
		return
	}
	// Neither Send nor net/http modifies the header, so concurrent
	// requests may share it.
	req.Header = p.header
	// Start is taken before net/http looks for a connection, and again
	// when it had an idle one to hand over at once (see sendH1): the
	// wait between the two is the client's own. A connection dialled
	// before the run is not idle to net/http, and https sets it up
	// after the dial: it keeps the first Start.
	var conn net.Conn
	clock := now // captured by value: now itself is replaced below
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			conn = info.Conn
			if info.WasIdle {
				rec.Start = clock()
			}
		},
	}))
	rec.Start = now()
	resp, err := c.http.Do(req)
	if err != nil {
		rec.Error = c.requestError(err)
		return
	}
	defer resp.Body.Close()
	rec.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		rec.Error = statusError(resp)
		return
	}
	st := c.startStream(rec, p, func() []byte {
		if v, ok := resp.Header["Metadata"]; ok && len(v) > 0 {
			return []byte(v[0])
		}
		return nil
	})
	now = arrivalClock(now, conn, &rec.ReadLag)
	if c.kind.Stream {
		c.endStream(&st, readSSE(resp.Body, now, st.message))
		return
	}
	c.endStream(&st, readWhole(resp.Body, now, st.message))
}

// startStream returns the stream that folds a 200 response's messages
// into rec, with a pooled text buffer. metadata returns the response's
// "metadata" header (nil when absent), which a pooling response in
// encoding_format bytes carries its usage in.
func (c *Client) startStream(rec *record.Record, p *Prepared, metadata func() []byte) stream {
	tb := textPool.Get().(*[]byte)
	what := "SSE message"
	if !c.kind.Stream {
		what = "response body"
	}
	st := stream{rec: rec, codec: c.codec, what: what, text: (*tb)[:0], pooled: tb, lastByte: c.cfg.LastByte, exact: c.cfg.ExactCounting}
	if p.format != formatJSON {
		raw, err := newRawBody(int(p.format), metadata(), p.promptLen)
		st.codec, st.err = raw, err
	}
	return st
}

// endStream completes rec once the body is read; err is the read error.
func (c *Client) endStream(st *stream, err error) {
	rec := st.rec
	rec.GeneratedText = string(st.text)
	if cap(st.text) <= maxPooledText {
		*st.pooled = st.text
		textPool.Put(st.pooled)
	}
	switch {
	case st.err != nil:
		rec.Error = st.err.Error()
	case err != nil:
		rec.Error = c.requestError(err)
	case len(rec.Chunks) == 0:
		rec.Error = "Never received a valid chunk to calculate TTFT.This response will be marked as failed!"
	default:
		rec.Success = true
	}
}

// arrivalClock returns the clock that stamps the reads of a response
// received on conn: now, moved back by how long before the read returned
// the kernel received the newest byte it returned, when conn has receive
// timestamps (see package rxtime). A token is then timed when it reached
// the host, not when the reading goroutine got to run, so a busy client
// does not add its own delays to the server's latencies. The largest such
// age, the read lag, is kept in *readLag (a client-health signal).
func arrivalClock(now func() time.Duration, conn net.Conn, readLag *time.Duration) func() time.Duration {
	var rc interface {
		Age(time.Time) (time.Duration, bool)
	}
	if c := rxtime.Of(conn); c != nil {
		rc = c
	} else if c, ok := conn.(*ringnet.Conn); ok {
		rc = c
	} else {
		return now
	}
	return func() time.Duration {
		t := now()
		if age, ok := rc.Age(time.Now()); ok {
			if age > *readLag {
				*readLag = age
			}
			return t - age
		}
		return t
	}
}

// textPool recycles the buffers the generated text is collected in, so a
// request allocates its text once, at its final size.
var textPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledText is the largest text buffer kept for reuse.
const maxPooledText = 1 << 20

// stream folds the messages of one response into its record.
type stream struct {
	rec   *record.Record
	codec Codec
	what  string // "SSE message" or "response body", for errors
	text  []byte // the generated text so far
	err   error  // the first invalid message

	pooled *[]byte // the textPool entry text came from

	lastByte *atomic.Int64 // Config.LastByte
	exact    bool          // Config.ExactCounting
}

// message handles one response message received at t (taken when the read
// that completed it returned, before any parsing): an SSE message's data,
// or a non-streaming kind's whole body. The codec decodes it with one call;
// a message with output is a chunk (its time is recorded, its text
// appended). For OpenAI-style chunks Config.ExactCounting decides what
// counts: by default vLLM's rules (every chunk with choices is a token
// arrival; usage is read only from a chunk without choices), else only a
// chunk with text is an arrival and usage is read wherever it is (some
// servers put it in the last content chunk). It returns false to stop
// reading at an invalid message.
func (st *stream) message(data []byte, t time.Duration) bool {
	if st.lastByte != nil {
		st.lastByte.Store(int64(t))
	}
	if st.err != nil {
		return false // the response was unusable before its body (see startStream)
	}
	if bytes.Equal(data, doneMarker) {
		return true
	}
	n := len(st.text)
	m, text, err := st.codec.Decode(data, st.text)
	st.text = text
	if err != nil {
		st.err = fmt.Errorf("invalid JSON in %s: %w: %.200q", st.what, err, data)
		return false
	}
	rec := st.rec
	if m.Chunk {
		if st.exact {
			m.Output = len(text) > n || m.Reasoning
		} else if m.Output {
			m.HasOutputTokens, m.HasPromptTokens, m.HasReasoningTokens = false, false, false
		}
	}
	if m.Output {
		rec.Chunks = append(rec.Chunks, t)
		rec.End = t
	}
	if m.Reasoning {
		if rec.ReasoningChunks == 0 {
			rec.FirstReasoning = t
		}
		rec.ReasoningChunks++
	}
	if m.Answer && rec.FirstAnswer == 0 && rec.ReasoningChunks > 0 {
		rec.FirstAnswer = t
	}
	if m.HasReasoningTokens {
		rec.ReasoningTokens = m.ReasoningTokens
	}
	if m.HasOutputTokens {
		rec.OutputTokens = m.OutputTokens
	}
	if m.HasPromptTokens {
		rec.PromptLen = m.PromptTokens
	}
	if m.FinishReason != "" {
		rec.FinishReason = m.FinishReason
	}
	if m.StopReason != "" {
		rec.StopReason = json.RawMessage(m.StopReason)
	}
	return true
}

// statusError is vLLM's error text for a non-200 response (the reason
// phrase), followed by the start of the body so the cause is visible, and
// for a redirect, where it pointed (see redirectNote).
func statusError(resp *http.Response) string {
	reason := http.StatusText(resp.StatusCode)
	if reason == "" {
		reason = resp.Status
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	note := redirectNote(resp.StatusCode, resp.Header.Get("Location"))
	if b := strings.TrimSpace(string(body)); b != "" {
		return reason + ": " + b + note
	}
	return reason + note
}

// requestError is the error text of a transport failure; one that hit the
// request timeout (Config.Timeout, both HTTP paths word it "Client.Timeout
// ...") says so first.
func (c *Client) requestError(err error) string {
	s := requestError(err)
	if c.cfg.Timeout > 0 && strings.Contains(s, "Client.Timeout") && !errors.Is(err, context.Canceled) {
		return fmt.Sprintf("request timed out: no complete answer within %s (target.request_timeout): %s", c.cfg.Timeout, s)
	}
	return s
}

// requestError is the error text of a transport failure.
func requestError(err error) string {
	if errors.Is(err, context.Canceled) {
		return "request cancelled: " + err.Error()
	}
	if ue, ok := err.(*url.Error); ok && ue.Err == io.EOF {
		// net/http's word for a connection that ended before the
		// response head.
		err = &url.Error{Op: ue.Op, URL: ue.URL, Err: errClosedBeforeAnswer}
	}
	return err.Error()
}

// requestHeader adds to h what every request vbench makes carries: its
// product token (both HTTP paths send the same; a header may override it),
// the API key as a bearer token when set, then the user's headers in
// sorted order.
func requestHeader(h http.Header, apiKey string, headers map[string]string) http.Header {
	h.Set("User-Agent", "vbench/"+version.Version)
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.Set(k, headers[k])
	}
	return h
}
