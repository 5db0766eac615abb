package calibrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// simStartTimeout bounds how long the simulator may take to write its URL.
const simStartTimeout = 30 * time.Second

// simStopTimeout is how long the simulator gets to exit after an interrupt
// before it is killed.
const simStopTimeout = 5 * time.Second

// SimProcess is a `vbench sim` running as a child process.
type SimProcess struct {
	// URL is the simulator's base URL.
	URL string
	// Nice is the niceness it runs at, or -1 if it could not be set.
	Nice int

	cmd    *exec.Cmd
	dir    string
	stderr *lockedBuffer
	exited chan struct{}
	err    error // the wait error, set before exited is closed
}

// StartSim starts `exe sim --addr 127.0.0.1:0 --url-file F` with the
// latency model of cfg (and the simulator's word tokenizer, so prompt
// counting costs it nothing) at niceness cfg.SimNice, waits until it has
// written its URL to F, and returns the running process. Close stops it.
func StartSim(ctx context.Context, exe string, cfg Config) (*SimProcess, error) {
	dir, err := os.MkdirTemp("", "vbench-calibrate-")
	if err != nil {
		return nil, fmt.Errorf("starting the simulator: %w", err)
	}
	urlFile := filepath.Join(dir, "sim.url")
	args := []string{"sim", "--addr", "127.0.0.1:0", "--url-file", urlFile,
		"--ttft", cfg.TTFT.String(), "--itl", cfg.ITL.String(),
		"--output-len", strconv.Itoa(cfg.OutputLen), "--tokenizer", ""}
	cmd := exec.Command(exe, args...)
	p := &SimProcess{cmd: cmd, dir: dir, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout = p.stderr
	cmd.Stderr = p.stderr
	nice, err := startNiced(cmd, cfg.SimNice)
	p.Nice = nice
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the simulator (%s): %w", exe, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.NewTimer(simStartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(urlFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			p.URL = strings.TrimSpace(string(b))
			return p, nil
		}
		select {
		case <-tick.C:
		case <-p.exited:
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("the simulator (%s %s) exited before it was ready: %v: %s",
				exe, strings.Join(args, " "), p.err, strings.TrimSpace(p.stderr.String()))
		case <-deadline.C:
			p.Close()
			return nil, fmt.Errorf("the simulator did not write its URL within %v: %s", simStartTimeout, strings.TrimSpace(p.stderr.String()))
		case <-ctx.Done():
			p.Close()
			return nil, ctx.Err()
		}
	}
}

// Pid is the simulator's process id.
func (p *SimProcess) Pid() int { return p.cmd.Process.Pid }

// Close interrupts the simulator, kills it if it has not exited within
// simStopTimeout, and removes its temporary directory.
func (p *SimProcess) Close() {
	select {
	case <-p.exited:
	default:
		if err := p.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
			_ = p.cmd.Process.Kill()
		}
		select {
		case <-p.exited:
		case <-time.After(simStopTimeout):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	_ = os.RemoveAll(p.dir)
}

// lockedBuffer is a bytes.Buffer safe for the child's output copier and a
// reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil // keep the start; enough to explain a failure
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
