package server

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

// ConfigOf maps a scenario's target.server onto a Config: the args applied
// to the command, the ready URL defaulting to the target's /health, the
// log under the result directory, and seconds turned into durations.
func TestConfigOf(t *testing.T) {
	base := scenario.Server{Command: []string{"vllm", "serve", "m"}, ReadyTimeout: 300, StopGrace: 10, Log: "server.log", ResetCaches: true}
	for _, tc := range []struct {
		name   string
		target scenario.Target
		dir    string
		want   Config
	}{
		{"defaults", scenario.Target{Host: "127.0.0.1", Port: 8000, Server: &base}, "out",
			Config{Argv: []string{"vllm", "serve", "m"}, ReadyURL: "http://127.0.0.1:8000/health",
				ReadyTimeout: 300 * time.Second, StopGrace: 10 * time.Second, Log: filepath.Join("out", "server.log")}},
		{"base url, no result dir", scenario.Target{BaseURL: "http://gpu:9000/", Server: &base}, "",
			Config{Argv: []string{"vllm", "serve", "m"}, ReadyURL: "http://gpu:9000/health",
				ReadyTimeout: 300 * time.Second, StopGrace: 10 * time.Second, Log: "server.log"}},
		{"everything set", scenario.Target{Host: "h", Port: 1, Server: &scenario.Server{
			Command: []string{"srv", "--max-num-seqs", "8"}, Args: map[string]json.RawMessage{"max_num_seqs": json.RawMessage("64")},
			Env: map[string]string{"A": "1"}, Dir: "/srv", ReadyURL: "http://h:1/ready", ReadyTimeout: 1.5, StopGrace: 0.25, Log: "logs/s.log"}}, "r",
			Config{Argv: []string{"srv", "--max-num-seqs", "64"}, Env: map[string]string{"A": "1"}, Dir: "/srv", ReadyURL: "http://h:1/ready",
				ReadyTimeout: 1500 * time.Millisecond, StopGrace: 250 * time.Millisecond, Log: filepath.Join("r", "logs", "s.log")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigOf(&scenario.Scenario{Target: tc.target}, tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("ConfigOf:\n got %+v\nwant %+v", *got, tc.want)
			}
		})
	}
	if c, err := ConfigOf(&scenario.Scenario{}, "out"); c != nil || err != nil {
		t.Errorf("ConfigOf without a server = %v, %v; want nil, nil", c, err)
	}
}

// The key changes with what the server runs, and only with that.
func TestConfigKey(t *testing.T) {
	a := Config{Argv: []string{"s", "--x", "1"}, Env: map[string]string{"K": "v"}, Dir: "d", ReadyURL: "u", Log: "l"}
	same := a
	same.ReadyURL, same.Log, same.ReadyTimeout = "other", "other.log", time.Second
	if a.Key() != same.Key() {
		t.Error("the ready URL, log or timeouts changed the key")
	}
	for name, c := range map[string]Config{
		"argv": {Argv: []string{"s", "--x", "2"}, Env: a.Env, Dir: a.Dir},
		"env":  {Argv: a.Argv, Env: map[string]string{"K": "w"}, Dir: a.Dir},
		"dir":  {Argv: a.Argv, Env: a.Env, Dir: "e"},
	} {
		if c.Key() == a.Key() {
			t.Errorf("another %s kept the key", name)
		}
	}
}

// A server that did not start fails the later runs that need it at once,
// with the same error, instead of being started (and waited for) again.
func TestManagerRemembersFailedStarts(t *testing.T) {
	sc := &scenario.Scenario{Target: scenario.Target{Host: "127.0.0.1", Port: 1, Server: &scenario.Server{
		Command: []string{filepath.Join(t.TempDir(), "no-such-server")}, ReadyTimeout: 1, StopGrace: 1, Log: "server.log"}}}
	m := &Manager{}
	first := m.Ensure(t.Context(), sc, t.TempDir())
	if first == nil {
		t.Fatal("a missing command started")
	}
	second := m.Ensure(t.Context(), sc, t.TempDir())
	if second == nil || !errors.Is(second, first) || !strings.Contains(second.Error(), "did not start for an earlier run either") {
		t.Errorf("second start: %v", second)
	}
	if m.Starts != 0 {
		t.Errorf("Starts = %d", m.Starts)
	}
}
