package backend

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// This file holds what the SSE and HTTP/1.1 fuzz targets share: read
// splitting and recording, an independent reference SSE framer, a
// reference chunked decoder (checked against net/http's) and a generator
// of realistic OpenAI-style streams with the events they must give.

// maxFuzzBody bounds the bodies the fuzz targets take: in small reads,
// framing a message whose unterminated last line is not a data line (a
// long comment) takes time that grows with the square of its length, and
// larger bodies find nothing smaller ones do not (the read buffer starts
// at minSSEBuffer and grows past it either way).
const maxFuzzBody = 4 * minSSEBuffer

// splitReads cuts body into the chunks a chunkReader returns one Read at a
// time: sizes are taken from splits in turn (0 is a Read that returns no
// bytes); no splits (or only zeros) is one Read of the whole body.
func splitReads(body []byte, splits []byte) []string {
	if bytes.Count(splits, []byte{0}) == len(splits) {
		if len(body) == 0 {
			return nil
		}
		return []string{string(body)}
	}
	var chunks []string
	for i := 0; len(body) > 0; i++ {
		n := min(int(splits[i%len(splits)]), len(body))
		chunks = append(chunks, string(body[:n]))
		body = body[n:]
	}
	return chunks
}

// rawRead is one Read as the reader under test saw it: its bytes (fewer
// than the chunk when the reader's buffer had less room) and the clock.
type rawRead struct {
	data string
	at   time.Duration
}

// recordingReader is a chunkReader that records the Reads made of it.
type recordingReader struct {
	chunkReader
	reads []rawRead
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.chunkReader.Read(p)
	if err == nil {
		r.reads = append(r.reads, rawRead{string(p[:n]), r.clock})
	}
	return n, err
}

// timeAt returns the clock of the read that brought byte off of the
// stream the reads make up, or -1 when no read did.
func timeAt(reads []rawRead, off int) time.Duration {
	for _, rd := range reads {
		if off < len(rd.data) {
			return rd.at
		}
		off -= len(rd.data)
	}
	return -1
}

// refSSE is the SSE framing written down plainly, independently of
// sseReader (no shared code), over the reads the reader under test made:
// a message is the lines up to a blank one ("\n" or "\r\n"); its data is
// its "data:" lines' values (one leading space dropped) joined by "\n",
// and a message without data lines gives no event. At the end of every
// read, an unterminated message whose data is already [DONE] or a
// complete JSON object (after trimming white space) is delivered at once,
// and then its blank line ends it without a second event. What is left at
// the end of the body is delivered at final.
func refSSE(reads []rawRead, final time.Duration) []event {
	var out []event
	var values []string         // the data values of the message's complete lines
	var partial strings.Builder // its unterminated last line
	early := false
	pending := func() []string {
		if v, ok := refDataValue(partial.String()); ok {
			return append(values[:len(values):len(values)], v)
		}
		return values
	}
	for _, rd := range reads {
		for rest := rd.data; rest != ""; {
			i := strings.IndexByte(rest, '\n')
			if i < 0 {
				partial.WriteString(rest)
				break
			}
			partial.WriteString(rest[:i])
			rest = rest[i+1:]
			line := strings.TrimSuffix(partial.String(), "\r")
			partial.Reset()
			if line != "" {
				if v, ok := refDataValue(line); ok {
					values = append(values, v)
				}
				continue
			}
			if !early && values != nil {
				out = append(out, event{strings.Join(values, "\n"), rd.at})
			}
			values, early = nil, false
		}
		if vals := pending(); !early && vals != nil && refMayEnd(vals) {
			if d := strings.Join(vals, "\n"); refComplete(d) {
				early = true
				out = append(out, event{d, rd.at})
			}
		}
	}
	if vals := pending(); !early && vals != nil {
		out = append(out, event{strings.Join(vals, "\n"), final})
	}
	return out
}

// refDataValue returns the value of a data line (without its line end).
func refDataValue(line string) (string, bool) {
	v, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "data:")
	return strings.TrimPrefix(v, " "), ok
}

// refMayEnd reports whether data made of values ends, before white
// space, in '}' or ']': a cheap test before refComplete.
func refMayEnd(values []string) bool {
	for i := len(values) - 1; i >= 0; i-- {
		if v := strings.TrimRightFunc(values[i], unicode.IsSpace); v != "" {
			return v[len(v)-1] == '}' || v[len(v)-1] == ']'
		}
	}
	return false
}

// refComplete reports whether data is [DONE] or one JSON object.
func refComplete(data string) bool {
	d := strings.TrimSpace(data)
	if d == "[DONE]" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(d), &obj) == nil && obj != nil
}

// sameEvents reports the first difference between two event lists, or "".
func sameEvents(got, want []event) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("event %d = %+v, want %+v (of %d and %d)", i, got[i], want[i], len(got), len(want))
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d events %+v, want %d %+v", len(got), got, len(want), want)
	}
	return ""
}

// refDechunk decodes a chunked body at the start of s, leniently, and
// returns the body, the offset in s of each body byte, and where the
// framing (with its trailer) ends. It is checked against net/http's
// decoder wherever that one reads the body.
func refDechunk(s string) (body string, pos []int, end int, ok bool) {
	var b strings.Builder
	p := 0
	line := func() (string, bool) {
		i := strings.IndexByte(s[p:], '\n')
		if i < 0 {
			return "", false
		}
		l := s[p : p+i]
		p += i + 1
		return l, true
	}
	for {
		l, ok := line()
		if !ok {
			return "", nil, 0, false
		}
		l, _, _ = strings.Cut(l, ";")
		n, err := strconv.ParseUint(strings.Trim(l, " \t\r"), 16, 62)
		if err != nil {
			return "", nil, 0, false
		}
		if n == 0 {
			for {
				l, ok := line()
				if !ok {
					return "", nil, 0, false
				}
				if strings.TrimRight(l, " \t\r") == "" {
					return b.String(), pos, p, true
				}
			}
		}
		if uint64(len(s)-p) < n+2 || s[p+int(n):p+int(n)+2] != "\r\n" {
			return "", nil, 0, false
		}
		b.WriteString(s[p : p+int(n)])
		for i := range int(n) {
			pos = append(pos, p+i)
		}
		p += int(n) + 2
	}
}

// bodyReads turns the reads of a response into the reads of its body:
// read k brings the body bytes whose raw offsets (pos) it covered.
func bodyReads(reads []rawRead, body string, pos []int) []rawRead {
	var out []rawRead
	off, j := 0, 0
	for _, rd := range reads {
		off += len(rd.data)
		start := j
		for j < len(pos) && pos[j] < off {
			j++
		}
		out = append(out, rawRead{body[start:j], rd.at})
	}
	return out
}

// h1Result is what the HTTP/1.1 response reader made of a response.
type h1Result struct {
	headErr   error
	status    int
	keepAlive bool
	metadata  []byte
	events    []event
	bodyErr   error
	done      bool
	extra     bool
	statusErr string
	reads     []rawRead
}

// runH1 reads one response from raw, split into reads by splits, as
// sendH1 does: the head, then the SSE body of a 200 or the error text of
// another status.
func runH1(raw []byte, splits []byte) h1Result {
	rr := &recordingReader{chunkReader: chunkReader{chunks: splitReads(raw, splits)}}
	r := &h1Response{conn: rr}
	r.s.init()
	defer r.s.release()
	now := func() time.Duration { return rr.clock }
	var res h1Result
	t0, err := r.readHead(nil, now)
	switch {
	case err != nil:
		res.headErr = err
	case r.status != http.StatusOK:
		res.statusErr = r.statusError()
	default:
		res.bodyErr = r.readBody(t0, now, func(data []byte, at time.Duration) bool {
			res.events = append(res.events, event{string(data), at})
			return true
		})
	}
	res.status, res.keepAlive, res.metadata, res.done, res.extra = r.status, r.keepAlive, r.metadata, r.done, r.extra
	res.reads = rr.reads
	return res
}

// netHTTPResponse reads raw as net/http does: the final response after
// any 1xx ones (how many were skipped is returned), its whole body, and
// the offset where its head ends.
func netHTTPResponse(raw []byte) (resp *http.Response, skipped int, headEnd int, body []byte, bodyErr error, err error) {
	rd := bytes.NewReader(raw)
	br := bufio.NewReader(rd)
	for {
		resp, err = http.ReadResponse(br, &http.Request{Method: "POST"})
		if err != nil {
			return nil, skipped, 0, nil, nil, err
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		skipped++
	}
	headEnd = len(raw) - rd.Len() - br.Buffered()
	body, bodyErr = io.ReadAll(resp.Body)
	return resp, skipped, headEnd, body, bodyErr, nil
}

// specReader hands out the bytes of a fuzz input as generator choices,
// zeros once they run out.
type specReader struct{ b []byte }

func (s *specReader) byte() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *specReader) intn(n int) int { return int(s.byte()) % n }

// text returns up to 31 bytes of the input, any bytes.
func (s *specReader) text() string {
	n := min(s.intn(32), len(s.b))
	t := string(s.b[:n])
	s.b = s.b[n:]
	return t
}

// OpenAI streaming chunk shapes (chat and legacy completions), as vLLM
// and OpenAI write them.
type (
	oaDelta struct {
		Role             string  `json:"role,omitempty"`
		Content          *string `json:"content,omitempty"`
		ReasoningContent *string `json:"reasoning_content,omitempty"`
	}
	oaChoice struct {
		Index        int      `json:"index"`
		Delta        *oaDelta `json:"delta,omitempty"`
		Text         *string  `json:"text,omitempty"`
		Logprobs     any      `json:"logprobs"`
		FinishReason *string  `json:"finish_reason"`
		StopReason   *string  `json:"stop_reason,omitempty"`
	}
	oaUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	oaChunk struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		Model   string     `json:"model"`
		Choices []oaChoice `json:"choices"`
		Usage   *oaUsage   `json:"usage,omitempty"`
	}
)

// genEvent is an event a generated stream must give: its data and the
// offset of the byte whose arrival makes it deliverable.
type genEvent struct {
	data  string
	ready int
}

// genSSE builds a realistic SSE body from a fuzz input: OpenAI chat or
// completions chunks with arbitrary texts, role, reasoning and finish
// chunks, a usage chunk, [DONE]; LF or CRLF line ends, "data:" with or
// without its space, comments and keep-alives, event/id/retry fields,
// JSON split over several data lines, non-JSON data, stray blank lines,
// and a final [DONE] with or without its blank line. It returns the body
// and the events it must give, whatever the read split.
func genSSE(spec []byte) (string, []genEvent) {
	s := &specReader{b: spec}
	flags := s.byte()
	eol := "\n"
	if flags&1 != 0 {
		eol = "\r\n"
	}
	sp := " "
	if flags&2 != 0 {
		sp = ""
	}
	chat := flags&4 == 0
	escapeHTML := flags&8 == 0
	var b strings.Builder
	var want []genEvent
	marshal := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(escapeHTML)
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
	// message writes fields, then data as data lines (cut before the
	// offsets in cuts), then the blank line unless open.
	message := func(fields []string, data string, cuts []int, open bool) {
		for _, f := range fields {
			b.WriteString(f + eol)
		}
		var values []string
		lastEnd := 0
		prev := 0
		for i, c := range append(cuts, len(data)) {
			piece := data[prev:c]
			prev = c
			line := "data:" + sp + piece
			if sp == "" && strings.HasPrefix(piece, " ") {
				line = "data: " + piece // a space after "data:" is not data
			}
			values = append(values, strings.TrimPrefix(line[len("data:"):], " "))
			b.WriteString(line)
			lastEnd = b.Len() - 1
			if i < len(cuts) || !open {
				b.WriteString(eol)
			}
		}
		d := strings.Join(values, "\n")
		if !open {
			b.WriteString(eol)
		}
		switch {
		case refComplete(d):
			want = append(want, genEvent{d, lastEnd})
		case open:
			want = append(want, genEvent{d, -1}) // at the end of the body
		default:
			want = append(want, genEvent{d, b.Len() - 1}) // at its blank line
		}
	}
	id := "chatcmpl-" + strconv.Itoa(int(s.byte()))
	object := "chat.completion.chunk"
	if !chat {
		id, object = "cmpl-"+strconv.Itoa(int(s.byte())), "text_completion"
	}
	chunk := func(c oaChoice) oaChunk {
		return oaChunk{ID: id, Object: object, Created: 1764835200, Model: "meta-llama/Llama-3.1-8B-Instruct", Choices: []oaChoice{c}}
	}
	content := func(text string) oaChoice {
		if chat {
			return oaChoice{Delta: &oaDelta{Content: &text}}
		}
		return oaChoice{Text: &text}
	}
	if chat {
		empty := ""
		message(nil, marshal(chunk(oaChoice{Delta: &oaDelta{Role: "assistant", Content: &empty}})), nil, false)
	}
	n := s.intn(16)
	for range n {
		switch k := s.byte(); k % 10 {
		case 0, 1, 2, 3:
			message(nil, marshal(chunk(content(s.text()))), nil, false)
		case 4:
			// A keep-alive comment, or fields without data: no event.
			fields := []string{": ping - " + strings.Map(noEOL, s.text())}
			if k&16 != 0 {
				fields = []string{"event: ping", "id: " + strconv.Itoa(int(k))}
			}
			for _, f := range fields {
				b.WriteString(f + eol)
			}
			b.WriteString(eol)
		case 5:
			// Data that is not JSON: delivered at its blank line.
			message(nil, "x"+strings.Map(noEOL, s.text()), nil, false)
		case 6:
			// JSON over several data lines, cut anywhere inside.
			d := marshal(chunk(content(s.text())))
			var cuts []int
			for c := 0; ; {
				step := s.intn(64)
				if step == 0 || c+step >= len(d) {
					break
				}
				c += step
				cuts = append(cuts, c)
			}
			message(nil, d, cuts, false)
		case 7:
			fields := []string{"event: message", "id: " + strconv.Itoa(int(s.byte())), "retry: 3000", ": " + strings.Map(noEOL, s.text())}
			message(fields[:1+s.intn(len(fields))], marshal(chunk(content(s.text()))), nil, false)
		case 8:
			text := s.text()
			if chat {
				message(nil, marshal(chunk(oaChoice{Delta: &oaDelta{ReasoningContent: &text}})), nil, false)
			} else {
				message(nil, marshal(chunk(content(text))), nil, false)
			}
		case 9:
			b.WriteString(eol) // a stray blank line
		}
	}
	if flags&16 == 0 {
		reason := []string{"stop", "length", "tool_calls"}[s.intn(3)]
		c := content("")
		c.FinishReason = &reason
		message(nil, marshal(chunk(c)), nil, false)
	}
	if flags&32 != 0 {
		u := chunk(oaChoice{})
		u.Choices = []oaChoice{}
		p, c := s.intn(200), s.intn(200)
		u.Usage = &oaUsage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}
		message(nil, marshal(u), nil, false)
	}
	if flags&64 == 0 {
		message(nil, "[DONE]", nil, flags&128 != 0)
	}
	return b.String(), want
}

// noEOL drops line ends from a text meant for one line.
func noEOL(r rune) rune {
	if r == '\r' || r == '\n' {
		return -1
	}
	return r
}

// wantEvents gives the events of a generated stream for the reads made of
// it, the offsets of whose bytes start at base.
func wantEvents(gen []genEvent, reads []rawRead, base int, final time.Duration) []event {
	want := make([]event, len(gen))
	for i, g := range gen {
		at := final
		if g.ready >= 0 {
			at = timeAt(reads, base+g.ready)
		}
		want[i] = event{g.data, at}
	}
	return want
}

// FuzzReadSSEStream feeds realistic generated streams (see genSSE), split
// into reads of fuzzed sizes, to readSSE: it must give exactly the events
// the generator wrote, each stamped with the read that brought the byte
// that completed it, and agree with the reference framer.
func FuzzReadSSEStream(f *testing.F) {
	f.Add([]byte{0, 1, 12, 0, 5, 'H', 'e', 'l', 'l', 'o', 1, 1, '!'}, []byte{7})
	f.Add([]byte{1, 9, 8, 6, 20, 'l', 'o', 'n', 'g', ' ', 'e', 'n', 'o', 'u', 'g', 'h', ' ', 't', 'e', 'x', 't', ' ', '{', '}', '"', '\\', 3, 5, 9, 0}, []byte{1, 2, 3})
	f.Add([]byte{2 | 4 | 32, 3, 10, 4, 3, 'a', 'b', 'c', 5, 4, 'd', '\n', 'e', '}', 7, 3, 2, 'x', 'y', 9, 9, 8, 2, 'h', 'i'}, []byte{0, 13})
	f.Add([]byte{1 | 8 | 128, 0, 4, 0, 6, 0xe2, 0x82, 0xac, 'a', 0xff, '<'}, []byte{})
	f.Add([]byte{64 | 16, 2, 4, 4, 16, 5, 0}, []byte{255, 1})
	f.Fuzz(func(t *testing.T, spec, splits []byte) {
		body, gen := genSSE(spec)
		rr := &recordingReader{chunkReader: chunkReader{chunks: splitReads([]byte(body), splits)}}
		var got []event
		if err := readSSE(rr, func() time.Duration { return rr.clock }, func(data []byte, at time.Duration) bool {
			got = append(got, event{string(data), at})
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if d := sameEvents(got, wantEvents(gen, rr.reads, 0, rr.clock)); d != "" {
			t.Fatalf("body %q: %s", body, d)
		}
		if d := sameEvents(got, refSSE(rr.reads, rr.clock)); d != "" {
			t.Fatalf("body %q: against the reference: %s", body, d)
		}
	})
}

// FuzzH1Stream wraps generated streams (see genSSE) in realistic HTTP/1.1
// and HTTP/1.0 responses (chunked with fuzzed chunk sizes, extensions and
// trailers, Content-Length, or read to close; an interim 100 Continue;
// the headers vLLM and OpenAI send) split into reads of fuzzed sizes: the
// response reader must give exactly the generated events, stamped with
// the read that brought the byte that completed each, read the body to
// its end and keep the connection exactly when it may, and net/http must
// read the same status and body.
func FuzzH1Stream(f *testing.F) {
	f.Add([]byte{0, 1, 12, 0, 5, 'H', 'e', 'l', 'l', 'o', 1, 1, '!'}, []byte{0, 7, 3}, []byte{7})
	f.Add([]byte{1, 9, 8, 6, 20, 'l', 'o', 'n', 'g', ' ', 'e', 'n', 'o', 'u', 'g', 'h', ' ', 't', 'e', 'x', 't', 3, 5, 9, 0}, []byte{1 | 4 | 8 | 16, 1, 2, 40}, []byte{1, 2, 3})
	f.Add([]byte{2 | 4 | 32, 3, 10, 4, 3, 'a', 'b', 'c', 5, 4, 'd', '\n', 'e', '}'}, []byte{2, 0}, []byte{0, 13})
	f.Add([]byte{1 | 128, 0, 4, 0, 6}, []byte{3 | 32 | 64}, []byte{})
	f.Add([]byte{16, 2, 4, 4, 16, 5, 0}, []byte{1 | 2 | 128, 9}, []byte{255, 1})
	f.Fuzz(func(t *testing.T, spec, framing, splits []byte) {
		body, gen := genSSE(spec)
		fr := &specReader{b: framing}
		flags := fr.byte()
		http10 := flags&64 != 0
		var head strings.Builder
		if flags&32 != 0 {
			head.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
		}
		proto := "HTTP/1.1"
		if http10 {
			proto = "HTTP/1.0"
		}
		head.WriteString(proto + " 200 OK\r\n")
		headers := []string{"date: Thu, 04 Dec 2026 08:00:00 GMT", "server: uvicorn", "content-type: text/event-stream; charset=utf-8"}
		if flags&128 != 0 {
			headers = append(headers, "x-request-id: "+strconv.Itoa(int(fr.byte())), "Cache-Control: no-cache")
		}
		wantMeta := ""
		if flags&16 != 0 {
			wantMeta = `{"usage": {"prompt_tokens": 7}}`
			headers = append(headers, "metadata: "+wantMeta)
		}
		keep := !http10
		switch fr.intn(4) {
		case 1:
			headers = append(headers, "Connection: close")
			keep = false
		case 2:
			headers = append(headers, "connection: keep-alive")
			keep = true
		}
		framed := body
		var pos []int
		switch mode := flags & 3; {
		case mode == 0 && !http10 || mode == 3:
			// Chunked, in chunks of fuzzed sizes.
			te := "Transfer-Encoding: chunked"
			if http10 {
				te = "transfer-encoding: chunked" // ignored: HTTP/1.0 has no transfer codings
				headers = append(headers, "Content-Length: "+strconv.Itoa(len(body)))
			}
			headers = append(headers, te)
			if http10 {
				break
			}
			var c strings.Builder
			for rest := body; len(rest) > 0; {
				n := len(rest) // when the framing input runs out
				if len(fr.b) > 0 {
					n = min(int(fr.byte())*(1+int(flags>>2&3)*16)+1, n)
				}
				size := strconv.FormatInt(int64(n), 16)
				if fr.byte()&1 != 0 {
					size = strings.ToUpper("00" + size)
				}
				if ext := fr.byte(); ext&3 == 3 {
					size += ";ext=" + strconv.Itoa(int(ext))
				}
				c.WriteString(size + "\r\n")
				for i := range n {
					pos = append(pos, c.Len()+i)
				}
				c.WriteString(rest[:n] + "\r\n")
				rest = rest[n:]
			}
			c.WriteString("0\r\n")
			if flags&4 != 0 {
				c.WriteString("X-Trailer: done\r\n")
			}
			c.WriteString("\r\n")
			framed = c.String()
		case mode == 1:
			headers = append(headers, "content-length: "+strconv.Itoa(len(body)))
		default:
			keep = false // read to close
		}
		if pos == nil {
			for i := range len(body) {
				pos = append(pos, i)
			}
		}
		// Header order is up to the server.
		for i := len(headers) - 1; i > 0; i-- {
			j := fr.intn(i + 1)
			headers[i], headers[j] = headers[j], headers[i]
		}
		for _, h := range headers {
			head.WriteString(h + "\r\n")
		}
		head.WriteString("\r\n")
		raw := []byte(head.String() + framed)
		start := head.Len()

		res := runH1(raw, splits)
		if res.headErr != nil || res.bodyErr != nil || res.status != 200 || !res.done || res.extra {
			t.Fatalf("%q: head error %v, status %d, body error %v, done %v, extra %v", raw, res.headErr, res.status, res.bodyErr, res.done, res.extra)
		}
		if res.keepAlive != keep {
			t.Fatalf("%q: keep-alive %v, want %v", raw, res.keepAlive, keep)
		}
		if string(res.metadata) != wantMeta || wantMeta == "" && res.metadata != nil {
			t.Fatalf("%q: metadata %q, want %q", raw, res.metadata, wantMeta)
		}
		reads := bodyReads(res.reads, body, shift(pos, start))
		final := timeAt(res.reads, len(raw)-1)
		if d := sameEvents(res.events, wantEvents(gen, reads, 0, final)); d != "" {
			t.Fatalf("%q: %s", raw, d)
		}
		if d := sameEvents(res.events, refSSE(reads, final)); d != "" {
			t.Fatalf("%q: against the reference: %s", raw, d)
		}
		resp, _, _, got, err, herr := netHTTPResponse(raw)
		if herr != nil || err != nil || resp.StatusCode != 200 || string(got) != body || resp.Close == keep {
			t.Fatalf("%q: net/http reads status %v, close %v, body %q (%v, %v)", raw, resp.StatusCode, resp.Close, got, err, herr)
		}
	})
}

// shift adds d to every offset.
func shift(pos []int, d int) []int {
	out := make([]int, len(pos))
	for i, p := range pos {
		out[i] = p + d
	}
	return out
}
