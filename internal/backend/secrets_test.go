package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// The secrets of these tests: the API key (OPENAI_API_KEY) and two header
// values (--header, target.headers), one a bearer credential.
const (
	testAPIKey     = "sk-SECRET-abc123"
	testHeaderKey  = "s3cr3t-hdr"
	testHeaderAuth = "Bearer cred-SECRET-xyz"
)

var testHeaders = map[string]string{"X-Api-Key": testHeaderKey, "Proxy-Authorization": testHeaderAuth}

// assertNoSecret fails t when text holds a secret of the tests.
func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range []string{testAPIKey, testHeaderKey, testHeaderAuth, "cred-SECRET-xyz"} {
		if strings.Contains(text, s) {
			t.Errorf("%s shows the secret %q: %s", what, s, text)
		}
	}
}

// hits counts the requests a loopback server got and keeps the secrets
// each carried.
type hits struct {
	mu   sync.Mutex
	n    int
	auth []string // Authorization, X-Api-Key and Proxy-Authorization of each request, joined
}

func (h *hits) add(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	h.auth = append(h.auth, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key")+"|"+r.Header.Get("Proxy-Authorization"))
}

func (h *hits) count() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n, append([]string(nil), h.auth...)
}

// TestTimedPathFollowsNoRedirect answers a benchmark request with each
// redirect status, pointing within the origin, to another port of the same
// address and to another host name for the same port, and requires of
// both HTTP paths the same failed record, whose error says where the
// redirect pointed (without its user info or query) and that it was not
// followed, and that the request was sent nowhere else.
func TestTimedPathFollowsNoRedirect(t *testing.T) {
	var origin, other hits
	var target string // where the origin's redirect points
	var mu sync.Mutex
	originSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		code, ok := codeOf(r)
		if !ok {
			origin.add(r) // a redirect followed
			return
		}
		mu.Lock()
		loc := target
		mu.Unlock()
		w.Header().Set("Location", loc)
		w.WriteHeader(code)
		fmt.Fprint(w, "moved")
	}))
	defer originSrv.Close()
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r)
	}))
	defer otherSrv.Close()
	ou, _ := url.Parse(originSrv.URL)
	dests := []struct{ name, loc, shown string }{
		{"same origin", "/v1/elsewhere", "/v1/elsewhere"},
		{"another port", otherSrv.URL + "/v1/completions?sig=q-SECRET", otherSrv.URL + "/v1/completions"},
		{"another host name", "http://user:pw-SECRET@localhost:" + ou.Port() + "/v1/completions", "http://localhost:" + ou.Port() + "/v1/completions"},
	}
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, d := range dests {
			t.Run(fmt.Sprintf("%d %s", code, d.name), func(t *testing.T) {
				mu.Lock()
				target = d.loc
				mu.Unlock()
				recs := map[string]string{}
				for name, c := range paths(t, Config{URL: fmt.Sprintf("%s/c%d/v1/completions", originSrv.URL, code), APIKey: testAPIKey, Headers: testHeaders}) {
					rec := sendOne(context.Background(), t, c, "id-1")
					want := http.StatusText(code) + ": moved (a redirect to " + d.shown + ", not followed: "
					if rec.Success || rec.Status != code || !strings.HasPrefix(rec.Error, want) {
						t.Errorf("%s: success %v, status %d, error %q; want a failure with status %d and error %q...", name, rec.Success, rec.Status, rec.Error, code, want)
					}
					if strings.Contains(rec.Error, "SECRET") {
						t.Errorf("%s: the error shows the Location's user info or query: %s", name, rec.Error)
					}
					assertNoSecret(t, name+" error", rec.Error)
					recs[name] = rec.Error
				}
				if recs["h1"] != recs["net/http"] {
					t.Errorf("the paths' errors differ:\n h1:       %s\n net/http: %s", recs["h1"], recs["net/http"])
				}
				if n, auth := origin.count(); n != 0 {
					t.Errorf("the redirect was followed within the origin: %d requests %q", n, auth)
				}
				if n, auth := other.count(); n != 0 {
					t.Errorf("the redirect was followed to the other server: %d requests %q", n, auth)
				}
			})
		}
	}
}

// codeOf is the status the redirecting test server answers a request
// for /c<code>/v1/completions with; ok is false for any other path.
func codeOf(r *http.Request) (code int, ok bool) {
	_, err := fmt.Sscanf(r.URL.Path, "/c%d/v1/completions", &code)
	return code, err == nil
}

// TestServerAPIRedirects calls /v1/models on a server that redirects:
// within its origin the call follows, with the API key and headers; to
// another port of the same address or another host name it does not, the
// other server gets nothing and the error says so.
func TestServerAPIRedirects(t *testing.T) {
	var other hits
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.add(r)
		fmt.Fprint(w, `{"data": [{"id": "elsewhere"}]}`)
	}))
	defer otherSrv.Close()
	var final hits
	var mu sync.Mutex
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved/v1/models" {
			final.add(r)
			fmt.Fprint(w, `{"data": [{"id": "m1"}]}`)
			return
		}
		mu.Lock()
		loc := target
		mu.Unlock()
		http.Redirect(w, r, loc, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	su, _ := url.Parse(srv.URL)
	tests := []struct {
		name, loc string
		follows   bool
	}{
		{"relative", "/moved/v1/models", true},
		{"same origin", srv.URL + "/moved/v1/models", true},
		{"another port", otherSrv.URL + "/v1/models", false},
		{"another host name", "http://localhost:" + su.Port() + "/moved/v1/models", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			target = tt.loc
			mu.Unlock()
			n0, _ := final.count()
			api, err := NewServerAPIWith(srv.URL, ServerOptions{APIKey: testAPIKey, Headers: testHeaders})
			if err != nil {
				t.Fatal(err)
			}
			id, _, err := api.Models(context.Background())
			n, auth := final.count()
			if tt.follows {
				if err != nil || id != "m1" {
					t.Fatalf("Models = %q, %v; want m1 through the redirect", id, err)
				}
				if want := "Bearer " + testAPIKey + "|" + testHeaderKey + "|" + testHeaderAuth; n != n0+1 || auth[len(auth)-1] != want {
					t.Errorf("the redirected call carried %q, want %q", auth[n0:], want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "Temporary Redirect") || !strings.Contains(err.Error(), "not followed") {
				t.Errorf("Models = %q, %v; want the redirect's error", id, err)
			} else {
				assertNoSecret(t, "the error", err.Error())
			}
			if n != n0 {
				t.Errorf("the redirect to another origin was followed: %q", auth[n0:])
			}
			if n, auth := other.count(); n != 0 {
				t.Errorf("the other server got %d requests: %q", n, auth)
			}
		})
	}
}

// echoHeaders writes every request header, values included, into w: what
// a careless gateway's error page does.
func echoHeaders(w io.Writer, r *http.Request) {
	for k, v := range r.Header {
		fmt.Fprintf(w, "%s: %s; ", k, strings.Join(v, ","))
	}
}

// TestErrorTextsRedactSecrets has servers echo the request's headers in
// their error answers and requires the records' error texts (both paths)
// and the ServerAPI's errors to show none of the secrets.
func TestErrorTextsRedactSecrets(t *testing.T) {
	records := []struct {
		name    string
		handler http.HandlerFunc
		want    string // the error's prefix
	}{
		{"401 echoing the headers", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusUnauthorized)
			echoHeaders(w, r)
		}, "Unauthorized: "},
		{"invalid SSE message echoing the key", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {bad %s %s}\n\n", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
		}, "invalid JSON in SSE message"},
	}
	for _, tt := range records {
		t.Run("record/"+tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			for name, c := range paths(t, Config{URL: srv.URL + "/v1/completions", APIKey: testAPIKey, Headers: testHeaders}) {
				rec := sendOne(context.Background(), t, c, "id-1")
				if rec.Success || !strings.HasPrefix(rec.Error, tt.want) || !strings.Contains(rec.Error, redactedText) {
					t.Errorf("%s: success %v, error %q; want %q... with %s", name, rec.Success, rec.Error, tt.want, redactedText)
				}
				assertNoSecret(t, name+" error", rec.Error)
			}
		})
	}
	for _, code := range []int{http.StatusUnauthorized, http.StatusInternalServerError} {
		t.Run(fmt.Sprintf("ServerAPI/%d echoing the headers", code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(code)
				echoHeaders(w, r)
			}))
			defer srv.Close()
			api, err := NewServerAPIWith(srv.URL, ServerOptions{Model: "m", APIKey: testAPIKey, Headers: testHeaders})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = api.Models(context.Background())
			if err == nil || !strings.Contains(err.Error(), redactedText) {
				t.Fatalf("Models: %v; want an error with %s", err, redactedText)
			}
			assertNoSecret(t, "the error", err.Error())
			if errors.Is(err, ErrServerAuth) != (code == http.StatusUnauthorized) {
				t.Errorf("errors.Is(%v, ErrServerAuth) = %v", err, errors.Is(err, ErrServerAuth))
			}
			_, err = api.Tokenize(context.Background(), "hi")
			if err == nil {
				t.Fatal("Tokenize: no error")
			}
			assertNoSecret(t, "the error", err.Error())
		})
	}
}

func TestNewRedactor(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		headers map[string]string
		in      string
		want    string
	}{
		{"nothing to redact", "", nil, "a", ""},
		{"the key", testAPIKey, nil, "bad key " + testAPIKey + "!", "bad key <redacted>!"},
		{"the bearer header whole", "", map[string]string{"Authorization": "Bearer tok-12345678"}, "got Bearer tok-12345678.", "got <redacted>."},
		{"its credentials alone", "", map[string]string{"Authorization": "Bearer tok-12345678"}, "got tok-12345678.", "got <redacted>."},
		{"short values stay", "short", map[string]string{"X-N": "1", "X-Mode": "yes"}, "HTTP 401: yes", ""},
		{"every header value", "", map[string]string{"X-A": "value-aaaaaaaa", "X-B": "value-bbbbbbbb"}, "value-aaaaaaaa value-bbbbbbbb", "<redacted> <redacted>"},
		{"a key inside a header value", "key-12345678", map[string]string{"X-Both": "pre key-12345678"}, "pre key-12345678 key-12345678", "<redacted> <redacted>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRedactor(tt.key, tt.headers)
			if tt.want == "" {
				if r != nil && r.Replace(tt.in) != tt.in {
					t.Errorf("redacted %q to %q, want it unchanged", tt.in, r.Replace(tt.in))
				}
				return
			}
			if r == nil {
				t.Fatal("no redactor")
			}
			if got := r.Replace(tt.in); got != tt.want {
				t.Errorf("Replace(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
