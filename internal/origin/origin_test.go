package origin

import (
	"net/url"
	"testing"
)

func TestSame(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:8000/v1/completions", "http://127.0.0.1:8000/x?q", true},
		{"http://GPU:8000/a", "http://gpu:8000/b", true},
		{"https://api.example.com/v1", "https://api.example.com:443/v2", true},
		{"https://huggingface.co/x", "https://HuggingFace.co:443/y", true},
		{"http://h/a", "http://h:80/a", true},
		{"http://127.0.0.1:8000/a", "http://127.0.0.1:8001/a", false},
		{"http://127.0.0.1:8000/a", "http://localhost:8000/a", false},
		{"https://example.com/a", "https://api.example.com/a", false},
		{"https://huggingface.co/x", "https://cdn-lfs.huggingface.co/x", false},
		{"https://h/a", "http://h/a", false},
		{"https://h:8000/a", "http://h:8000/a", false},
		{"https://h/x", "https://h:8443/x", false},
		{"http://[::1]:8000/a", "http://[::1]:8001/a", false},
		{"ftp://h/a", "ftp://h/b", true},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := Same(a, b); got != tt.want {
			t.Errorf("Same(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
