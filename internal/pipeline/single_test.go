package pipeline

import (
	"context"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// A run derives its base URL once and makes one server-API client, which
// the tokenizer, the model lookup and the alignment share.
func TestEndpointOnce(t *testing.T) {
	tests := []struct {
		name, src, base string
	}{
		{"base url", `target: {base_url: "http://gpu:9000/", model: "m"}`, "http://gpu:9000"},
		{"host and port", `target: {host: "::1", port: 8001, model: "m"}`, "http://[::1]:8001"},
		{"simulator", `target: {simulator: {}, model: "m"}
tokenizer: name: "o200k_base"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenario.LoadBytes("t.cue", []byte(tt.src+"\ndataset: random: {input_len: 4, output_len: 2}"), scenario.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ep := newEndpoint(sc)
			if ep.base != tt.base {
				t.Errorf("base %q, want %q", ep.base, tt.base)
			}
			if sc.Target.Simulator != nil {
				tgt, err := resolveTarget(context.Background(), sc, nil, Env{}, ep)
				if err != nil {
					t.Fatal(err)
				}
				defer tgt.closeSim()
				if ep.base == "" || tgt.base != ep.base || tgt.ep != ep {
					t.Errorf("simulator base %q, target's %q", ep.base, tgt.base)
				}
			}
			a, err := ep.serverAPI("m1", Env{})
			if err != nil {
				t.Fatal(err)
			}
			made := ep.api
			b, err := ep.serverAPI("m2", Env{})
			if err != nil {
				t.Fatal(err)
			}
			if ep.api != made || a == b || a == made {
				t.Error("a second serverAPI call made another client, or the per-model views are shared")
			}
		})
	}
}
