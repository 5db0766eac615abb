// Package hubtest is a fake Hugging Face Hub on loopback for tests: it
// serves /<repo>/resolve/<revision>/<file> (and /datasets/<repo>/... for
// dataset repositories) like the Hub, the file listing of a dataset
// repository at /api/datasets/<repo>/revision/<revision> (its "sha" and
// "siblings"), with HEAD and GET, X-Repo-Commit and
// ETag headers, the Hub's X-Error-Code on errors, 401 for private
// repositories without the right token, and, for "large" files, a redirect
// to a second server (the storage), as the Hub does for LFS files.
package hubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Hub is the fake hub. Its servers close when the test ends.
type Hub struct {
	// Srv is the hub; Storage serves the large files it redirects to.
	Srv, Storage *httptest.Server
	// Token is the bearer token private repositories accept.
	Token string

	// Mu guards Repos, Auth and StorageAuth.
	Mu sync.Mutex
	// Repos are the repositories by id ("org/name", or
	// "datasets/org/name" for a dataset repository).
	Repos map[string]*Repo
	// Auth are the Authorization headers received, in order.
	Auth []string
	// StorageAuth are the Authorization headers the storage received, in
	// order (a client must send none: the storage is another origin).
	StorageAuth []string

	requests map[string]int // "HEAD" / "GET" on the hub, "STORAGE" on the storage
}

// Repo is one repository of the fake hub.
type Repo struct {
	// Private repositories answer 401 without the hub's token.
	Private bool
	// Branches maps a branch or tag to its commit.
	Branches map[string]string
	// Files maps a commit to its files' contents by name.
	Files map[string]map[string]string
	// Large are the files served through the storage.
	Large map[string]bool
}

// CommitOf returns a made-up commit hash for s.
func CommitOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:20])
}

// EtagOf returns the ETag the hub sends for content.
func EtagOf(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

// Cleaner is what New needs of a test: a testing.TB, or an adapter for
// a testscript command.
type Cleaner interface{ Cleanup(func()) }

// New starts a fake hub that closes when t ends.
func New(t Cleaner) *Hub {
	h := &Hub{Repos: map[string]*Repo{}, requests: map[string]int{}}
	h.Storage = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.Mu.Lock()
		h.requests["STORAGE"]++
		if a := r.Header.Get("Authorization"); a != "" {
			h.StorageAuth = append(h.StorageAuth, a)
		}
		h.Mu.Unlock()
		content, err := url.QueryUnescape(r.URL.Query().Get("c"))
		if err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, content)
	}))
	h.Srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(func() { h.Srv.Close(); h.Storage.Close() })
	return h
}

// URL is the hub's endpoint (HF_ENDPOINT).
func (h *Hub) URL() string { return h.Srv.URL }

// Add puts files in a repository ("org/name", or "datasets/org/name") at
// a new commit on branch, and returns the commit.
func (h *Hub) Add(repo, branch string, files map[string]string) string {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	r := h.Repos[repo]
	if r == nil {
		r = &Repo{Branches: map[string]string{}, Files: map[string]map[string]string{}, Large: map[string]bool{}}
		h.Repos[repo] = r
	}
	commit := CommitOf(repo + branch + fmt.Sprint(len(r.Files)))
	r.Branches[branch] = commit
	r.Files[commit] = files
	return commit
}

// Count returns how many requests of a kind the hub received: "HEAD" or
// "GET" on the hub, "STORAGE" on the storage.
func (h *Hub) Count(kind string) int {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	return h.requests[kind]
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	h.requests[r.Method]++
	if a := r.Header.Get("Authorization"); a != "" {
		h.Auth = append(h.Auth, a)
	}
	// /org/name/resolve/rev/file or /datasets/org/name/resolve/rev/file
	p := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	if rest, ok := strings.CutPrefix(p, "api/datasets/"); ok {
		h.serveListing(w, r, rest)
		return
	}
	kind := ""
	if rest, ok := strings.CutPrefix(p, "datasets/"); ok {
		kind, p = "datasets/", rest
	}
	parts := strings.SplitN(p, "/", 5)
	if len(parts) != 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	rev, _ := url.PathUnescape(parts[3])
	file, _ := url.PathUnescape(parts[4])
	repo, commit, files, ok := h.resolve(w, r, kind+parts[0]+"/"+parts[1], rev)
	if !ok {
		return
	}
	w.Header().Set("X-Repo-Commit", commit)
	content, ok := files[file]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if repo.Large[file] {
		w.Header().Set("X-Linked-Etag", `"`+EtagOf(content)+`"`)
		w.Header().Set("ETag", `"not-this-one"`)
		w.Header().Set("Location", h.Storage.URL+"/blob?c="+url.QueryEscape(content))
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+EtagOf(content)+`"`)
	w.Header().Set("Content-Length", fmt.Sprint(len(content)))
	if r.Method == http.MethodGet {
		fmt.Fprint(w, content)
	}
}

// serveListing answers /api/datasets/org/name/revision/rev (p is what
// follows /api/datasets/) with the revision's commit and files, as the
// Hub's dataset_info does. It runs under h.Mu.
func (h *Hub) serveListing(w http.ResponseWriter, r *http.Request, p string) {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) != 4 || parts[2] != "revision" {
		http.NotFound(w, r)
		return
	}
	rev, _ := url.PathUnescape(parts[3])
	_, commit, files, ok := h.resolve(w, r, "datasets/"+parts[0]+"/"+parts[1], rev)
	if !ok {
		return
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
	}
	info := struct {
		ID       string    `json:"id"`
		SHA      string    `json:"sha"`
		Siblings []sibling `json:"siblings"`
	}{ID: parts[0] + "/" + parts[1], SHA: commit, Siblings: []sibling{}}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		info.Siblings = append(info.Siblings, sibling{name})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(info)
}

// resolve finds a repository's revision, or answers the Hub's error (401
// for a private repository without the token, 404 with the error code)
// and returns ok false. It runs under h.Mu.
func (h *Hub) resolve(w http.ResponseWriter, r *http.Request, repoID, rev string) (repo *Repo, commit string, files map[string]string, ok bool) {
	repo = h.Repos[repoID]
	if repo != nil && repo.Private && r.Header.Get("Authorization") != "Bearer "+h.Token {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusUnauthorized)
		return nil, "", nil, false
	}
	if repo == nil {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		w.WriteHeader(http.StatusNotFound)
		return nil, "", nil, false
	}
	commit = rev
	if c, ok := repo.Branches[rev]; ok {
		commit = c
	}
	files, ok = repo.Files[commit]
	if !ok {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		w.WriteHeader(http.StatusNotFound)
		return nil, "", nil, false
	}
	return repo, commit, files, true
}
