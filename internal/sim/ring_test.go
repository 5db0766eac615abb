package sim

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"testing"
	"time"
)

// rawStream sends a streaming completion on a new connection and returns
// its body's bytes, with the creation times blanked, after checking the
// chunk framing.
func rawStream(t *testing.T, s *Server, id string, tokens int) string {
	t.Helper()
	c, err := net.Dial("tcp", s.URL()[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := fmt.Sprintf(`{"prompt":"hello","max_tokens":%d,"ignore_eos":true,"stream":true}`, tokens)
	if _, err := fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nX-Request-Id: %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", id, len(body), body); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// Read the chunks as they came, past the head net/http parsed.
	raw, err := readRawChunked(br)
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`"created":\d+`).ReplaceAllString(raw, `"created":0`)
}

// readRawChunked reads a chunked body up to and including its last chunk,
// checking each chunk's size line and CRLF, and returns the body.
func readRawChunked(br *bufio.Reader) (string, error) {
	var out []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return string(out), err
		}
		var n int
		if _, err := fmt.Sscanf(line, "%x\r\n", &n); err != nil {
			return string(out), fmt.Errorf("chunk size line %q: %v", line, err)
		}
		chunk := make([]byte, n+2)
		if _, err := ioReadFull(br, chunk); err != nil {
			return string(out), err
		}
		if string(chunk[n:]) != "\r\n" {
			return string(out), fmt.Errorf("chunk of %d bytes ends in %q", n, chunk[n:])
		}
		out = append(out, chunk[:n]...)
		if n == 0 {
			return string(out), nil
		}
	}
}

func ioReadFull(br *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := br.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// On Linux the stream loops send through io_uring, and what they send is
// byte for byte what write(2) sends. (Events that fell due together share
// a chunk, so the chunks themselves may differ with timing.)
func TestLoopRingSendsLikeWrite(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 100*time.Microsecond
	s := startServer(t, cfg)

	before := ringSends.Load()
	viaRing := rawStream(t, s, "same", 40)
	sent := ringSends.Load() - before

	useRing.Store(false)
	t.Cleanup(func() { useRing.Store(true) })
	viaWrite := rawStream(t, s, "same", 40)

	if viaRing != viaWrite {
		t.Errorf("io_uring sent %d bytes, write(2) %d; io_uring sent\n%s\nwrite(2) sent\n%s", len(viaRing), len(viaWrite), viaRing, viaWrite)
	}
	if runtime.GOOS == "linux" && sent == 0 && os.Getenv("VBENCH_ALLOW_NO_URING") != "1" {
		t.Errorf("no send went through io_uring (is it disabled? VBENCH_ALLOW_NO_URING=1 allows that)")
	}
}
