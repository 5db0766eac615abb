package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

// CacheResets are the routes vLLM's sweep posts after each run (vLLM
// serves them with VLLM_SERVER_DEV_MODE=1).
var CacheResets = []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"}

// Manager keeps the managed server of a sequence of runs: it starts the
// server a run needs, reuses it for the next run when that needs the same
// one, and restarts it when not.
type Manager struct {
	// Stderr gets one line per start, stop and reset problem (nothing
	// when nil).
	Stderr io.Writer
	// Starts counts the servers started.
	Starts int

	cur *Proc
	key string
	// failed holds the start errors of the servers that did not start: a
	// later run that needs the same server fails at once with the same
	// error instead of waiting its ready_timeout again.
	failed map[string]error
}

// ConfigOf is the server configuration of a run's scenario (nil when the
// scenario has no target.server); the log goes under dir.
func ConfigOf(sc *scenario.Scenario, dir string) (*Config, error) {
	s := sc.Target.Server
	if s == nil {
		return nil, nil
	}
	argv, err := Argv(s.Command, s.Args)
	if err != nil {
		return nil, err
	}
	ready := s.ReadyURL
	if ready == "" {
		ready = sc.Target.ServerURL() + "/health"
	}
	if dir == "" {
		dir = "."
	}
	return &Config{
		Argv: argv, Env: s.Env, Dir: s.Dir, ReadyURL: ready,
		ReadyTimeout: seconds(s.ReadyTimeout), StopGrace: seconds(s.StopGrace),
		Log: filepath.Join(dir, s.Log),
	}, nil
}

// seconds converts a scenario's seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Ensure makes sure the server sc needs runs: it keeps the current one when
// it is the same and alive, else stops it and starts sc's. With no
// target.server it stops any current server.
func (m *Manager) Ensure(ctx context.Context, sc *scenario.Scenario, dir string) error {
	if m.Stderr == nil {
		m.Stderr = io.Discard
	}
	cfg, err := ConfigOf(sc, dir)
	if err != nil {
		return err
	}
	if cfg == nil {
		return m.Close()
	}
	key := cfg.Key()
	if m.cur != nil && m.key == key && m.cur.Died() == nil {
		return nil
	}
	if err := m.failed[key]; err != nil {
		return fmt.Errorf("%w (it did not start for an earlier run either)", err)
	}
	if err := m.Close(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Log), 0o755); err != nil {
		return fmt.Errorf("server log: %w", err)
	}
	fmt.Fprintf(m.Stderr, "Starting the server: %s (log %s)\n", strings.Join(scenario.RedactArgv(cfg.Argv), " "), cfg.Log)
	start := time.Now()
	p, err := Start(ctx, *cfg)
	if err != nil {
		if ctx.Err() == nil {
			if m.failed == nil {
				m.failed = map[string]error{}
			}
			m.failed[key] = err
		}
		return err
	}
	m.Starts++
	m.cur, m.key = p, key
	fmt.Fprintf(m.Stderr, "The server is ready after %.1f s\n", time.Since(start).Seconds())
	return nil
}

// Watch returns a context that ends with ctx or when the current server
// exits, and its cancel function.
func (m *Manager) Watch(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if m.cur == nil {
		return ctx, cancel
	}
	done := m.cur.Exited()
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Died returns the current server's exit, with the end of its log, or nil
// while it runs (or without a server).
func (m *Manager) Died() error {
	if m.cur == nil {
		return nil
	}
	return m.cur.Died()
}

// AfterRun does what follows each run: sc's after_run command, or the
// cache resets. A failure is reported on Stderr as a warning and returned.
func (m *Manager) AfterRun(ctx context.Context, sc *scenario.Scenario) error {
	s := sc.Target.Server
	if s == nil || m.cur == nil || m.cur.Died() != nil {
		return nil
	}
	if m.Stderr == nil {
		m.Stderr = io.Discard
	}
	if len(s.AfterRun) > 0 {
		cmd := exec.CommandContext(ctx, s.AfterRun[0], s.AfterRun[1:]...)
		cmd.Stdout, cmd.Stderr = m.Stderr, m.Stderr
		if err := cmd.Run(); err != nil {
			err = fmt.Errorf("server.after_run (%s): %w", strings.Join(s.AfterRun, " "), err)
			fmt.Fprintf(m.Stderr, "Warning: %v\n", err)
			return err
		}
		return nil
	}
	if !s.ResetCaches {
		return nil
	}
	var failed []string
	client := &http.Client{Timeout: 30 * time.Second}
	for _, route := range CacheResets {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, sc.Target.ServerURL()+route, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", route, err))
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			failed = append(failed, fmt.Sprintf("%s: HTTP %d", route, resp.StatusCode))
		}
	}
	if len(failed) > 0 {
		err := fmt.Errorf("resetting the server's caches failed: %s", strings.Join(failed, "; "))
		fmt.Fprintf(m.Stderr, "Warning: %v\n", err)
		return err
	}
	return nil
}

// Close stops the current server, if any.
func (m *Manager) Close() error {
	if m.cur == nil {
		return nil
	}
	if m.Stderr == nil {
		m.Stderr = io.Discard
	}
	fmt.Fprintf(m.Stderr, "Stopping the server\n")
	err := m.cur.Stop()
	m.cur, m.key = nil, ""
	return err
}

// ResetPrefixCache posts baseURL's /reset_prefix_cache, as vllm-bench's
// --reset-prefix-cache does before each sweep point: with no headers, and
// an error unless the server answers 2xx.
func ResetPrefixCache(ctx context.Context, baseURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(baseURL, "/")+"/reset_prefix_cache", nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("resetting the prefix cache: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("resetting the prefix cache: HTTP %d from %s/reset_prefix_cache (is VLLM_SERVER_DEV_MODE=1 set on the server?)", resp.StatusCode, strings.TrimSuffix(baseURL, "/"))
	}
	return nil
}
