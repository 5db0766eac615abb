package hub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The default client must not bound a whole download: a multi-gigabyte
// dataset file takes minutes (http.Client.Timeout covers the body too).
func TestDefaultClientHasNoOverallTimeout(t *testing.T) {
	if got := (&Client{}).httpClient().Timeout; got != 0 {
		t.Errorf("default http.Client.Timeout = %s, want 0 (a download stalls out instead)", got)
	}
}

// A download that stops receiving fails after StallTimeout instead of
// hanging, names the stall, and leaves nothing in the cache.
func TestDownloadStalls(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Repo-Commit", commit)
		w.Header().Set("ETag", `"abc"`)
		if r.Method == http.MethodHead {
			return
		}
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := &Client{Endpoint: srv.URL, CacheDir: filepath.Join(t.TempDir(), "hub"), StallTimeout: 50 * time.Millisecond}
	_, err := c.DownloadDataset(context.Background(), "org/data", "", "big.parquet")
	if err == nil || !strings.Contains(err.Error(), "stalled") {
		t.Fatalf("err = %v, want the download to have stalled", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("err = %v: a stall is not the caller's cancellation", err)
	}
	if m, _ := filepath.Glob(filepath.Join(c.CacheDir, "datasets--org--data", "blobs", "*")); len(m) != 0 {
		t.Errorf("left in the cache: %v", m)
	}
}

// File names are URL-escaped as huggingface_hub quotes them: a '#', '?',
// '%' or space in a dataset file's name must reach the Hub as part of the
// path, not end it.
func TestDownloadEscapesFileName(t *testing.T) {
	h := newFakeHub(t)
	names := []string{"data/C# code.jsonl", "data/what?.json", "data/100%.json"}
	files := map[string]string{}
	for i, n := range names {
		files[n] = `{"i":` + string(rune('0'+i)) + "}\n"
	}
	h.Add("datasets/org/data", "main", files)
	c := clientFor(t, h)
	for _, n := range names {
		p, err := c.DownloadDataset(context.Background(), "org/data", "", n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if got := readFile(t, p); got != files[n] {
			t.Errorf("%s: content %q, want %q", n, got, files[n])
		}
	}
}
