package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Listing is the file list of a repository at one commit.
type Listing struct {
	// Commit is the commit the revision named.
	Commit string
	// Files are the repository's file names, '/'-separated, sorted.
	Files []string
	// Cached reports that the listing comes from the cache (offline, or
	// the Hub could not be reached): it holds only the files downloaded
	// before.
	Cached bool
}

// maxListing bounds the size of a listing answer.
const maxListing = 64 << 20

// ListDataset returns the files of dataset repository repo at revision
// ("" for main), as huggingface_hub's dataset_info lists them (its
// "siblings"), from <endpoint>/api/datasets/<repo>/revision/<revision>.
// Online, the revision's commit is recorded in the cache (refs/), as a
// download does. Offline, or when the Hub cannot be reached, the listing
// is that of the cached snapshot: the files downloaded before.
func (c *Client) ListDataset(ctx context.Context, repo, revision string) (Listing, error) {
	if !ValidRepoID(repo) {
		return Listing{}, fmt.Errorf("%q is not a Hugging Face repository id", repo)
	}
	if revision == "" {
		revision = DefaultRevision
	}
	dir := c.DatasetDir(repo)
	where := fmt.Sprintf("datasets/%s@%s", repo, revision)
	if c.Offline {
		return c.cachedListing(dir, revision, where)
	}
	l, err := c.listOnline(ctx, repo, revision)
	if err != nil {
		var netErr *netError
		if errors.As(err, &netErr) {
			if cl, cerr := c.cachedListing(dir, revision, where); cerr == nil {
				return cl, nil
			}
			return Listing{}, fmt.Errorf("%s: the Hub cannot be reached and the repository is not cached: %w", where, err)
		}
		return Listing{}, fmt.Errorf("%s: %w", where, err)
	}
	if !commitRev.MatchString(revision) {
		if err := writeFileAtomic(filepath.Join(dir, "refs", filepath.FromSlash(revision)), []byte(l.Commit)); err != nil {
			return Listing{}, fmt.Errorf("%s: writing the cache: %w", where, err)
		}
	}
	return l, nil
}

// listOnline asks the Hub for the listing.
func (c *Client) listOnline(ctx context.Context, repo, revision string) (Listing, error) {
	if c.MetaTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.MetaTimeout)
		defer cancel()
	}
	u := c.Endpoint + "/api/datasets/" + repo + "/revision/" + url.PathEscape(revision)
	req, err := c.newRequest(ctx, http.MethodGet, u)
	if err != nil {
		return Listing{}, err
	}
	resp, err := c.followClient().Do(req)
	if err != nil {
		return Listing{}, &netError{scrub(err)}
	}
	defer resp.Body.Close()
	if err := statusError(resp); err != nil {
		if resp.StatusCode == http.StatusNotFound && resp.Header.Get("X-Error-Code") == "" {
			return Listing{}, fmt.Errorf("repository or revision %w (HTTP 404)", ErrNotFound)
		}
		return Listing{}, err
	}
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListing))
	if err != nil {
		return Listing{}, &netError{scrub(err)}
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return Listing{}, fmt.Errorf("the Hub's listing is not the expected JSON: %w", err)
	}
	if !commitRev.MatchString(info.SHA) {
		return Listing{}, errors.New("the Hub's listing names no commit (no \"sha\")")
	}
	l := Listing{Commit: info.SHA}
	for _, s := range info.Siblings {
		if s.RFilename != "" {
			l.Files = append(l.Files, s.RFilename)
		}
	}
	slices.Sort(l.Files)
	return l, nil
}

// cachedListing lists the cached snapshot of the revision.
func (c *Client) cachedListing(dir, revision, where string) (Listing, error) {
	commit := revision
	if !commitRev.MatchString(revision) {
		b, err := os.ReadFile(filepath.Join(dir, "refs", filepath.FromSlash(revision)))
		if err != nil {
			return Listing{}, fmt.Errorf("%s: %w (no cached revision %q under %s; unset HF_HUB_OFFLINE to download it)", where, ErrOffline, revision, dir)
		}
		commit = strings.TrimSpace(string(b))
	}
	snap := filepath.Join(dir, "snapshots", commit)
	l := Listing{Commit: commit, Cached: true}
	err := filepath.WalkDir(snap, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(snap, p)
		if err != nil {
			return err
		}
		l.Files = append(l.Files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Listing{}, fmt.Errorf("%s: %w (no snapshot under %s; unset HF_HUB_OFFLINE to download it)", where, ErrOffline, snap)
		}
		return Listing{}, fmt.Errorf("%s: reading the cache: %w", where, err)
	}
	slices.Sort(l.Files)
	return l, nil
}
