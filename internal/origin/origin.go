// Package origin compares the origins of URLs (RFC 6454: scheme, host and
// port), for the redirect policies that decide where a credential may go.
// It is a leaf package: it imports no other vbench package.
package origin

import (
	"net/url"
	"strings"
)

// Same reports whether a and b have the same origin: scheme, host name
// (letter case aside) and port, the scheme's default port standing for a
// missing one. Unlike net/http's rule for forwarding the Authorization
// header, which looks at the host name only (and lets a subdomain in),
// another port or scheme is another origin.
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port is u's port, or its scheme's default port when it has none.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
