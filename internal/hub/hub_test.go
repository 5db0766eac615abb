package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHub serves /<repo>/resolve/<revision>/<file> like the Hugging Face
// Hub: HEAD and GET with X-Repo-Commit and ETag headers, the Hub's
// X-Error-Code on errors, 401 for private repositories without the right
// token, and, for "large" files, a redirect to a second server (the
// storage), as the Hub does for LFS files.
type fakeHub struct {
	t       *testing.T
	srv     *httptest.Server
	storage *httptest.Server
	token   string

	mu       sync.Mutex
	repos    map[string]*fakeRepo
	requests map[string]int // "HEAD" / "GET" on the hub, "STORAGE" on the storage
	auth     []string       // Authorization headers received
}

type fakeRepo struct {
	private  bool
	branches map[string]string            // branch or tag -> commit
	files    map[string]map[string]string // commit -> file -> content
	large    map[string]bool              // files served through the storage
}

func commitOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:20])
}

func etagOf(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{t: t, repos: map[string]*fakeRepo{}, requests: map[string]int{}}
	h.storage = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.requests["STORAGE"]++
		h.mu.Unlock()
		content, err := url.QueryUnescape(r.URL.Query().Get("c"))
		if err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, content)
	}))
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(func() { h.srv.Close(); h.storage.Close() })
	return h
}

// add puts files in a repository at a new commit on branch.
func (h *fakeHub) add(repo, branch string, files map[string]string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.repos[repo]
	if r == nil {
		r = &fakeRepo{branches: map[string]string{}, files: map[string]map[string]string{}, large: map[string]bool{}}
		h.repos[repo] = r
	}
	commit := commitOf(repo + branch + fmt.Sprint(len(r.files)))
	r.branches[branch] = commit
	r.files[commit] = files
	return commit
}

func (h *fakeHub) count(kind string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests[kind]
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests[r.Method]++
	if a := r.Header.Get("Authorization"); a != "" {
		h.auth = append(h.auth, a)
	}
	// /org/name/resolve/rev/file
	parts := strings.SplitN(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/", 5)
	if len(parts) != 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	repoID := parts[0] + "/" + parts[1]
	rev, _ := url.PathUnescape(parts[3])
	file, _ := url.PathUnescape(parts[4])
	repo := h.repos[repoID]
	if repo != nil && repo.private && r.Header.Get("Authorization") != "Bearer "+h.token {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if repo == nil {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	commit := rev
	if c, ok := repo.branches[rev]; ok {
		commit = c
	}
	files, ok := repo.files[commit]
	if !ok {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("X-Repo-Commit", commit)
	content, ok := files[file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if repo.large[file] {
		w.Header().Set("X-Linked-Etag", `"`+etagOf(content)+`"`)
		w.Header().Set("ETag", `"not-this-one"`)
		w.Header().Set("Location", h.storage.URL+"/blob?c="+url.QueryEscape(content))
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+etagOf(content)+`"`)
	w.Header().Set("Content-Length", fmt.Sprint(len(content)))
	if r.Method == http.MethodGet {
		fmt.Fprint(w, content)
	}
}

// client returns a client for the fake hub with a fresh cache.
func (h *fakeHub) client() *Client {
	return &Client{Endpoint: h.srv.URL, CacheDir: filepath.Join(h.t.TempDir(), "hub")}
}

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
	commit := h.add("org/model", "main", map[string]string{"tokenizer.json": `{"a":1}`})
	c := h.client()
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
	if n := h.count("GET"); n != 1 {
		t.Errorf("%d GET requests, want 1", n)
	}
}

func TestDownloadReusesCache(t *testing.T) {
	h := newFakeHub(t)
	commit := h.add("org/model", "main", map[string]string{"tokenizer.json": "v1"})
	c := h.client()
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
	if n := h.count("GET"); n != 1 {
		t.Errorf("%d GET requests, want 1 (the second download must reuse the cache)", n)
	}
	// A commit hash that is cached needs no request at all.
	heads := h.count("HEAD")
	if _, err := c.Download(ctx, "org/model", commit, "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if h.count("HEAD") != heads || h.count("GET") != 1 {
		t.Error("a cached commit hash caused a request")
	}
	// A new file with the same content at another commit reuses the blob.
	h.add("org/model", "dev", map[string]string{"tokenizer.json": "v1"})
	if _, err := c.Download(ctx, "org/model", "dev", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if n := h.count("GET"); n != 1 {
		t.Errorf("%d GET requests, want 1 (same blob)", n)
	}
}

func TestDownloadRevisions(t *testing.T) {
	h := newFakeHub(t)
	mainC := h.add("org/model", "main", map[string]string{"f.json": "main"})
	devC := h.add("org/model", "dev", map[string]string{"f.json": "dev"})
	prC := h.add("org/model", "refs/pr/1", map[string]string{"f.json": "pr"})
	c := h.client()
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
	h.add("org/model", "main", map[string]string{"tokenizer.json": "cached"})
	c := h.client()
	ctx := context.Background()
	if _, err := c.Download(ctx, "org/model", "main", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Download(ctx, "org/model", "main", "absent.json"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("absent file: %v", err)
	}
	before := h.count("HEAD") + h.count("GET")
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
	if after := h.count("HEAD") + h.count("GET"); after != before {
		t.Errorf("offline mode made %d requests", after-before)
	}
}

func TestUnreachableHubUsesCache(t *testing.T) {
	h := newFakeHub(t)
	h.add("org/model", "main", map[string]string{"tokenizer.json": "cached"})
	c := h.client()
	ctx := context.Background()
	if _, err := c.Download(ctx, "org/model", "main", "tokenizer.json"); err != nil {
		t.Fatal(err)
	}
	h.srv.Close()
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
	h.token = "hf_right"
	h.add("org/private", "main", map[string]string{"tokenizer.json": "secret"})
	h.repos["org/private"].private = true
	c := h.client()
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
	h.token = "hf_other"
	h.add("org/private", "main", map[string]string{"f": "x"})
	h.repos["org/private"].private = true
	h.add("org/public", "main", map[string]string{"f": "x"})
	c := h.client()
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
	h.srv.Close()
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
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.auth) == 0 || h.auth[0] != "Bearer "+secret {
		t.Errorf("the token was not sent: %q", h.auth)
	}
}

func TestLargeFileRedirect(t *testing.T) {
	h := newFakeHub(t)
	content := strings.Repeat("large ", 1000)
	h.add("org/model", "main", map[string]string{"tokenizer.json": content})
	h.repos["org/model"].large["tokenizer.json"] = true
	c := h.client()
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
	if n := h.count("STORAGE"); n != 1 {
		t.Errorf("%d storage requests, want 1 (HEAD must not follow the redirect)", n)
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
	h.add("org/model", "main", map[string]string{"tokenizer.json": "cached"})
	c := h.client()
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
