// Package server starts, watches and stops a server that vbench manages
// (a scenario's target.server), as vLLM's `vllm bench sweep serve` does
// with its --serve-cmd: the command runs in a process group of its own with
// its output in a log file, is polled until it answers, and is stopped with
// SIGTERM and then, after a grace period, SIGKILL to the whole group.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

// Config is one server to start.
type Config struct {
	// Argv is the command with its options (see Argv).
	Argv []string
	// Env are variables added to this process's environment.
	Env map[string]string
	// Dir is the working directory ("" = this process's).
	Dir string
	// ReadyURL is polled with GET until it answers 200.
	ReadyURL string
	// ReadyTimeout bounds the wait for readiness.
	ReadyTimeout time.Duration
	// StopGrace is the time between SIGTERM and SIGKILL.
	StopGrace time.Duration
	// Log is the file the server's output is appended to.
	Log string
}

// Key identifies what the server runs: two configurations with the same
// key run the same server, so a run may reuse one started for another.
func (c *Config) Key() string {
	b, _ := json.Marshal(struct {
		Argv []string
		Env  map[string]string
		Dir  string
	}{c.Argv, c.Env, c.Dir})
	return string(b)
}

// Argv applies args to command as vLLM's sweep applies --serve-params: a
// key becomes an option, "--" + key with the underscores before its first
// dot turned to dashes (max_num_seqs: --max-num-seqs;
// compilation_config.mode: --compilation-config.mode); true is the bare
// option and false "--no-" + key (a dotted key takes "=true" or "=false"
// instead), a string is its text, an object or list its compact JSON
// (vLLM's sweep writes a list as Python's repr, which is not JSON), and
// anything else (a number) as written. An option already in command
// ("--key", "--key_name" or "--key=value") is replaced where it stands,
// with the value that follows it if it had one; otherwise the option is
// appended. Keys apply in sorted order, so the result does not depend on
// map order.
func Argv(command []string, args map[string]json.RawMessage) ([]string, error) {
	argv := slices.Clone(command)
	for _, key := range slices.Sorted(maps.Keys(args)) {
		name := strings.TrimLeft(key, "-")
		head, rest, dotted := strings.Cut(name, ".")
		name = strings.ReplaceAll(head, "_", "-")
		if dotted {
			name += "." + rest
		}
		if head == "" {
			return nil, fmt.Errorf("server.args: %q is not an option name", key)
		}
		opt, err := option(name, dotted, args[key])
		if err != nil {
			return nil, fmt.Errorf("server.args.%s: %w", key, err)
		}
		argv = replaceOption(argv, name, opt)
	}
	return argv, nil
}

// option renders one parameter as its argv words.
func option(name string, dotted bool, raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return nil, errors.New("null is not an option value")
	case bool:
		if dotted {
			return []string{"--" + name + "=" + strconv.FormatBool(x)}, nil
		}
		if x {
			return []string{"--" + name}, nil
		}
		return []string{"--no-" + name}, nil
	case string:
		return []string{"--" + name, x}, nil
	case json.Number:
		return []string{"--" + name, x.String()}, nil
	default:
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		return []string{"--" + name, b.String()}, nil
	}
}

// replaceOption replaces the option name (in any of its spellings, and its
// --no- form) in argv with opt, or appends opt.
func replaceOption(argv []string, name string, opt []string) []string {
	norm := func(s string) string { // underscores before the first dot
		head, rest, dotted := strings.Cut(s, ".")
		head = strings.ReplaceAll(head, "_", "-")
		if dotted {
			return head + "." + rest
		}
		return head
	}
	for i, w := range argv {
		if !strings.HasPrefix(w, "--") {
			continue
		}
		flag, _, hasValue := strings.Cut(norm(w), "=")
		if flag != "--"+name && flag != "--no-"+name {
			continue
		}
		end := i + 1
		// "--name value": the value goes too, when the new option has one
		// (a bare option replaced by one takes no positional argument
		// with it). A negative number is a value, not an option.
		if !hasValue && flag == "--"+name && len(opt) == 2 && end < len(argv) && isValue(argv[end]) {
			end++
		}
		return slices.Concat(argv[:i], opt, argv[end:])
	}
	return append(argv, opt...)
}

// isValue says whether an argv word after an option is its value: not an
// option itself, unless it is a negative number.
func isValue(w string) bool {
	if !strings.HasPrefix(w, "-") {
		return true
	}
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}

// Proc is a running server.
type Proc struct {
	cfg  Config
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed

	stopOnce sync.Once
}

// Start starts the server and returns once it answers at ReadyURL. If it
// does not within ReadyTimeout, exits first, or ctx ends, it is stopped and
// the error quotes the end of its log.
func Start(ctx context.Context, cfg Config) (*Proc, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("server.command is empty")
	}
	if answered(ctx, cfg.ReadyURL) {
		return nil, fmt.Errorf("something already answers at %s: another server listens on that port (stop it, or give this one another port)", cfg.ReadyURL)
	}
	log, err := os.OpenFile(cfg.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	fmt.Fprintf(log, "== vbench: starting the server at %s: %s\n", time.Now().Format(time.RFC3339), strings.Join(scenario.RedactArgv(cfg.Argv), " "))
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "VLLM_SERVER_DEV_MODE=1")
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
	}
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting the server (%s): %w", cfg.Argv[0], err)
	}
	p := &Proc{cfg: cfg, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx); err != nil {
		_ = p.Stop()
		return nil, fmt.Errorf("%w%s", err, p.tailNote())
	}
	return p, nil
}

// answered says whether anything answers HTTP at url now.
func answered(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := (&http.Client{Timeout: time.Second}).Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return true
}

// waitReady polls the ready URL until it answers 200.
func (p *Proc) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(p.cfg.ReadyTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.ReadyURL, nil)
		if err != nil {
			return fmt.Errorf("server.ready_url: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			select {
			case <-p.done: // another process answered on its port
			default:
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
		select {
		case <-p.done:
			how := "exit status 0"
			if p.err != nil {
				how = p.err.Error()
			}
			return fmt.Errorf("the server exited before it was ready (%s)", how)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server was not ready at %s within %v", p.cfg.ReadyURL, p.cfg.ReadyTimeout)
		}
	}
}

// Exited is closed when the server process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// Died returns nil while the server runs, else an error that says how it
// exited and quotes the end of its log.
func (p *Proc) Died() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	how := "exit status 0"
	if p.err != nil {
		how = p.err.Error()
	}
	return fmt.Errorf("%w (%s)%s", ErrExited, how, p.tailNote())
}

// ErrExited is wrapped by Died's error.
var ErrExited = errors.New("the server exited during the run")

// Stop stops the server: SIGTERM to its process group, then SIGKILL to the
// group after StopGrace, or at once if it has not exited by then. It waits
// for the process and closes the log; it is safe to call more than once.
func (p *Proc) Stop() error {
	p.stopOnce.Do(func() {
		signalGroup(p.cmd, false)
		select {
		case <-p.done:
		case <-time.After(p.cfg.StopGrace):
		}
		signalGroup(p.cmd, true) // the leader's children too
		<-p.done
		fmt.Fprintf(p.log, "== vbench: the server stopped at %s\n", time.Now().Format(time.RFC3339))
		_ = p.log.Close()
	})
	return nil
}

// tailNote is ": the last lines of <log>:" and the end of the log, or ""
// when the log is empty.
func (p *Proc) tailNote() string {
	t := Tail(p.cfg.Log, 20)
	if t == "" {
		return ""
	}
	return fmt.Sprintf("; the last lines of %s:\n%s", p.cfg.Log, t)
}

// Tail returns the last n lines of the file at path (from its last 16 KiB),
// each indented by two spaces, or "" when it cannot be read or is empty.
func Tail(path string, n int) string {
	if n <= 0 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 16 << 10
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	// One byte before the window says whether its first line is whole.
	off := max(st.Size()-window-1, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		return ""
	}
	partial := false
	if off > 0 {
		partial = b[0] != '\n'
		b = b[1:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if partial && len(lines) > 1 {
		lines = lines[1:] // a partial first line
	}
	lines = lines[max(len(lines)-n, 0):]
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "  " + strings.Join(lines, "\n  ")
}
