package backend

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestNewServerAPICAFile checks that NewServerAPI trusts the CA file it is
// given and reports a CA file it cannot use.
func TestNewServerAPICAFile(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"id":"m","root":"r"}]}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	api, err := NewServerAPI(srv.URL, "", nil, false, ca)
	if err != nil {
		t.Fatalf("NewServerAPI: %v", err)
	}
	if id, root, err := api.Models(context.Background()); err != nil || id != "m" || root != "r" {
		t.Errorf("Models = %q, %q, %v; want m, r, nil", id, root, err)
	}

	// Without the CA file the server's certificate is not trusted.
	api, err = NewServerAPI(srv.URL, "", nil, false, "")
	if err != nil {
		t.Fatalf("NewServerAPI: %v", err)
	}
	if _, _, err := api.Models(context.Background()); err == nil {
		t.Error("Models without the CA file: no error, want an unknown authority")
	}

	if _, err := NewServerAPI(srv.URL, "", nil, false, filepath.Join(dir, "missing.pem")); err == nil {
		t.Error("NewServerAPI with a missing CA file: no error")
	}
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServerAPI(srv.URL, "", nil, false, bad); err == nil {
		t.Error("NewServerAPI with a CA file holding no certificate: no error")
	}
}
