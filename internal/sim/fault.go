package sim

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultKind is a fault the simulator can inject into a model request.
type FaultKind string

// The fault kinds.
const (
	// Fault500 answers HTTP 500 Internal Server Error.
	Fault500 FaultKind = "500"
	// Fault503 answers HTTP 503 Service Unavailable.
	Fault503 FaultKind = "503"
	// Fault429 answers HTTP 429 Too Many Requests with Retry-After: 1.
	Fault429 FaultKind = "429"
	// FaultReset resets the connection (TCP RST) after reading the
	// request, before any response header. A request that comes again
	// with the same X-Request-Id (a client's resend: a reset of a reused
	// connection looks like a server that closed it idle with the request
	// unread) is reset again, once, whether the fault hits it or not.
	FaultReset FaultKind = "reset"
	// FaultStall reads the request and never answers, until the client
	// gives up (its request timeout) or the server shuts down.
	FaultStall FaultKind = "stall"
	// FaultDisconnect cuts a streamed answer after the first half of its
	// tokens (rounded down): the connection is closed without the
	// stream's end, as a crashing server does. A request that does not
	// stream is reset.
	FaultDisconnect FaultKind = "disconnect"
	// FaultNoSpace writes a stream's "data:" lines without the space
	// after the colon (valid SSE).
	FaultNoSpace FaultKind = "sse-nospace"
	// FaultComments writes an SSE comment line (": keep-alive") before
	// each write of a stream (valid SSE).
	FaultComments FaultKind = "sse-comments"
	// FaultCRLF ends a stream's lines with CRLF (valid SSE).
	FaultCRLF FaultKind = "sse-crlf"
	// FaultNoDone ends a completions or chat stream without its
	// "data: [DONE]" event.
	FaultNoDone FaultKind = "no-done"
	// FaultBadJSON corrupts the JSON of a stream's first event.
	FaultBadJSON FaultKind = "bad-json"
	// FaultHuge pads a stream's first event with a hugePad-byte field
	// (valid JSON the client ignores).
	FaultHuge FaultKind = "huge"
	// FaultSplit writes a stream in pieces of splitPiece bytes, each its
	// own write and chunk, so every event arrives across many writes.
	FaultSplit FaultKind = "split"
	// FaultSlowHeaders holds the answer back for Fault.Delay (default
	// defaultSlowHeaders) after the request is read: the response header,
	// and the token schedule, start that much later.
	FaultSlowHeaders FaultKind = "slow-headers"
	// FaultUsageInLast puts a completions or chat stream's usage in its
	// last content chunk instead of a chunk of its own, as some servers
	// do.
	FaultUsageInLast FaultKind = "usage-in-last"
	// FaultEmptyFinal ends each choice of a completions or chat stream
	// with a chunk that carries only its finish reason (an empty delta or
	// text), after its last token's chunk, as OpenAI's API does.
	FaultEmptyFinal FaultKind = "empty-final"
)

// Sizes of the huge and split faults, and the default delay of the slow
// headers.
const (
	hugePad            = 1 << 20
	splitPiece         = 7
	defaultSlowHeaders = time.Second
)

// streamQuirk reports whether k changes how a stream is written (rather
// than whether the request is answered).
func (k FaultKind) streamQuirk() bool {
	switch k {
	case FaultNoSpace, FaultComments, FaultCRLF, FaultNoDone, FaultBadJSON, FaultHuge, FaultSplit,
		FaultUsageInLast, FaultEmptyFinal:
		return true
	}
	return false
}

// faultKinds are the kinds ParseFault accepts, in the order help lists
// them.
var faultKinds = []FaultKind{Fault500, Fault503, Fault429, FaultReset, FaultStall, FaultDisconnect,
	FaultNoSpace, FaultComments, FaultCRLF, FaultNoDone, FaultBadJSON, FaultHuge, FaultSplit,
	FaultSlowHeaders, FaultUsageInLast, FaultEmptyFinal}

// Fault is one injected fault and the model requests it hits: every
// Every-th (by arrival count, 1-based), or each with probability Rate
// (a deterministic draw from the seed and the arrival count). Exactly one
// of Every and Rate is set. Delay is a slow-headers fault's hold-back (0:
// defaultSlowHeaders).
type Fault struct {
	Kind  FaultKind
	Every int
	Rate  float64
	Delay time.Duration
}

// ParseFault reads a fault spec KIND:every=N or KIND:rate=P, KIND one of
// faultKinds, N a positive integer, P in (0, 1]; slow-headers may add
// ",delay=D", D a positive Go duration ("500ms").
func ParseFault(s string) (Fault, error) {
	kind, sel, ok := strings.Cut(s, ":")
	sel, delay, hasDelay := strings.Cut(sel, ",")
	f := Fault{Kind: FaultKind(kind)}
	known := false
	for _, k := range faultKinds {
		known = known || f.Kind == k
	}
	names := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		names[i] = string(k)
	}
	switch {
	case !known:
		return Fault{}, fmt.Errorf("fault %q: the kind must be one of %s", s, strings.Join(names, ", "))
	case !ok:
		return Fault{}, fmt.Errorf("fault %q: say which requests it hits: %s:every=N or %s:rate=P", s, kind, kind)
	}
	key, val, _ := strings.Cut(sel, "=")
	switch key {
	case "every":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return Fault{}, fmt.Errorf("fault %q: every must be a positive integer", s)
		}
		f.Every = n
	case "rate":
		p, err := strconv.ParseFloat(val, 64)
		if err != nil || !(p > 0 && p <= 1) {
			return Fault{}, fmt.Errorf("fault %q: rate must be a number in (0, 1]", s)
		}
		f.Rate = p
	default:
		return Fault{}, fmt.Errorf("fault %q: after the kind comes every=N or rate=P", s)
	}
	if hasDelay {
		key, val, _ := strings.Cut(delay, "=")
		d, err := time.ParseDuration(val)
		switch {
		case f.Kind != FaultSlowHeaders:
			return Fault{}, fmt.Errorf("fault %q: only slow-headers takes more than every=N or rate=P", s)
		case key != "delay":
			return Fault{}, fmt.Errorf("fault %q: after every=N or rate=P slow-headers takes only delay=D", s)
		case err != nil || d <= 0:
			return Fault{}, fmt.Errorf("fault %q: delay must be a positive duration such as 500ms", s)
		}
		f.Delay = d
	}
	return f, nil
}

// String is the fault's spec, as ParseFault reads it.
func (f Fault) String() string {
	s := fmt.Sprintf("%s:rate=%s", f.Kind, strconv.FormatFloat(f.Rate, 'g', -1, 64))
	if f.Every > 0 {
		s = fmt.Sprintf("%s:every=%d", f.Kind, f.Every)
	}
	if f.Delay > 0 {
		s += ",delay=" + f.Delay.String()
	}
	return s
}

// delay is a slow-headers fault's hold-back.
func (f *Fault) delay() time.Duration {
	if f.Delay > 0 {
		return f.Delay
	}
	return defaultSlowHeaders
}

// resendReset is the fault of a request a reset fault reset before,
// coming again with the same X-Request-Id (a client's resend): it is
// reset once more, and then forgotten.
var resendReset = Fault{Kind: FaultReset, Every: 1}

// faultFor returns the first of the configured faults that hits model
// request seq with X-Request-Id id, or nil: a request a reset fault reset
// is reset again when it comes back (once).
func (s *Server) faultFor(seq uint64, id string) *Fault {
	if id != "" {
		if _, ok := s.resetIDs.LoadAndDelete(id); ok {
			return &resendReset
		}
	}
	for i := range s.cfg.Faults {
		f := &s.cfg.Faults[i]
		switch {
		case f.Every > 0 && seq%uint64(f.Every) == 0:
			return f
		case f.Rate > 0 && unit(hash3(s.cfg.Seed, saltFault, seq, uint64(i))) < f.Rate:
			return f
		}
	}
	return nil
}

// inject carries out fault f on request seq, whose body has been read,
// and reports whether the request has been dealt with (it has, unless the
// connection could not be taken over for a reset, or f is a disconnect or
// a stream quirk, which the stream carries out: see admitted.stream).
func (s *Server) inject(w http.ResponseWriter, r *http.Request, in *admitted, f *Fault) bool {
	switch {
	case f.Kind == FaultDisconnect || f.Kind.streamQuirk():
		in.stream = f.Kind
		return false
	case f.Kind == FaultSlowHeaders:
		// Hold the answer back; the schedule starts when it is let go.
		t := time.NewTimer(f.delay())
		defer t.Stop()
		select {
		case <-t.C:
			in.t0 = in.t0.Add(f.delay())
			return false
		case <-r.Context().Done():
			s.metrics.finished[finishAbort].Add(1) // the client gave up
			return true
		}
	}
	s.metrics.injected.Add(1)
	why := fmt.Sprintf("simulated fault: request %d (%s)", in.seq, f)
	switch f.Kind {
	case Fault500:
		in.fail(&apiError{http.StatusInternalServerError, "InternalServerError", why})
	case Fault503:
		in.fail(&apiError{http.StatusServiceUnavailable, "ServiceUnavailable", why})
	case Fault429:
		w.Header().Set("Retry-After", "1")
		in.fail(&apiError{http.StatusTooManyRequests, "TooManyRequests", why})
	case FaultReset:
		// Noted before the reset: the client may resend at once.
		remember := in.reqID != "" && f != &resendReset
		if remember {
			s.resetIDs.Store(in.reqID, struct{}{}) // its resend is reset too, once
		}
		if !resetConn(w) {
			if remember {
				s.resetIDs.Delete(in.reqID)
			}
			return false
		}
		return true
	case FaultStall:
		// The request's context ends when the client closes the
		// connection or Close closes it.
		<-r.Context().Done()
	}
	return true
}

// resetConn closes the request's connection with a TCP RST (no FIN, no
// response), reporting false when it cannot be taken over.
func resetConn(w http.ResponseWriter) bool {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	// Close with RST, not FIN. The connection is a *net.TCPConn, or
	// wraps one (rxtime.Conn) and so has its SetLinger.
	if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
	return true
}

// cutRemaining returns how many of a disconnected stream's total tokens
// are left unwritten when its connection is cut: it writes the first half,
// rounded down.
func cutRemaining(total int) int { return total - total/2 }

// quirked returns a stream write b (its events from off on; what is
// before off is the chunk header's room) as quirk k writes it. first says
// that b holds the stream's first event.
func quirked(k FaultKind, b []byte, off int, first bool) []byte {
	head, events := b[:off], b[off:]
	switch k {
	case FaultNoSpace:
		events = bytes.ReplaceAll(events, []byte("data: "), []byte("data:"))
	case FaultComments:
		events = append([]byte(": keep-alive\n\n"), events...)
	case FaultCRLF:
		events = bytes.ReplaceAll(events, []byte("\n"), []byte("\r\n"))
	case FaultNoDone:
		events = bytes.ReplaceAll(events, []byte("data: [DONE]\n\n"), nil)
	case FaultBadJSON:
		if first {
			events = bytes.Replace(events, []byte("data: {"), []byte("data: {,"), 1)
		}
	case FaultHuge:
		if first {
			events = bytes.Replace(events, []byte("data: {"), hugeEventStart(), 1)
		}
	default:
		return b
	}
	return append(append(make([]byte, 0, len(head)+len(events)+2), head...), events...)
}

// hugeEventStart is what a huge fault writes in place of the first
// event's "data: {": the start of a JSON object with a padding field of
// hugePad bytes.
var hugeEventStart = sync.OnceValue(func() []byte {
	b := append([]byte(`data: {"padding":"`), bytes.Repeat([]byte("x"), hugePad)...)
	return append(b, `",`...)
})
