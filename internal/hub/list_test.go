package hub

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestListDataset(t *testing.T) {
	h := newFakeHub(t)
	commit := h.Add("datasets/org/data", "main", map[string]string{
		"README.md": "x", "data/train-00000-of-00001.parquet": "p", "data/test.jsonl": "{}",
	})
	c := clientFor(t, h)
	ctx := context.Background()
	l, err := c.ListDataset(ctx, "org/data", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "data/test.jsonl", "data/train-00000-of-00001.parquet"}
	if l.Commit != commit || !slices.Equal(l.Files, want) || l.Cached {
		t.Fatalf("listing = %+v, want commit %s files %v", l, commit, want)
	}

	// Offline, the listing is the cached snapshot's: the files downloaded.
	if _, err := c.DownloadDataset(ctx, "org/data", commit, "data/test.jsonl"); err != nil {
		t.Fatal(err)
	}
	c.Offline = true
	l, err = c.ListDataset(ctx, "org/data", "main")
	if err != nil {
		t.Fatal(err)
	}
	if l.Commit != commit || !slices.Equal(l.Files, []string{"data/test.jsonl"}) || !l.Cached {
		t.Errorf("offline listing = %+v", l)
	}
	if _, err := c.ListDataset(ctx, "org/data", "v2"); !errors.Is(err, ErrOffline) {
		t.Errorf("offline, an uncached revision: err = %v, want ErrOffline", err)
	}

	// An unreachable Hub falls back to the cache too.
	c.Offline = false
	c.Endpoint = "http://127.0.0.1:1"
	if l, err := c.ListDataset(ctx, "org/data", "main"); err != nil || !l.Cached {
		t.Errorf("unreachable hub: %+v, %v", l, err)
	}
}

func TestListDatasetErrors(t *testing.T) {
	h := newFakeHub(t)
	h.Add("datasets/org/data", "main", map[string]string{"a.json": "[]"})
	h.Add("datasets/org/private", "main", map[string]string{"a.json": "[]"})
	h.Repos["datasets/org/private"].Private = true
	h.Token = "secret-token"
	c := clientFor(t, h)
	ctx := context.Background()
	for _, tc := range []struct {
		repo, rev string
		want      error
		text      string
	}{
		{"org/none", "main", ErrNotFound, "repository not found"},
		{"org/data", "nope", ErrNotFound, "revision not found"},
		{"org/private", "main", ErrUnauthorized, "set HF_TOKEN"},
		{"bad id!", "main", nil, "not a Hugging Face repository id"},
	} {
		_, err := c.ListDataset(ctx, tc.repo, tc.rev)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s@%s: err = %v, want %v (%q)", tc.repo, tc.rev, err, tc.want, tc.text)
		}
	}
	c.SetToken("secret-token")
	if _, err := c.ListDataset(ctx, "org/private", "main"); err != nil {
		t.Errorf("with the token: %v", err)
	}
}
