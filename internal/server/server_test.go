//go:build unix

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

// The tests use this test binary as the managed server: with helperEnv set
// (through Config.Env or the scenario's server.env, which exercises them),
// TestMain runs the helper server that the variable names instead of the
// tests.
const (
	// helperEnv selects the helper mode.
	helperEnv = "VBENCH_SERVER_HELPER"
	// pidFileEnv names the file the stubborn helper writes its child's pid to.
	pidFileEnv = "VBENCH_SERVER_HELPER_PIDFILE"
	// helperLife bounds the life of a helper a failed test leaves behind.
	helperLife = 2 * time.Minute
	// bound is a generous limit on waits that normally take milliseconds.
	bound = 30 * time.Second
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helperMain is a helper server; it returns its exit status. Every mode
// prints its argv (the options Argv appended included), working directory
// and VLLM_SERVER_DEV_MODE first. The modes:
//
//	serve       serves GET /health and POST CacheResets, printing a line per
//	            reset; on SIGTERM prints a line and exits 0
//	bare        serves GET /health only
//	stubborn    ignores SIGTERM, starts a "sleep" child (which ignores it
//	            too) and writes its pid to $VBENCH_SERVER_HELPER_PIDFILE,
//	            then serves GET /health
//	die-later   serves GET /health and exits 3 about 1 s after its
//	            first answer (so the start always sees it ready)
//	never-ready prints a line and sleeps without listening
//	exit-early  prints a line and exits 3 without listening
//	sleep       ignores SIGTERM and sleeps
func helperMain(mode string, args []string) int {
	wd, _ := os.Getwd()
	fmt.Printf("helper %s: argv %s\n", mode, strings.Join(args, " "))
	fmt.Printf("helper %s: cwd %s VLLM_SERVER_DEV_MODE=%s\n", mode, wd, os.Getenv("VLLM_SERVER_DEV_MODE"))
	go func() { // whatever happens to the test
		time.Sleep(helperLife)
		os.Exit(4)
	}()
	switch mode {
	case "sleep":
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "never-ready":
		fmt.Println("helper never-ready: not listening")
		select {}
	case "exit-early":
		fmt.Println("helper exit-early: exiting with status 3")
		return 3
	}
	mux := http.NewServeMux()
	health := func(http.ResponseWriter, *http.Request) {}
	switch mode {
	case "serve":
		for _, route := range CacheResets {
			mux.HandleFunc("POST "+route, func(http.ResponseWriter, *http.Request) {
				fmt.Printf("helper serve: reset %s\n", route)
			})
		}
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		go func() {
			<-term
			fmt.Println("helper serve: SIGTERM, exiting")
			os.Exit(0)
		}()
	case "bare":
	case "stubborn":
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		go func() {
			for range term {
				fmt.Println("helper stubborn: ignoring SIGTERM")
			}
		}()
		exe, err := os.Executable()
		if err != nil {
			fmt.Println("helper stubborn:", err)
			return 1
		}
		child := exec.Command(exe)
		child.Env = append(os.Environ(), helperEnv+"=sleep")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			fmt.Println("helper stubborn:", err)
			return 1
		}
		go func() { _ = child.Wait() }()
		if err := os.WriteFile(os.Getenv(pidFileEnv), []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			fmt.Println("helper stubborn:", err)
			return 1
		}
		fmt.Printf("helper stubborn: child %d\n", child.Process.Pid)
	case "die-later":
		var once sync.Once
		health = func(http.ResponseWriter, *http.Request) {
			once.Do(func() {
				time.AfterFunc(time.Second, func() {
					fmt.Println("helper die-later: exiting with status 3")
					os.Exit(3)
				})
			})
		}
	default:
		fmt.Printf("helper: unknown mode %q\n", mode)
		return 2
	}
	mux.HandleFunc("GET /health", health)
	addr := argValue(args, "--addr")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Printf("helper %s: %v\n", mode, err)
		return 1
	}
	fmt.Printf("helper %s: serving on %s\n", mode, addr)
	err = http.Serve(ln, mux)
	fmt.Printf("helper %s: %v\n", mode, err)
	return 1
}

// argValue is the value of the option name in args ("--name value" or
// "--name=value"), ignoring every other word.
func argValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// freeAddr is a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// helperExe is the path of this test binary.
func helperExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// helperConfig is a Config that runs the helper in mode on a free port,
// logging to a file in a new temporary directory.
func helperConfig(t *testing.T, mode string) Config {
	t.Helper()
	addr := freeAddr(t)
	return Config{
		Argv:         []string{helperExe(t), "--addr", addr},
		Env:          map[string]string{helperEnv: mode},
		ReadyURL:     "http://" + addr + "/health",
		ReadyTimeout: bound,
		StopGrace:    bound,
		Log:          filepath.Join(t.TempDir(), "server.log"),
	}
}

// start starts cfg and stops it when the test ends.
func start(t *testing.T, cfg Config) *Proc {
	t.Helper()
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { stop(t, p) })
	return p
}

// stop stops p, failing the test if Stop returns an error or does not
// return within bound (so that a Stop that cannot reach the server fails
// the test instead of hanging it).
func stop(t *testing.T, p *Proc) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Stop() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(bound):
		t.Errorf("Stop did not return within %v", bound)
	}
}

// readFile is the content of the file at path ("" if it cannot be read).
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// waitExit waits, within bound, for p to exit.
func waitExit(t *testing.T, p *Proc) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(bound):
		t.Fatalf("the server did not exit within %v", bound)
	}
}

// exited reports whether p has exited, without waiting.
func exited(p *Proc) bool {
	select {
	case <-p.Exited():
		return true
	default:
		return false
	}
}

// contains fails the test for each of wants that s lacks.
func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// processGone reports whether the process pid is gone: absent, or a
// zombie nobody reaps (as one reparented to an init that does not reap
// may stay).
func processGone(pid int) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil { // no procfs
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')') // after the command name, which may hold anything
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// Argv turns server params into options the way vLLM's sweep does: each
// kind of value, names normalised, options already in the command
// replaced where they stand, others appended in sorted key order.
func TestArgv(t *testing.T) {
	base := []string{"vllm", "serve", "m"}
	for _, tc := range []struct {
		name    string
		command []string
		args    map[string]string // raw JSON values
		want    []string
		wantErr string
	}{
		{"no args", base, nil, base, ""},
		{"false replaces a bare flag and keeps the positional after it", []string{"vllm", "serve", "--enforce-eager", "m"},
			map[string]string{"enforce_eager": "false"}, []string{"vllm", "serve", "--no-enforce-eager", "m"}, ""},
		{"a negative value is a value", []string{"s", "--seed", "-1", "-p", "1"},
			map[string]string{"seed": "0"}, []string{"s", "--seed", "0", "-p", "1"}, ""},
		{"true", base, map[string]string{"enforce_eager": "true"},
			[]string{"vllm", "serve", "m", "--enforce-eager"}, ""},
		{"false", base, map[string]string{"enforce_eager": "false"},
			[]string{"vllm", "serve", "m", "--no-enforce-eager"}, ""},
		{"underscores become dashes", base, map[string]string{"max_num_batched_tokens": "4096"},
			[]string{"vllm", "serve", "m", "--max-num-batched-tokens", "4096"}, ""},
		{"dashes and leading dashes kept", base, map[string]string{"--max-model-len": "2048"},
			[]string{"vllm", "serve", "m", "--max-model-len", "2048"}, ""},
		{"string", base, map[string]string{"dtype": `"bfloat16"`},
			[]string{"vllm", "serve", "m", "--dtype", "bfloat16"}, ""},
		{"integer", base, map[string]string{"max_num_seqs": "64"},
			[]string{"vllm", "serve", "m", "--max-num-seqs", "64"}, ""},
		{"float as written", base, map[string]string{"gpu_memory_utilization": "0.90"},
			[]string{"vllm", "serve", "m", "--gpu-memory-utilization", "0.90"}, ""},
		{"exponent as written", base, map[string]string{"max_num_batched_tokens": "1e4"},
			[]string{"vllm", "serve", "m", "--max-num-batched-tokens", "1e4"}, ""},
		{"object as compact JSON", base, map[string]string{"compilation_config": `{ "mode": 3, "sizes": [1, 2] }`},
			[]string{"vllm", "serve", "m", "--compilation-config", `{"mode":3,"sizes":[1,2]}`}, ""},
		{"list as compact JSON", base, map[string]string{"cuda_graph_sizes": `[ 1, 2, 4 ]`},
			[]string{"vllm", "serve", "m", "--cuda-graph-sizes", "[1,2,4]"}, ""},
		{"dotted key keeps underscores after the dot", base, map[string]string{"compilation_config.cudagraph_mode": `"FULL"`},
			[]string{"vllm", "serve", "m", "--compilation-config.cudagraph_mode", "FULL"}, ""},
		{"dotted true", base, map[string]string{"compilation_config.use_inductor": "true"},
			[]string{"vllm", "serve", "m", "--compilation-config.use_inductor=true"}, ""},
		{"dotted false", base, map[string]string{"compilation_config.use_inductor": "false"},
			[]string{"vllm", "serve", "m", "--compilation-config.use_inductor=false"}, ""},
		{"replaces an option and its value in place",
			[]string{"vllm", "serve", "m", "--max-num-seqs", "8", "--port", "8000"}, map[string]string{"max_num_seqs": "64"},
			[]string{"vllm", "serve", "m", "--max-num-seqs", "64", "--port", "8000"}, ""},
		{"replaces an underscored option",
			[]string{"vllm", "serve", "--max_num_seqs", "8", "m"}, map[string]string{"max_num_seqs": "64"},
			[]string{"vllm", "serve", "--max-num-seqs", "64", "m"}, ""},
		{"replaces an = option in place",
			[]string{"vllm", "serve", "--max_num_seqs=8", "m"}, map[string]string{"max_num_seqs": "64"},
			[]string{"vllm", "serve", "--max-num-seqs", "64", "m"}, ""},
		{"replaces a bare flag by its --no- form in place",
			[]string{"vllm", "serve", "m", "--enforce-eager", "--port", "8000"}, map[string]string{"enforce_eager": "false"},
			[]string{"vllm", "serve", "m", "--no-enforce-eager", "--port", "8000"}, ""},
		{"replaces a --no- flag in place",
			[]string{"vllm", "serve", "m", "--no-enforce-eager", "--port", "8000"}, map[string]string{"enforce_eager": "true"},
			[]string{"vllm", "serve", "m", "--enforce-eager", "--port", "8000"}, ""},
		{"replaces a dotted = option in place",
			[]string{"s", "--compilation-config.use_inductor=false", "--x"}, map[string]string{"compilation_config.use_inductor": "true"},
			[]string{"s", "--compilation-config.use_inductor=true", "--x"}, ""},
		{"replaces a flag by a value",
			[]string{"s", "--enforce-eager", "--x"}, map[string]string{"enforce_eager": `"yes"`},
			[]string{"s", "--enforce-eager", "yes", "--x"}, ""},
		{"appends when absent, leaving similar names alone",
			[]string{"s", "--max-num-seqs-x", "1", "--max-num"}, map[string]string{"max_num_seqs": "64"},
			[]string{"s", "--max-num-seqs-x", "1", "--max-num", "--max-num-seqs", "64"}, ""},
		{"several keys in sorted order",
			[]string{"s", "--b", "0"}, map[string]string{"c_d": "true", "b": "1", "a": `"x"`, "aa": "2"},
			[]string{"s", "--b", "1", "--a", "x", "--aa", "2", "--c-d"}, ""},
		{"null", base, map[string]string{"max_num_seqs": "null"}, nil, "server.args.max_num_seqs: null is not an option value"},
		{"invalid JSON", base, map[string]string{"max_num_seqs": "{"}, nil, "server.args.max_num_seqs:"},
		{"no name", base, map[string]string{"--": "1"}, nil, `"--" is not an option name`},
		{"no name before the dot", base, map[string]string{".x": "1"}, nil, `".x" is not an option name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args map[string]json.RawMessage
			if tc.args != nil {
				args = map[string]json.RawMessage{}
				for k, v := range tc.args {
					args[k] = json.RawMessage(v)
				}
			}
			// Extra capacity would let an append write past the caller's slice.
			command := slices.Grow(slices.Clone(tc.command), 8)
			orig := slices.Clone(command)
			got, err := Argv(command, args)
			if !slices.Equal(command, orig) || !slices.Equal(command[:cap(command)][len(command):], make([]string, cap(command)-len(command))) {
				t.Errorf("Argv modified its command: %q", command[:cap(command)])
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Argv = %q, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Argv:\n got %q\nwant %q", got, tc.want)
			}
			if len(got) > 0 && len(command) > 0 {
				got[0] = "changed"
				if command[0] == "changed" {
					t.Error("Argv's result shares the command's array")
				}
			}
		})
	}
}

// Tail returns the last lines of a file, indented, and "" for an empty or
// missing file; of a file longer than its window it drops the partial
// first line.
func TestTail(t *testing.T) {
	var long strings.Builder
	for i := range 2000 { // 22,000 bytes; the 16 KiB window starts inside line 510
		fmt.Fprintf(&long, "line %05d\n", i)
	}
	var longWant []string
	for i := 511; i < 2000; i++ {
		longWant = append(longWant, fmt.Sprintf("  line %05d", i))
	}
	var aligned strings.Builder
	for i := range 2000 { // 16-byte lines: the 16 KiB window starts on line 976
		fmt.Fprintf(&aligned, "line %010d\n", i)
	}
	var alignedWant []string
	for i := 976; i < 2000; i++ {
		alignedWant = append(alignedWant, fmt.Sprintf("  line %010d", i))
	}
	for _, tc := range []struct {
		name    string
		content *string // nil: no file
		n       int
		want    string
	}{
		{"missing file", nil, 5, ""},
		{"n is 0", ptr("a\nb\n"), 0, ""},
		{"n is negative", ptr("a\nb\n"), -1, ""},
		{"the window starts on a line", ptr(aligned.String()), 5000, strings.Join(alignedWant, "\n")},
		{"empty file", ptr(""), 5, ""},
		{"only newlines", ptr("\n\n"), 5, ""},
		{"fewer lines than n", ptr("a\nb\n"), 5, "  a\n  b"},
		{"exactly n lines", ptr("a\nb\nc\n"), 3, "  a\n  b\n  c"},
		{"more lines than n", ptr("a\nb\nc\nd\n"), 2, "  c\n  d"},
		{"no final newline", ptr("a\nb\nc"), 2, "  b\n  c"},
		{"blank lines kept", ptr("a\n\nb\n"), 3, "  a\n  \n  b"},
		{"longer than the window, last lines", ptr(long.String()), 2, "  line 01998\n  line 01999"},
		{"longer than the window, all it holds", ptr(long.String()), 5000, strings.Join(longWant, "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			if tc.content != nil {
				if err := os.WriteFile(path, []byte(*tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := Tail(path, tc.n); got != tc.want {
				t.Errorf("Tail(%d) =\n%q\nwant\n%q", tc.n, got, tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// Start refuses an empty command and reports a log it cannot open and a
// command it cannot start, leaving no log open.
func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty command", Config{Log: filepath.Join(dir, "a.log")}, "server.command is empty"},
		{"log directory missing", Config{Argv: []string{"true"}, Log: filepath.Join(dir, "missing", "s.log")}, "server log:"},
		{"command missing", Config{Argv: []string{filepath.Join(dir, "no-such-server")}, Log: filepath.Join(dir, "c.log")}, "starting the server ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(context.Background(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				if p != nil {
					_ = p.Stop()
				}
				t.Fatalf("Start = %v; want an error with %q", err, tc.want)
			}
			if p != nil {
				t.Error("Start returned a Proc with its error")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty command created its log (%v)", err)
	}
}

// A server starts in a process group of its own with the config's
// environment and directory, answers before Start returns, runs until
// stopped (Died is nil meanwhile), gets SIGTERM from Stop, and leaves a log
// with vbench's start and stop lines around its own output. Stopping twice
// is safe.
func TestStartStop(t *testing.T) {
	cfg := helperConfig(t, "serve")
	cfg.Dir = t.TempDir()
	cfg.Env["VBENCH_SERVER_HELPER_UNUSED"] = "1"
	p := start(t, cfg)

	if pgid, err := syscall.Getpgid(p.cmd.Process.Pid); err != nil || pgid != p.cmd.Process.Pid {
		t.Errorf("the server's process group is %d (%v); want its own, %d", pgid, err, p.cmd.Process.Pid)
	}
	resp, err := http.Get(cfg.ReadyURL)
	if err != nil {
		t.Fatalf("the server does not answer after Start: %v", err)
	}
	_ = resp.Body.Close()
	if err := p.Died(); err != nil {
		t.Errorf("Died while running = %v", err)
	}
	if exited(p) {
		t.Error("Exited is closed while running")
	}

	stop(t, p)
	if !exited(p) {
		t.Fatal("Exited is open after Stop")
	}
	stop(t, p) // again
	err = p.Died()
	if !errors.Is(err, ErrExited) {
		t.Errorf("Died after Stop = %v; want ErrExited", err)
	} else {
		contains(t, "Died", err.Error(), "(exit status 0)", "helper serve: SIGTERM, exiting")
	}

	wd, err := filepath.EvalSymlinks(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	log := readFile(t, cfg.Log)
	contains(t, "the log", log,
		"== vbench: starting the server at ",
		": "+strings.Join(cfg.Argv, " ")+"\n",
		"helper serve: argv --addr "+argValue(cfg.Argv, "--addr")+"\n",
		"helper serve: cwd "+wd+" VLLM_SERVER_DEV_MODE=1\n",
		"helper serve: serving on "+argValue(cfg.Argv, "--addr")+"\n",
		"helper serve: SIGTERM, exiting\n",
		"== vbench: the server stopped at ",
	)
	if !strings.HasPrefix(log, "== vbench: starting the server at ") {
		t.Errorf("the log does not start with the start line:\n%s", log)
	}
	if i, j := strings.Index(log, "SIGTERM, exiting"), strings.Index(log, "the server stopped"); i > j {
		t.Errorf("the stop line is not after the server's last output:\n%s", log)
	}
	if n := strings.Count(log, "the server stopped"); n != 1 {
		t.Errorf("the log has %d stop lines; want 1:\n%s", n, log)
	}
}

// A server that survives SIGTERM is killed with SIGKILL after the grace
// period, and so is the process it started, which is in its group.
func TestStopEscalates(t *testing.T) {
	cfg := helperConfig(t, "stubborn")
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cfg.Env[pidFileEnv] = pidFile
	cfg.StopGrace = 200 * time.Millisecond
	p := start(t, cfg)

	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // only if the test failed to kill it
		if !processGone(child) {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if processGone(child) {
		t.Fatalf("the helper's child %d is not running", child)
	}
	if pgid, err := syscall.Getpgid(child); err != nil || pgid != p.cmd.Process.Pid {
		t.Errorf("the child's process group is %d (%v); want the server's, %d", pgid, err, p.cmd.Process.Pid)
	}

	stop(t, p)
	if err := p.Died(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Died after Stop = %v; want the server killed", err)
	}
	for deadline := time.Now().Add(bound); !processGone(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the helper's child %d outlived Stop", child)
		}
	}
	contains(t, "the log", readFile(t, cfg.Log), "helper stubborn: child ", "== vbench: the server stopped at ")
}

// A server that never answers is stopped after ReadyTimeout, and the error
// says so and quotes its log. (The ready URL is a stand-in that answers
// 503, and only once the helper has logged, so that the quote does not
// depend on how fast the helper starts.)
func TestStartNotReady(t *testing.T) {
	cfg := helperConfig(t, "never-ready")
	const line = "helper never-ready: not listening"
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 150; i++ {
			if b, _ := os.ReadFile(cfg.Log); bytes.Contains(b, []byte(line)) {
				break
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		http.Error(w, "loading", http.StatusServiceUnavailable)
	}))
	t.Cleanup(ready.Close)
	cfg.ReadyURL = ready.URL + "/health"
	cfg.ReadyTimeout = 300 * time.Millisecond

	p, err := Start(context.Background(), cfg)
	if err == nil {
		_ = p.Stop()
		t.Fatal("Start succeeded")
	}
	contains(t, "the error", err.Error(),
		"not ready at "+cfg.ReadyURL+" within 300ms",
		"; the last lines of "+cfg.Log+":\n",
		"  "+line+"\n",
		"== vbench: the server stopped at ",
	)
}

// A server that exits before it answers makes Start fail at once with its
// exit status and its log.
func TestStartExitsEarly(t *testing.T) {
	cfg := helperConfig(t, "exit-early")
	p, err := Start(context.Background(), cfg)
	if err == nil {
		_ = p.Stop()
		t.Fatal("Start succeeded")
	}
	contains(t, "the error", err.Error(),
		"the server exited before it was ready (exit status 3)",
		"  helper exit-early: exiting with status 3\n",
	)
}

// Start gives up when its context ends, stopping the server.
func TestStartCancelled(t *testing.T) {
	cfg := helperConfig(t, "never-ready")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := Start(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		if p != nil {
			_ = p.Stop()
		}
		t.Fatalf("Start = %v; want context.Canceled", err)
	}
	contains(t, "the log", readFile(t, cfg.Log), "== vbench: the server stopped at ")
}

// A server that exits while running closes Exited, and Died then says it
// exited during the run, with its status and log.
func TestDied(t *testing.T) {
	cfg := helperConfig(t, "die-later")
	p := start(t, cfg)
	waitExit(t, p)
	err := p.Died()
	if !errors.Is(err, ErrExited) {
		t.Fatalf("Died = %v; want ErrExited", err)
	}
	contains(t, "Died", err.Error(),
		"the server exited during the run (exit status 3)",
		"; the last lines of "+cfg.Log+":\n",
		"  helper die-later: exiting with status 3",
	)
	stop(t, p) // after the exit
	contains(t, "the log", readFile(t, cfg.Log), "== vbench: the server stopped at ")
}

// helperScenario is a scenario whose target.server runs the helper in
// mode on a free port, with no ready_url (so the target's /health is
// polled).
func helperScenario(t *testing.T, mode string) *scenario.Scenario {
	t.Helper()
	host, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return &scenario.Scenario{Target: scenario.Target{Host: host, Port: p, Server: &scenario.Server{
		Command:      []string{helperExe(t), "--addr", net.JoinHostPort(host, port)},
		Env:          map[string]string{helperEnv: mode},
		ReadyTimeout: bound.Seconds(),
		StopGrace:    bound.Seconds(),
		Log:          "server.log",
	}}}
}

// newManager is a Manager whose server is stopped when the test ends.
func newManager(t *testing.T) (*Manager, *bytes.Buffer) {
	var stderr bytes.Buffer
	m := &Manager{Stderr: &stderr}
	t.Cleanup(func() { _ = m.Close() })
	return m, &stderr
}

// Ensure keeps the running server for a run that needs the same one (the
// same command, args, environment and directory) and restarts it for one
// that needs another; the new args reach the new server.
func TestManagerEnsure(t *testing.T) {
	for _, tc := range []struct {
		name       string
		change     func(s *scenario.Server, dir string)
		wantStarts int
		wantInLog  string
	}{
		{"same scenario", func(*scenario.Server, string) {}, 1, ""},
		{"other timeouts and resets", func(s *scenario.Server, _ string) {
			s.ReadyTimeout, s.StopGrace, s.ResetCaches = 60, 1, true
		}, 1, ""},
		{"other args", func(s *scenario.Server, _ string) {
			s.Args = map[string]json.RawMessage{"itl": json.RawMessage(`"5ms"`), "max_num_seqs": json.RawMessage("8")}
		}, 2, " --itl 5ms --max-num-seqs 8\n"},
		{"other env", func(s *scenario.Server, _ string) { s.Env["EXTRA"] = "1" }, 2, ""},
		{"other dir", func(s *scenario.Server, dir string) { s.Dir = dir }, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, stderr := newManager(t)
			sc := helperScenario(t, "serve")
			dir := t.TempDir()
			if err := m.Ensure(context.Background(), sc, dir); err != nil {
				t.Fatal(err)
			}
			first := m.cur

			next := *sc.Target.Server
			next.Env = maps.Clone(sc.Target.Server.Env)
			tc.change(&next, t.TempDir())
			sc2 := *sc
			sc2.Target.Server = &next
			if err := m.Ensure(context.Background(), &sc2, dir); err != nil {
				t.Fatal(err)
			}
			if m.Starts != tc.wantStarts {
				t.Errorf("Starts = %d; want %d", m.Starts, tc.wantStarts)
			}
			if n := strings.Count(stderr.String(), "Starting the server: "); n != tc.wantStarts {
				t.Errorf("stderr has %d start lines; want %d:\n%s", n, tc.wantStarts, stderr)
			}
			if err := m.Died(); err != nil {
				t.Errorf("Died = %v", err)
			}
			log := readFile(t, filepath.Join(dir, "server.log"))
			if tc.wantStarts == 1 {
				if m.cur != first || exited(first) {
					t.Error("the server was not kept")
				}
				if strings.Contains(log, "the server stopped") {
					t.Errorf("the log shows a stop:\n%s", log)
				}
				return
			}
			if !exited(first) {
				t.Error("the first server still runs")
			}
			contains(t, "stderr", stderr.String(), "Stopping the server\n")
			contains(t, "the log", log, "helper serve: SIGTERM, exiting\n== vbench: the server stopped at ")
			if n := strings.Count(log, "== vbench: starting the server at "); n != 2 {
				t.Errorf("the log has %d start lines; want 2:\n%s", n, log)
			}
			if tc.wantInLog != "" {
				addr := net.JoinHostPort(sc.Target.Host, strconv.Itoa(sc.Target.Port))
				contains(t, "the log", log, "helper serve: argv --addr "+addr+tc.wantInLog)
			}
		})
	}
}

// Ensure starts the server again when the one it started has exited; in
// between, Died reports the exit and AfterRun does nothing.
func TestManagerEnsureAfterDeath(t *testing.T) {
	m, _ := newManager(t)
	sc := helperScenario(t, "die-later")
	sc.Target.Server.ResetCaches = true
	dir := t.TempDir()
	if err := m.Ensure(context.Background(), sc, dir); err != nil {
		t.Fatal(err)
	}
	first := m.cur
	waitExit(t, first)
	if err := m.Died(); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Died = %v; want the exit", err)
	}
	if err := m.AfterRun(context.Background(), sc); err != nil {
		t.Errorf("AfterRun with a dead server = %v; want nil", err)
	}
	if err := m.Ensure(context.Background(), sc, dir); err != nil {
		t.Fatal(err)
	}
	if m.Starts != 2 || m.cur == first {
		t.Errorf("Starts = %d (same server: %v); want a second start", m.Starts, m.cur == first)
	}
}

// Ensure fails without keeping a server when the scenario's args are
// invalid or its server does not start, and stops the previous server in
// the second case.
func TestManagerEnsureErrors(t *testing.T) {
	m, _ := newManager(t)
	bad := helperScenario(t, "serve")
	bad.Target.Server.Args = map[string]json.RawMessage{"x": json.RawMessage("null")}
	dir := t.TempDir()
	if err := m.Ensure(context.Background(), bad, dir); err == nil || !strings.Contains(err.Error(), "server.args.x") {
		t.Errorf("Ensure with a null arg = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "server.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("invalid args created the log (%v)", err)
	}

	if err := m.Ensure(context.Background(), helperScenario(t, "serve"), dir); err != nil {
		t.Fatal(err)
	}
	first := m.cur
	early := helperScenario(t, "exit-early")
	early.Target.Server.Log = "nested/early.log"
	err := m.Ensure(context.Background(), early, dir)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("Ensure of a server that exits = %v", err)
	}
	if !exited(first) {
		t.Error("the previous server still runs")
	}
	if m.cur != nil || m.Starts != 1 || m.Died() != nil {
		t.Errorf("after a failed start: current %v, Starts %d, Died %v; want none, 1, nil", m.cur, m.Starts, m.Died())
	}
}

// Ensure for a scenario without target.server stops the current server.
func TestManagerEnsureWithoutServer(t *testing.T) {
	m, stderr := newManager(t)
	if err := m.Ensure(context.Background(), &scenario.Scenario{}, t.TempDir()); err != nil {
		t.Fatalf("Ensure without a server and none running: %v", err)
	}
	if err := m.Ensure(context.Background(), helperScenario(t, "serve"), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	p := m.cur
	if err := m.Ensure(context.Background(), &scenario.Scenario{}, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !exited(p) || m.cur != nil {
		t.Error("the server still runs")
	}
	if m.Starts != 1 {
		t.Errorf("Starts = %d; want 1", m.Starts)
	}
	contains(t, "stderr", stderr.String(), "Stopping the server\n")
}

// AfterRun runs the scenario's after_run command in place of the resets,
// else posts the cache resets when reset_caches is set; a failure is
// returned and warned about.
func TestManagerAfterRun(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mode       string
		resets     bool
		afterRun   func(file string) []string
		wantErr    []string
		wantResets bool
		wantFile   string
	}{
		{name: "nothing to do", mode: "serve"},
		{name: "resets", mode: "serve", resets: true, wantResets: true},
		{name: "resets not served", mode: "bare", resets: true, wantErr: []string{
			"resetting the server's caches failed: /reset_prefix_cache: HTTP 404; /reset_mm_cache: HTTP 404; /reset_encoder_cache: HTTP 404"}},
		{name: "after_run instead of resets", mode: "serve", resets: true,
			afterRun: func(file string) []string { return []string{"sh", "-c", "echo after > '" + file + "'"} }, wantFile: "after\n"},
		{name: "after_run fails", mode: "serve",
			afterRun: func(string) []string { return []string{"sh", "-c", "echo failing; exit 7"} },
			wantErr:  []string{"server.after_run (sh -c echo failing; exit 7): exit status 7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, stderr := newManager(t)
			sc := helperScenario(t, tc.mode)
			sc.Target.Server.ResetCaches = tc.resets
			file := filepath.Join(t.TempDir(), "after")
			if tc.afterRun != nil {
				sc.Target.Server.AfterRun = tc.afterRun(file)
			}
			if err := m.AfterRun(context.Background(), sc); err != nil {
				t.Errorf("AfterRun before Ensure = %v; want nil", err)
			}
			dir := t.TempDir()
			if err := m.Ensure(context.Background(), sc, dir); err != nil {
				t.Fatal(err)
			}

			err := m.AfterRun(context.Background(), sc)
			if tc.wantErr == nil && err != nil {
				t.Errorf("AfterRun = %v", err)
			}
			if tc.wantErr != nil {
				if err == nil {
					t.Error("AfterRun succeeded")
				} else {
					contains(t, "the error", err.Error(), tc.wantErr...)
					contains(t, "stderr", stderr.String(), "Warning: "+err.Error()+"\n")
				}
			}
			log := readFile(t, filepath.Join(dir, "server.log"))
			const resets = "helper serve: reset /reset_prefix_cache\nhelper serve: reset /reset_mm_cache\nhelper serve: reset /reset_encoder_cache\n"
			if got := strings.Contains(log, resets); got != tc.wantResets {
				t.Errorf("the log shows the resets: %v; want %v:\n%s", got, tc.wantResets, log)
			}
			if strings.Count(log, "reset /") != strings.Count(resets, "reset /")*btoi(tc.wantResets) {
				t.Errorf("the log shows other resets:\n%s", log)
			}
			if got := readFile(t, file); got != tc.wantFile {
				t.Errorf("after_run's file = %q; want %q", got, tc.wantFile)
			}
			if err := m.Died(); err != nil {
				t.Errorf("Died = %v", err)
			}
		})
	}
	// A scenario without a server has nothing to do after a run.
	m, _ := newManager(t)
	if err := m.AfterRun(context.Background(), &scenario.Scenario{}); err != nil {
		t.Errorf("AfterRun without a server = %v", err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Watch's context ends when the current server exits (by itself or by
// Close) or when its parent ends, and not before.
func TestManagerWatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string // "" = no server
		end  func(m *Manager, parent context.CancelFunc)
	}{
		{"no server, parent cancelled", "", func(_ *Manager, parent context.CancelFunc) { parent() }},
		{"server running, parent cancelled", "serve", func(_ *Manager, parent context.CancelFunc) { parent() }},
		{"server exits", "die-later", func(*Manager, context.CancelFunc) {}},
		{"server closed", "serve", func(m *Manager, _ context.CancelFunc) { _ = m.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newManager(t)
			if tc.mode != "" {
				if err := m.Ensure(context.Background(), helperScenario(t, tc.mode), t.TempDir()); err != nil {
					t.Fatal(err)
				}
			}
			parent, cancelParent := context.WithCancel(context.Background())
			defer cancelParent()
			ctx, cancel := m.Watch(parent)
			defer cancel()
			if tc.mode != "die-later" { // that one may already have exited
				select {
				case <-ctx.Done():
					t.Fatalf("the context ended early: %v", ctx.Err())
				default:
				}
			}
			tc.end(m, cancelParent)
			select {
			case <-ctx.Done():
			case <-time.After(bound):
				t.Fatal("the context did not end")
			}
			if !errors.Is(ctx.Err(), context.Canceled) {
				t.Errorf("ctx.Err() = %v; want context.Canceled", ctx.Err())
			}
			if tc.mode == "die-later" && !errors.Is(m.Died(), ErrExited) {
				t.Errorf("Died = %v after the context ended; want ErrExited", m.Died())
			}
		})
	}
}

// Close stops the current server and forgets it; closing again, or
// without a server, does nothing.
func TestManagerClose(t *testing.T) {
	m, stderr := newManager(t)
	if err := m.Close(); err != nil {
		t.Fatalf("Close without a server: %v", err)
	}
	dir := t.TempDir()
	if err := m.Ensure(context.Background(), helperScenario(t, "serve"), dir); err != nil {
		t.Fatal(err)
	}
	p := m.cur
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !exited(p) {
		t.Error("the server still runs")
	}
	if err := m.Died(); err != nil {
		t.Errorf("Died after Close = %v; want nil (no current server)", err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if n := strings.Count(stderr.String(), "Stopping the server\n"); n != 1 {
		t.Errorf("stderr has %d stop lines; want 1:\n%s", n, stderr)
	}
	contains(t, "the log", readFile(t, filepath.Join(dir, "server.log")),
		"helper serve: SIGTERM, exiting\n", "== vbench: the server stopped at ")
	if m.Starts != 1 {
		t.Errorf("Starts = %d; want 1", m.Starts)
	}
}
