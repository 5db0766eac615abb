package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// On Linux the lean client reads streamed bodies through the poller.
func TestH1UsesPoller(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the poller is Linux-only")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{evA, evB, evDone} {
			_, _ = w.Write([]byte(ev))
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	c, err := New(Config{Backend: "openai", URL: srv.URL + "/v1/completions", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.h1 == nil {
		t.Fatal("no lean client for a plain http URL")
	}
	before := getPoller().served.Load()
	rec := sendOne(context.Background(), t, c, "id")
	if !rec.Success || len(rec.Chunks) != 2 {
		t.Fatalf("record: %+v", rec)
	}
	if getPoller().served.Load() == before {
		t.Error("the body was not read through the poller")
	}
}

// The lean client's own-goroutine body reader, used where the poller is
// not, passes the same tests.
func TestH1WithoutPoller(t *testing.T) {
	usePoller = false
	defer func() { usePoller = true }()
	t.Run("MatchesNetHTTP", TestH1MatchesNetHTTP)
	t.Run("CancelMidStream", TestH1CancelMidStream)
	t.Run("Timeout", TestH1Timeout)
	t.Run("Framings", TestH1Framings)
	t.Run("KeepAlive", TestH1KeepAlive)
}
