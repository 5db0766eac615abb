// Package hub downloads files from the Hugging Face Hub into the standard
// Hugging Face cache, so that vbench, transformers and vLLM share one
// copy of a model's tokenizer files and each finds what the others
// fetched.
//
// The cache layout is huggingface_hub's:
//
//	<cache>/models--<org>--<name>/
//	    blobs/<etag>                          file contents, named by ETag
//	    snapshots/<commit>/<filename>         symlink to ../../blobs/<etag>
//	    refs/<revision>                       the commit a branch or tag names
//	    .no_exist/<commit>/<filename>         the file is known to be absent
//
// where <cache> is $HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
//
// The environment is read as huggingface_hub reads it: HF_ENDPOINT (the
// Hub's URL), HF_TOKEN (else the file $HF_TOKEN_PATH or $HF_HOME/token),
// and HF_HUB_OFFLINE=1 (or TRANSFORMERS_OFFLINE=1), which answers from
// the cache only. The token is sent as a bearer token, to the endpoint's
// origin only (a redirect to another host, scheme or port goes without
// it), and never appears in an error or a message.
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/atomicfile"
	"github.com/vbench/vbench/internal/origin"
)

// DefaultEndpoint is the Hub's URL when HF_ENDPOINT is not set.
const DefaultEndpoint = "https://huggingface.co"

// DefaultRevision is the revision used when none is given.
const DefaultRevision = "main"

var (
	// ErrNotFound is returned (wrapped) when the repository, the revision
	// or the file does not exist.
	ErrNotFound = errors.New("not found")
	// ErrFileNotFound is returned (wrapped) when the repository and the
	// revision exist but the file does not; it wraps ErrNotFound.
	ErrFileNotFound = fmt.Errorf("file %w", ErrNotFound)
	// ErrOffline is returned (wrapped) when HF_HUB_OFFLINE is set and the
	// cache does not have the file.
	ErrOffline = errors.New("not in the cache and offline mode is on")
	// ErrUnauthorized is returned (wrapped) when the Hub refuses access
	// (HTTP 401 or 403).
	ErrUnauthorized = errors.New("access denied")
	// ErrUnreachable is returned (wrapped) when the Hub cannot be reached
	// and the cache does not have the file.
	ErrUnreachable = errors.New("the Hub cannot be reached and the file is not cached")
)

// Client downloads files from a Hub into a cache directory. The zero
// value is not usable; use FromEnv or fill in every field but HTTP.
type Client struct {
	// Endpoint is the Hub's base URL, without a trailing slash.
	Endpoint string
	// CacheDir is the hub cache directory (the parent of the
	// models--org--name directories).
	CacheDir string
	// Offline answers from the cache only.
	Offline bool
	// HTTP is the client for requests; nil means one without an overall
	// timeout (a download of several gigabytes takes minutes): a download
	// fails instead when no byte arrives for StallTimeout.
	HTTP *http.Client
	// MetaTimeout, when positive, bounds each metadata request (the HEAD
	// that finds a file's commit), as huggingface_hub's
	// HF_HUB_ETAG_TIMEOUT does; a Hub that does not answer in time is
	// unreachable, and the cache answers.
	MetaTimeout time.Duration

	// StallTimeout, when positive, fails a download that receives no byte
	// (response headers or body) for that long; zero means
	// DefaultStallTimeout.
	StallTimeout time.Duration

	token string
}

// DefaultStallTimeout is how long a download may receive nothing before it
// fails, when Client.StallTimeout is zero.
const DefaultStallTimeout = 60 * time.Second

// errStalled is the cause of a download cancelled for receiving nothing.
var errStalled = errors.New("stalled")

// FromEnv returns a client configured from the environment (read with
// getenv, nil meaning os.Getenv) as huggingface_hub does.
func FromEnv(getenv func(string) string) *Client {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HF_HOME")
	if home == "" {
		xdg := getenv("XDG_CACHE_HOME")
		if xdg == "" {
			if h, err := os.UserHomeDir(); err == nil {
				xdg = filepath.Join(h, ".cache")
			}
		}
		home = filepath.Join(xdg, "huggingface")
	}
	cache := getenv("HF_HUB_CACHE")
	if cache == "" {
		cache = getenv("HUGGINGFACE_HUB_CACHE")
	}
	if cache == "" {
		cache = filepath.Join(home, "hub")
	}
	endpoint := strings.TrimRight(getenv("HF_ENDPOINT"), "/")
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	token := strings.TrimSpace(getenv("HF_TOKEN"))
	if token == "" {
		token = strings.TrimSpace(getenv("HUGGING_FACE_HUB_TOKEN"))
	}
	if token == "" {
		path := getenv("HF_TOKEN_PATH")
		if path == "" {
			path = filepath.Join(home, "token")
		}
		if b, err := os.ReadFile(path); err == nil {
			token = strings.TrimSpace(string(b))
		}
	}
	meta := DefaultMetaTimeout
	if v, err := strconv.ParseFloat(strings.TrimSpace(getenv("HF_HUB_ETAG_TIMEOUT")), 64); err == nil && v > 0 {
		meta = time.Duration(v * float64(time.Second))
	}
	return &Client{
		Endpoint:    endpoint,
		CacheDir:    cache,
		Offline:     isTrue(getenv("HF_HUB_OFFLINE")) || isTrue(getenv("TRANSFORMERS_OFFLINE")),
		MetaTimeout: meta,
		token:       token,
	}
}

// DefaultMetaTimeout is FromEnv's MetaTimeout when HF_HUB_ETAG_TIMEOUT
// (seconds) is not set: huggingface_hub's default.
const DefaultMetaTimeout = 10 * time.Second

// String describes the client without its token, so that printing a
// Client (with %v, %s or %#v) never shows the token.
func (c *Client) String() string {
	tok := "none"
	if c.token != "" {
		tok = "set"
	}
	return fmt.Sprintf("hub.Client{Endpoint: %q, CacheDir: %q, Offline: %v, token: %s}", c.Endpoint, c.CacheDir, c.Offline, tok)
}

// GoString is String.
func (c *Client) GoString() string { return c.String() }

// SetToken sets the access token sent with requests ("" for none).
func (c *Client) SetToken(token string) { c.token = token }

// HasToken reports whether requests carry an access token.
func (c *Client) HasToken() bool { return c.token != "" }

// isTrue is huggingface_hub's reading of a boolean variable.
func isTrue(v string) bool {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

var (
	repoPart  = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,96}$`)
	commitRev = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ValidRepoID reports whether id is a Hub repository id: "name" or
// "org/name", each part of letters, digits, '-', '_' and '.', not starting
// or ending with '-' or '.', without "--" or "..".
func ValidRepoID(id string) bool {
	parts := strings.Split(id, "/")
	if len(parts) > 2 {
		return false
	}
	for _, p := range parts {
		if !repoPart.MatchString(p) || strings.Contains(p, "--") || strings.Contains(p, "..") ||
			strings.HasPrefix(p, "-") || strings.HasPrefix(p, ".") || strings.HasSuffix(p, "-") || strings.HasSuffix(p, ".") {
			return false
		}
	}
	return true
}

// RepoDir returns the cache directory of a model repository.
func (c *Client) RepoDir(repo string) string {
	return filepath.Join(c.CacheDir, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

// DatasetDir returns the cache directory of a dataset repository.
func (c *Client) DatasetDir(repo string) string {
	return filepath.Join(c.CacheDir, "datasets--"+strings.ReplaceAll(repo, "/", "--"))
}

// DownloadDataset is Download for a dataset repository: the file comes
// from <endpoint>/datasets/<repo>/resolve/<revision>/<filename> and is
// cached under datasets--<org>--<name>, as huggingface_hub does with
// repo_type="dataset".
func (c *Client) DownloadDataset(ctx context.Context, repo, revision, filename string) (string, error) {
	return c.download(ctx, repo, "datasets/", c.DatasetDir(repo), revision, filename)
}

// Download returns the local path of filename in repo at revision ("" for
// main), downloading it into the cache unless the cache has it. Online, the
// Hub is asked which commit the revision names (a commit hash already in
// the cache needs no request); if the Hub cannot be reached, a cached copy
// is used. Offline, only the cache is consulted.
func (c *Client) Download(ctx context.Context, repo, revision, filename string) (string, error) {
	return c.download(ctx, repo, "", c.RepoDir(repo), revision, filename)
}

// download downloads filename of repo into the cache directory dir; the
// URL names the repository as urlPrefix + repo ("datasets/" for a
// dataset).
func (c *Client) download(ctx context.Context, repo, urlPrefix, dir, revision, filename string) (string, error) {
	if !ValidRepoID(repo) {
		return "", fmt.Errorf("%q is not a Hugging Face repository id", repo)
	}
	if revision == "" {
		revision = DefaultRevision
	}
	if filename == "" || strings.HasPrefix(filename, "/") || strings.Contains(filename, "..") {
		return "", fmt.Errorf("invalid file name %q", filename)
	}
	where := fmt.Sprintf("%s%s@%s: %s", urlPrefix, repo, revision, filename)
	if commitRev.MatchString(revision) {
		if p := filepath.Join(dir, "snapshots", revision, filepath.FromSlash(filename)); exists(p) {
			return p, nil
		}
	}
	if c.Offline {
		return c.cached(dir, revision, filename, where)
	}
	meta, err := c.head(ctx, urlPrefix+repo, revision, filename)
	if err != nil {
		var netErr *netError
		if errors.As(err, &netErr) {
			// The Hub cannot be reached: fall back to the cache.
			p, cerr := c.cached(dir, revision, filename, where)
			if cerr == nil {
				return p, nil
			}
			if errors.Is(cerr, ErrFileNotFound) {
				return "", cerr
			}
			return "", fmt.Errorf("%s: %w: %w", where, ErrUnreachable, err)
		}
		if errors.Is(err, ErrFileNotFound) && meta.commit != "" && meta.entryMissing {
			c.markMissing(dir, meta.commit, filename)
		}
		return "", fmt.Errorf("%s: %w", where, err)
	}
	if !commitRev.MatchString(revision) {
		if err := writeFileAtomic(filepath.Join(dir, "refs", filepath.FromSlash(revision)), []byte(meta.commit)); err != nil {
			return "", fmt.Errorf("%s: writing the cache: %w", where, err)
		}
	}
	snap := filepath.Join(dir, "snapshots", meta.commit, filepath.FromSlash(filename))
	if exists(snap) {
		return snap, nil
	}
	blob := filepath.Join(dir, "blobs", meta.etag)
	if !exists(blob) {
		if err := c.get(ctx, urlPrefix+repo, meta.commit, filename, blob); err != nil {
			return "", fmt.Errorf("%s: %w", where, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		return "", fmt.Errorf("%s: writing the cache: %w", where, err)
	}
	rel, err := filepath.Rel(filepath.Dir(snap), blob)
	if err != nil {
		return "", err
	}
	if err := os.Symlink(rel, snap); err != nil && !exists(snap) {
		// No symlinks (some file systems): keep a copy instead.
		if err := copyFile(blob, snap); err != nil {
			return "", fmt.Errorf("%s: writing the cache: %w", where, err)
		}
	}
	return snap, nil
}

// cached answers from the cache only.
func (c *Client) cached(dir, revision, filename, where string) (string, error) {
	commit := revision
	if !commitRev.MatchString(revision) {
		b, err := os.ReadFile(filepath.Join(dir, "refs", filepath.FromSlash(revision)))
		if err != nil {
			return "", fmt.Errorf("%s: %w (no cached revision %q under %s; unset HF_HUB_OFFLINE to download it)", where, ErrOffline, revision, dir)
		}
		commit = strings.TrimSpace(string(b))
	}
	if p := filepath.Join(dir, "snapshots", commit, filepath.FromSlash(filename)); exists(p) {
		return p, nil
	}
	if exists(filepath.Join(dir, ".no_exist", commit, filepath.FromSlash(filename))) {
		return "", fmt.Errorf("%s: %w (the repository has no such file)", where, ErrFileNotFound)
	}
	return "", fmt.Errorf("%s: %w (not under %s; unset HF_HUB_OFFLINE to download it)", where, ErrOffline, filepath.Join(dir, "snapshots", commit))
}

// markMissing records that a file does not exist at a commit.
func (c *Client) markMissing(dir, commit, filename string) {
	p := filepath.Join(dir, ".no_exist", commit, filepath.FromSlash(filename))
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		_ = os.WriteFile(p, nil, 0o644)
	}
}

// fileMeta is what a HEAD request tells about a file.
type fileMeta struct {
	commit, etag string
	entryMissing bool // a 404 for the file itself (the repo exists)
}

// netError marks a failure to reach the Hub (as opposed to an answer).
type netError struct{ err error }

func (e *netError) Error() string { return e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{}
}

// maxRedirects bounds a chain of redirects, as net/http's default does.
const maxRedirects = 10

// followClient is the client for a download or a listing: it follows
// redirects, which the Hub answers with for renamed repositories (on the
// Hub) and for large files (to their storage, another host), but sends
// the token only as long as the chain stays at the endpoint's origin (see
// sameOrigin): from the first request that leaves it on, the request goes
// without the Authorization header, as huggingface_hub's (requests')
// does. net/http alone would keep the header for another port of the same
// host, or for a subdomain.
func (c *Client) followClient() *http.Client {
	hc := *c.httpClient()
	hc.CheckRedirect = dropTokenOffOrigin
	return &hc
}

// dropTokenOffOrigin is followClient's redirect policy; req is the next
// request of the chain via.
func dropTokenOffOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	left := !origin.Same(via[0].URL, req.URL)
	for _, r := range via[1:] {
		left = left || !origin.Same(via[0].URL, r.URL)
	}
	if left {
		req.Header.Del("Authorization")
	}
	return nil
}

// stallReader resets a stall timer on every read that returns data.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.d)
	}
	return n, err
}

func (c *Client) fileURL(repo, revision, filename string) string {
	return c.Endpoint + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + escapePath(filename)
}

// escapePath escapes each '/'-separated segment of a file name, as
// huggingface_hub's quote(filename) does: a '#', '?', '%' or space is
// part of the name, not the end of the URL's path.
func escapePath(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func (c *Client) newRequest(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "vbench")
	req.Header.Set("Accept-Encoding", "identity")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// head asks the Hub for a file's commit and ETag. Redirects within the
// endpoint's origin (renamed repositories) are followed; a redirect to
// another origin (the storage of large files) is not, since the metadata
// is on it already.
func (c *Client) head(ctx context.Context, repo, revision, filename string) (fileMeta, error) {
	var meta fileMeta
	if c.MetaTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.MetaTimeout)
		defer cancel()
	}
	req, err := c.newRequest(ctx, http.MethodHead, c.fileURL(repo, revision, filename))
	if err != nil {
		return meta, err
	}
	hc := *c.httpClient()
	hc.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects || !origin.Same(via[0].URL, r.URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}
	resp, err := hc.Do(req)
	if err != nil {
		if c.MetaTimeout > 0 && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return meta, &netError{fmt.Errorf("no answer within %s (HF_HUB_ETAG_TIMEOUT)", c.MetaTimeout)}
		}
		return meta, &netError{scrub(err)}
	}
	resp.Body.Close()
	meta.commit = resp.Header.Get("X-Repo-Commit")
	redirected := resp.StatusCode >= 300 && resp.StatusCode < 400
	if err := statusError(resp); err != nil && !redirected {
		meta.entryMissing = resp.Header.Get("X-Error-Code") == "EntryNotFound"
		return meta, err
	}
	meta.etag = resp.Header.Get("X-Linked-Etag")
	if meta.etag == "" {
		meta.etag = resp.Header.Get("ETag")
	}
	meta.etag = strings.Trim(strings.TrimPrefix(meta.etag, "W/"), `"`)
	switch {
	case !commitRev.MatchString(meta.commit):
		return meta, fmt.Errorf("the Hub did not say which commit the file is at (no X-Repo-Commit header)")
	case meta.etag == "" || strings.ContainsAny(meta.etag, `/\`) || meta.etag == "." || meta.etag == "..":
		return meta, fmt.Errorf("the Hub sent no usable ETag for the file")
	}
	return meta, nil
}

// get downloads a file to blob, through a temporary file.
func (c *Client) get(ctx context.Context, repo, commit, filename, blob string) error {
	stall := c.StallTimeout
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	stalled := func(err error) error {
		if errors.Is(context.Cause(ctx), errStalled) {
			return &netError{fmt.Errorf("the download stalled: nothing received for %s", stall)}
		}
		return err
	}
	req, err := c.newRequest(ctx, http.MethodGet, c.fileURL(repo, commit, filename))
	if err != nil {
		return err
	}
	resp, err := c.followClient().Do(req)
	if err != nil {
		return stalled(&netError{scrub(err)})
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	f, err := atomicfile.Create(blob, 0o600)
	if err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	defer f.Cleanup()
	timer.Reset(stall)
	if _, err := io.Copy(f, &stallReader{r: resp.Body, timer: timer, d: stall}); err != nil {
		return stalled(fmt.Errorf("downloading: %w", scrub(err)))
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("writing the cache: %w", err)
	}
	return nil
}

// statusError turns an unsuccessful response into an error that says what
// to do, using the Hub's X-Error-Code header.
func statusError(resp *http.Response) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	code := resp.Header.Get("X-Error-Code")
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%w (HTTP 401): the repository is private or gated, or does not exist; set HF_TOKEN to a token that can read it", ErrUnauthorized)
	case resp.StatusCode == http.StatusForbidden || code == "GatedRepo":
		return fmt.Errorf("%w (HTTP 403): the repository is gated and this token has not been granted access; request access on the Hub", ErrUnauthorized)
	case code == "RevisionNotFound":
		return fmt.Errorf("revision %w (HTTP %d)", ErrNotFound, resp.StatusCode)
	case code == "RepoNotFound":
		return fmt.Errorf("repository %w (HTTP %d)", ErrNotFound, resp.StatusCode)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w (HTTP 404)", ErrFileNotFound)
	}
	return fmt.Errorf("the Hub answered HTTP %d", resp.StatusCode)
}

// scrub removes the request URL's query from a transport error (the URL
// itself carries no secret: the token travels in a header).
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		if perr == nil {
			u.RawQuery, u.User = "", nil
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeFileAtomic writes data to path through a temporary file, creating
// the directory if needed.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeFileAtomic(dst, data)
}
