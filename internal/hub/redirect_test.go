package hub

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// authLog records the Authorization header of each request a server got
// at a path ("" when it came without one).
type authLog struct {
	mu  sync.Mutex
	got map[string][]string // "origin /final" → headers
}

func (l *authLog) add(server string, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := server + " " + r.URL.Path
	l.got[k] = append(l.got[k], r.Header.Get("Authorization"))
}

func (l *authLog) get(k string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.got[k]
}

// TestRedirectDropsToken follows a download and a dataset listing through
// redirects between two loopback servers, the Hub ("origin") and another
// port of the same address ("other"), and checks where the token went:
// to the Hub's origin only, and never again once the chain has left it.
func TestRedirectDropsToken(t *testing.T) {
	const token = "hf_SECRETtoken"
	const commit = "0123456789abcdef0123456789abcdef01234567"
	listing := fmt.Sprintf(`{"sha": %q, "siblings": [{"rfilename": "a.json"}]}`, commit)
	log := &authLog{got: map[string][]string{}}
	var first string // where the Hub's first answer points
	var mu sync.Mutex
	final := func(server string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			log.add(server, r)
			fmt.Fprint(w, listing)
		}
	}
	origin := httptest.NewServer(nil)
	other := httptest.NewServer(nil)
	t.Cleanup(origin.Close)
	t.Cleanup(other.Close)
	om, xm := http.NewServeMux(), http.NewServeMux()
	om.HandleFunc("/final", final("origin"))
	om.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		log.add("origin", r)
		mu.Lock()
		loc := first
		mu.Unlock()
		http.Redirect(w, r, loc, http.StatusFound)
	})
	xm.HandleFunc("/final", final("other"))
	xm.HandleFunc("/back", func(w http.ResponseWriter, r *http.Request) {
		log.add("other", r)
		http.Redirect(w, r, origin.URL+"/final", http.StatusTemporaryRedirect)
	})
	origin.Config.Handler, other.Config.Handler = om, xm
	ou, _ := url.Parse(origin.URL)

	tests := []struct {
		name  string
		first string
		// want maps "server path" to the Authorization headers it got.
		want map[string][]string
	}{
		{"same origin, relative", "/final",
			map[string][]string{"origin /final": {"Bearer " + token}}},
		{"same origin, absolute", origin.URL + "/final",
			map[string][]string{"origin /final": {"Bearer " + token}}},
		{"another port of the same address", other.URL + "/final",
			map[string][]string{"other /final": {""}}},
		{"another host name for the same port", "http://localhost:" + ou.Port() + "/final",
			map[string][]string{"origin /final": {""}}},
		{"away and back to the origin", other.URL + "/back",
			map[string][]string{"other /back": {""}, "origin /final": {""}}},
	}
	calls := []struct {
		name string
		call func(c *Client) error
	}{
		{"download", func(c *Client) error {
			return c.get(context.Background(), "org/m", commit, "a.json", filepath.Join(c.CacheDir, "blob"))
		}},
		{"listing", func(c *Client) error {
			l, err := c.listOnline(context.Background(), "org/d", "main")
			if err == nil && l.Commit != commit {
				err = fmt.Errorf("listing %+v, want commit %s", l, commit)
			}
			return err
		}},
	}
	for _, tt := range tests {
		for _, call := range calls {
			t.Run(tt.name+"/"+call.name, func(t *testing.T) {
				log.mu.Lock()
				log.got = map[string][]string{}
				log.mu.Unlock()
				mu.Lock()
				first = tt.first
				mu.Unlock()
				c := &Client{Endpoint: origin.URL, CacheDir: t.TempDir()}
				c.SetToken(token)
				if err := call.call(c); err != nil {
					t.Fatal(err)
				}
				// The first request, to the Hub, carries the token.
				var firstPath string
				for k := range log.got {
					if strings.HasPrefix(k, "origin /") && k != "origin /final" {
						firstPath = k
					}
				}
				if got := log.get(firstPath); len(got) != 1 || got[0] != "Bearer "+token {
					t.Errorf("the Hub got Authorization %q, want the token", got)
				}
				for k, want := range tt.want {
					if got := log.get(k); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s got Authorization %q, want %q", k, got, want)
					}
				}
			})
		}
	}
}
