package promscrape

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestScrapeSendsNoSecret scrapes a base URL with a password: the
// messages (URL, errors) do not show it, and a redirect to another port
// of the same address gets no credentials.
func TestScrapeSendsNoSecret(t *testing.T) {
	var mu sync.Mutex
	var otherAuth []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		otherAuth = append(otherAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer other.Close()
	var firstAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		firstAuth = r.Header.Get("Authorization")
		mu.Unlock()
		http.Redirect(w, r, other.URL+"/metrics", http.StatusFound)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://user:pw-SECRET@", 1)
	s := New(base, nil, 0)
	if strings.Contains(s.URL(), "SECRET") || !strings.Contains(s.URL(), "user:xxxxx@") {
		t.Errorf("URL() = %s, want the password redacted", s.URL())
	}
	_, err := s.Scrape(context.Background())
	if !errors.Is(err, ErrNotAvailable) {
		t.Fatalf("Scrape: %v, want ErrNotAvailable (the other server answers 404)", err)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("the error shows the password: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(firstAuth, "Basic ") {
		t.Errorf("the server got Authorization %q, want the URL's basic authentication", firstAuth)
	}
	if len(otherAuth) != 1 || otherAuth[0] != "" {
		t.Errorf("the redirect's target got Authorization %q, want one request without", otherAuth)
	}

	// A base URL that does not parse: the error shows no password either.
	_, err = New("http://user:pw-SECRET@h:bad:port", nil, 0).Scrape(context.Background())
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Scrape of an invalid URL: %v, want an error without the password", err)
	}
}
