package hub

import (
	"context"
	"errors"
	"fmt"
	"github.com/vbench/vbench/internal/hub/hubtest"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newFakeHub starts the loopback fake hub (hubtest).
func newFakeHub(t *testing.T) *hubtest.Hub { return hubtest.New(t) }

// clientFor returns a client for the fake hub with a fresh cache.
func clientFor(t *testing.T, h *hubtest.Hub) *Client {
	return &Client{Endpoint: h.URL(), CacheDir: filepath.Join(t.TempDir(), "hub")}
}

func etagOf(content string) string { return hubtest.EtagOf(content) }

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDownloadLayout(t *testing.T) {
	h := newFakeHub(t)
	commit := h.Add("org/model", "main", map[string]string{"tokenizer.json": `{"a":1}`})
	c := clientFor(t, h)
	p, err := c.Download(context.Background(), "org/model", "", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.CacheDir, "models--org--model")
	if want := filepath.Join(dir, "snapshots", commit, "tokenizer.json"); p != want {
		t.Errorf("path = %s, want %s", p, want)
	}
	if got := readFile(t, p); got != `{"a":1}` {
		t.Errorf("content = %q", got)
	}
	link, err := os.Readlink(p)
	if err != nil {
		t.Fatalf("the snapshot entry is not a symlink: %v", err)
	}
	if want := filepath.Join("..", "..", "blobs", etagOf(`{"a":1}`)); link != want {
		t.Errorf("symlink = %s, want %s", link, want)
	}
	if got := readFile(t, filepath.Join(dir, "refs", "main")); got != commit {
		t.Errorf("refs/main = %q, want %q", got, commit)
	}
	if n := h.Count("GET"); n != 1 {
		t.Errorf("%d GET requests, want 1", n)
	}
}

func TestDownloadReusesCache(t *testing.T) {
	h := newFakeHub(t)
	commit := h.Add("org/model", "main", map[string]string{"tokenizer.json": "v1"})
	c := clientFor(t, h)
	ctx := context.Background()
	first, err := c.Download(ctx, "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Download(ctx, "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("second download at %s, first at %s", second, first)
	}
	if n := h.Count("GET"); n != 1 {
		t.Errorf("%d GET requests, want 1 (the second download must reuse the cache)", n)
	}
	// A commit hash that is cached needs no request at all.
	heads := h.Count("HEAD")
	if _, err := c.Download(ctx, "org/model", commit, "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if h.Count("HEAD") != heads || h.Count("GET") != 1 {
		t.Error("a cached commit hash caused a request")
	}
	// A new file with the same content at another commit reuses the blob.
	h.Add("org/model", "dev", map[string]string{"tokenizer.json": "v1"})
	if _, err := c.Download(ctx, "org/model", "dev", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if n := h.Count("GET"); n != 1 {
		t.Errorf("%d GET requests, want 1 (same blob)", n)
	}
}

func TestDownloadRevisions(t *testing.T) {
	h := newFakeHub(t)
	mainC := h.Add("org/model", "main", map[string]string{"f.json": "main"})
	devC := h.Add("org/model", "dev", map[string]string{"f.json": "dev"})
	prC := h.Add("org/model", "refs/pr/1", map[string]string{"f.json": "pr"})
	c := clientFor(t, h)
	tests := []struct {
		rev, want, commit string
	}{
		{"", "main", mainC},
		{"main", "main", mainC},
		{"dev", "dev", devC},
		{mainC, "main", mainC},
		{"refs/pr/1", "pr", prC},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			p, err := c.Download(context.Background(), "org/model", tt.rev, "f.json")
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, p); got != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
			if !strings.Contains(p, tt.commit) {
				t.Errorf("path %s is not under commit %s", p, tt.commit)
			}
		})
	}
	if got := readFile(t, filepath.Join(c.RepoDir("org/model"), "refs", "refs", "pr", "1")); got != prC {
		t.Errorf("refs/refs/pr/1 = %q", got)
	}
	_, err := c.Download(context.Background(), "org/model", "nope", "f.json")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "revision not found") {
		t.Errorf("unknown revision: %v", err)
	}
}

func TestOffline(t *testing.T) {
	h := newFakeHub(t)
	h.Add("org/model", "main", map[string]string{"tokenizer.json": "cached"})
	c := clientFor(t, h)
	ctx := context.Background()
	if _, err := c.Download(ctx, "org/model", "main", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Download(ctx, "org/model", "main", "absent.json"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent file: %v", err)
	}
	before := h.Count("HEAD") + h.Count("GET")
	c.Offline = true

	t.Run("hit", func(t *testing.T) {
		p, err := c.Download(ctx, "org/model", "main", "tokenizer.json")
		if err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); got != "cached" {
			t.Errorf("content = %q", got)
		}
	})
	t.Run("known absent", func(t *testing.T) {
		_, err := c.Download(ctx, "org/model", "main", "absent.json")
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("err = %v, want ErrNotFound", err)
		}
	})
	for _, tt := range []struct{ name, repo, rev, file string }{
		{"miss file", "org/model", "main", "other.json"},
		{"miss revision", "org/model", "dev", "tokenizer.json"},
		{"miss repo", "org/other", "main", "tokenizer.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Download(ctx, tt.repo, tt.rev, tt.file)
			if !errors.Is(err, ErrOffline) {
				t.Fatalf("err = %v, want ErrOffline", err)
			}
			for _, want := range []string{tt.repo, tt.file, "HF_HUB_OFFLINE"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %s", err, want)
				}
			}
		})
	}
	if after := h.Count("HEAD") + h.Count("GET"); after != before {
		t.Errorf("offline mode made %d requests", after-before)
	}
}

func TestUnreachableHubUsesCache(t *testing.T) {
	h := newFakeHub(t)
	h.Add("org/model", "main", map[string]string{"tokenizer.json": "cached"})
	c := clientFor(t, h)
	ctx := context.Background()
	if _, err := c.Download(ctx, "org/model", "main", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	h.Srv.Close()
	p, err := c.Download(ctx, "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatalf("hub down, cached file: %v", err)
	}
	if got := readFile(t, p); got != "cached" {
		t.Errorf("content = %q", got)
	}
	if _, err := c.Download(ctx, "org/model", "main", "other.json"); !errors.Is(err, ErrUnreachable) {
		t.Errorf("hub down, uncached file: %v, want ErrUnreachable", err)
	}
}

func TestUnauthorized(t *testing.T) {
	h := newFakeHub(t)
	h.Token = "hf_right"
	h.Add("org/private", "main", map[string]string{"tokenizer.json": "secret"})
	h.Repos["org/private"].Private = true
	c := clientFor(t, h)
	_, err := c.Download(context.Background(), "org/private", "main", "tokenizer.json")
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	for _, want := range []string{"401", "HF_TOKEN", "org/private"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	c.SetToken("hf_right")
	p, err := c.Download(context.Background(), "org/private", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "secret" {
		t.Errorf("content = %q", got)
	}
}

// TestTokenNeverShown checks that no error carries the token, whatever
// goes wrong, while the token does reach the Hub.
func TestTokenNeverShown(t *testing.T) {
	const secret = "hf_SECRETtoken1234567890"
	h := newFakeHub(t)
	h.Token = "hf_other"
	h.Add("org/private", "main", map[string]string{"f": "x"})
	h.Repos["org/private"].Private = true
	h.Add("org/public", "main", map[string]string{"f": "x"})
	c := clientFor(t, h)
	c.SetToken(secret)
	ctx := context.Background()
	var errs []error
	for _, call := range []struct{ repo, rev, file string }{
		{"org/private", "main", "f"},   // 401
		{"org/public", "main", "nope"}, // 404 entry
		{"org/public", "nope", "f"},    // 404 revision
		{"org/none", "main", "f"},      // 404 repo
		{"bad id!", "main", "f"},       // invalid id
	} {
		_, err := c.Download(ctx, call.repo, call.rev, call.file)
		errs = append(errs, err)
	}
	h.Srv.Close()
	_, err := c.Download(ctx, "org/public", "main", "other") // unreachable
	errs = append(errs, err)
	c.Offline = true
	_, err = c.Download(ctx, "org/public", "main", "other") // offline miss
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Errorf("call %d: no error", i)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(fmt.Sprintf("%#v", err), secret) {
			t.Errorf("call %d: the error shows the token: %v", i, err)
		}
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(format, c); strings.Contains(s, secret) {
			t.Errorf("fmt %s of the client shows the token: %s", format, s)
		}
	}
	h.Mu.Lock()
	defer h.Mu.Unlock()
	if len(h.Auth) == 0 || h.Auth[0] != "Bearer "+secret {
		t.Errorf("the token was not sent: %q", h.Auth)
	}
}

func TestLargeFileRedirect(t *testing.T) {
	h := newFakeHub(t)
	content := strings.Repeat("large ", 1000)
	h.Add("org/model", "main", map[string]string{"tokenizer.json": content})
	h.Repos["org/model"].Large["tokenizer.json"] = true
	c := clientFor(t, h)
	// The storage is another port of the same address: the token, which
	// the Hub gets, must not reach it (net/http alone would send it).
	const token = "hf_SECRETtoken"
	c.SetToken(token)
	p, err := c.Download(context.Background(), "org/model", "main", "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != content {
		t.Errorf("content differs (%d bytes)", len(got))
	}
	if link, _ := os.Readlink(p); !strings.HasSuffix(link, etagOf(content)) {
		t.Errorf("blob %s is not named by X-Linked-Etag", link)
	}
	if n := h.Count("STORAGE"); n != 1 {
		t.Errorf("%d storage requests, want 1 (HEAD must not follow the redirect)", n)
	}
	h.Mu.Lock()
	defer h.Mu.Unlock()
	if len(h.Auth) == 0 || h.Auth[0] != "Bearer "+token {
		t.Errorf("the Hub got Authorization %q, want the token", h.Auth)
	}
	if len(h.StorageAuth) != 0 {
		t.Errorf("the storage got Authorization %q, want none", h.StorageAuth)
	}
}

func TestFromEnv(t *testing.T) {
	home, _ := os.UserHomeDir()
	tokenDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(tokenDir, "token"), []byte("hf_fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                string
		env                 map[string]string
		cache, endpoint     string
		offline, tokenIsSet bool
	}{
		{"defaults", map[string]string{"HF_HOME": ""}, filepath.Join(home, ".cache", "huggingface", "hub"), DefaultEndpoint, false, false},
		{"HF_HOME", map[string]string{"HF_HOME": "/h"}, "/h/hub", DefaultEndpoint, false, false},
		{"XDG", map[string]string{"XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub", DefaultEndpoint, false, false},
		{"HF_HUB_CACHE wins", map[string]string{"HF_HOME": "/h", "HF_HUB_CACHE": "/c"}, "/c", DefaultEndpoint, false, false},
		{"endpoint", map[string]string{"HF_HOME": "/h", "HF_ENDPOINT": "http://mirror:8080/"}, "/h/hub", "http://mirror:8080", false, false},
		{"offline 1", map[string]string{"HF_HOME": "/h", "HF_HUB_OFFLINE": "1"}, "/h/hub", DefaultEndpoint, true, false},
		{"offline true", map[string]string{"HF_HOME": "/h", "HF_HUB_OFFLINE": "True"}, "/h/hub", DefaultEndpoint, true, false},
		{"offline 0", map[string]string{"HF_HOME": "/h", "HF_HUB_OFFLINE": "0"}, "/h/hub", DefaultEndpoint, false, false},
		{"transformers offline", map[string]string{"HF_HOME": "/h", "TRANSFORMERS_OFFLINE": "yes"}, "/h/hub", DefaultEndpoint, true, false},
		{"token", map[string]string{"HF_HOME": "/h", "HF_TOKEN": "hf_x"}, "/h/hub", DefaultEndpoint, false, true},
		{"token file", map[string]string{"HF_HOME": tokenDir}, filepath.Join(tokenDir, "hub"), DefaultEndpoint, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FromEnv(func(k string) string { return tt.env[k] })
			if c.CacheDir != tt.cache {
				t.Errorf("CacheDir = %s, want %s", c.CacheDir, tt.cache)
			}
			if c.Endpoint != tt.endpoint {
				t.Errorf("Endpoint = %s, want %s", c.Endpoint, tt.endpoint)
			}
			if c.Offline != tt.offline {
				t.Errorf("Offline = %v, want %v", c.Offline, tt.offline)
			}
			if c.HasToken() != tt.tokenIsSet {
				t.Errorf("HasToken() = %v, want %v", c.HasToken(), tt.tokenIsSet)
			}
		})
	}
}

func TestValidRepoID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"Qwen/Qwen3-8B", true},
		{"gpt2", true},
		{"org/name.v2_x", true},
		{"", false},
		{"a/b/c", false},
		{"/abs/path", false},
		{"./dir", false},
		{"org/na--me", false},
		{"org/na..me", false},
		{"org/-name", false},
		{"org/name.", false},
		{"org/with space", false},
		{"org/name@main", false},
		{strings.Repeat("a", 97), false},
	}
	for _, tt := range tests {
		if got := ValidRepoID(tt.id); got != tt.ok {
			t.Errorf("ValidRepoID(%q) = %v, want %v", tt.id, got, tt.ok)
		}
	}
}

// TestSilentHubIsUnreachable: a Hub that accepts connections and never
// answers is unreachable after MetaTimeout, and the cache answers.
func TestSilentHubIsUnreachable(t *testing.T) {
	h := newFakeHub(t)
	h.Add("org/model", "main", map[string]string{"tokenizer.json": "cached"})
	c := clientFor(t, h)
	ctx := context.Background()
	if _, err := c.Download(ctx, "org/model", "main", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer silent.Close()
	defer close(done)
	c.Endpoint = silent.URL
	c.MetaTimeout = 50 * time.Millisecond
	if p, err := c.Download(ctx, "org/model", "main", "tokenizer.json"); err != nil || readFile(t, p) != "cached" {
		t.Fatalf("silent hub, cached file: %v", err)
	}
	_, err := c.Download(ctx, "org/model", "main", "other.json")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "no answer within 50ms (HF_HUB_ETAG_TIMEOUT)") {
		t.Errorf("silent hub, uncached file: %v, want ErrUnreachable after 50ms", err)
	}
}

func TestFromEnvMetaTimeout(t *testing.T) {
	for v, want := range map[string]time.Duration{"": DefaultMetaTimeout, "2.5": 2500 * time.Millisecond, "x": DefaultMetaTimeout, "-1": DefaultMetaTimeout} {
		if got := FromEnv(func(k string) string { return map[string]string{"HF_HUB_ETAG_TIMEOUT": v, "HF_HOME": "/h"}[k] }).MetaTimeout; got != want {
			t.Errorf("HF_HUB_ETAG_TIMEOUT=%q: MetaTimeout = %s, want %s", v, got, want)
		}
	}
}

func TestDownloadDataset(t *testing.T) {
	h := newFakeHub(t)
	commit := h.Add("datasets/org/data", "main", map[string]string{"dir/conv.json": `[1]`})
	h.Add("org/data", "main", map[string]string{"dir/conv.json": `model repo, not this one`})
	c := clientFor(t, h)
	p, err := c.DownloadDataset(context.Background(), "org/data", "", "dir/conv.json")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(c.CacheDir, "datasets--org--data", "snapshots", commit, "dir", "conv.json")
	if p != want {
		t.Errorf("path = %s, want %s", p, want)
	}
	if got := readFile(t, p); got != `[1]` {
		t.Errorf("content = %q", got)
	}
	c.Offline = true
	if p2, err := c.DownloadDataset(context.Background(), "org/data", "main", "dir/conv.json"); err != nil || p2 != p {
		t.Errorf("offline: %q, %v; want the cached %s", p2, err, p)
	}
	if _, err := c.DownloadDataset(context.Background(), "org/data", "main", "other.json"); err == nil ||
		!strings.Contains(err.Error(), "datasets/org/data@main: other.json") {
		t.Errorf("offline miss: %v, want an error naming datasets/org/data@main: other.json", err)
	}
}
