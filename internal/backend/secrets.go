package backend

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/origin"
)

// The credentials vbench sends (the API key, as "Authorization: Bearer"
// and, for some backends, a key header of their own, and every --header
// value, all of which may be secrets) go to the target's origin only, and
// no error text repeats them:
//
//   - The timed path follows no redirect: a 3xx answer fails its request,
//     on the lean HTTP/1.1 client and on net/http alike, with a text that
//     says so (see redirectNote). net/http alone would follow one and keep
//     the user's headers, and the Authorization header too for another
//     port of the same host.
//   - The ServerAPI (/v1/models, /tokenize, /detokenize, the profiler)
//     follows redirects within the origin only (see sameOriginRedirect).
//   - Error texts, the records' and the ServerAPI's, have the secrets
//     replaced by <redacted> (see newRedactor), even when the server
//     echoed them in its answer.

// redactedText replaces a secret in an error text; it is the text
// scenario.RedactedValue puts in place of header values.
const redactedText = "<redacted>"

// minSecretLen is the length below which the API key or a header value is
// not redacted from error texts: no real credential is that short, and
// redacting a value such as "1" or "yes" would garble every text that
// contains it.
const minSecretLen = 8

// maxRedirects bounds a chain of redirects, as net/http's default does.
const maxRedirects = 10

// noRedirect is the timed path's redirect policy: none is followed, the
// 3xx answer is the response (a failed request, as on the lean client).
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// sameOriginRedirect is the ServerAPI's redirect policy: redirects within
// the first request's origin are followed (with every header), up to
// maxRedirects; one to another origin is not, and its 3xx answer is the
// response, which the caller reports as an error.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	if !origin.Same(via[0].URL, req.URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

// isRedirect reports whether status asks the client to go elsewhere.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectNote is what the error text of a response with status adds when
// it is a redirect not followed: where it pointed (location, the Location
// header, shown without user info or query, which may hold credentials of
// their own) and what to do.
func redirectNote(status int, location string) string {
	if !isRedirect(status) {
		return ""
	}
	where := ""
	if location != "" {
		if u, err := url.Parse(location); err == nil {
			u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
			where = " to " + u.String()
		}
	}
	return " (a redirect" + where + ", not followed: vbench sends its requests, and the API key and headers they carry, only where target.base_url points; point it at the final URL)"
}

// newRedactor returns the replacer that puts redactedText in place of the
// API key and of every header value, of at least minSecretLen bytes each
// (and, for a value of the form "<scheme> <credentials>", such as "Bearer
// sk-...", of the credentials alone), in an error text; nil when there is
// nothing to redact.
func newRedactor(apiKey string, headers map[string]string) *strings.Replacer {
	var secrets []string
	values := []string{apiKey}
	for _, v := range headers {
		values = append(values, v)
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minSecretLen {
			continue
		}
		secrets = append(secrets, v)
		if _, cred, ok := strings.Cut(v, " "); ok {
			if cred = strings.TrimSpace(cred); len(cred) >= minSecretLen {
				secrets = append(secrets, cred)
			}
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	// The longest first, so that "Bearer sk-..." is replaced whole
	// rather than around its "sk-...".
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	secrets = slices.Compact(secrets)
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, redactedText)
	}
	return strings.NewReplacer(pairs...)
}

// redactedError is an error whose text had secrets replaced; it wraps the
// original, so errors.Is and errors.As see through it.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// redactError returns err with r's secrets redacted from its text (err
// itself when there are none in it).
func redactError(r *strings.Replacer, err error) error {
	if r == nil || err == nil {
		return err
	}
	s := err.Error()
	if t := r.Replace(s); t != s {
		return &redactedError{text: t, err: err}
	}
	return err
}
