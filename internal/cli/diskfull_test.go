package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/vbench/vbench/internal/cli"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory and returns
// it; it is unmounted when the test ends. Mounting needs root (and a
// kernel that lets the test mount): without it the test is skipped with
// the reason, unless VBENCH_REQUIRE_TMPFS is set (CI sets it when it runs
// as root), when it fails.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size)
	if err != nil {
		why := "mounting a tmpfs (a full disk to write to) needs root: " + err.Error()
		if os.Getenv("VBENCH_REQUIRE_TMPFS") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// A records file that fills the disk mid-run stops the run with an error
// that says so; the records written stay, each on a whole line; the
// result, which no longer fits, is not left half-written (no file, no
// temporary file), and the error says that too.
func TestDiskFullStopsTheRun(t *testing.T) {
	if _, err := exec.LookPath("mount"); err != nil && os.Getenv("VBENCH_REQUIRE_TMPFS") == "" {
		t.Skip("no mount command: not a full system")
	}
	for _, tc := range []struct{ name, workload string }{
		{"random", "dataset: random: {input_len: 16, output_len: 64}\n"},
		// A conversations run waits for answers between turns: it
		// must stop waiting when the run stops.
		{"conversations", "target: {backend: \"openai-chat\", endpoint: \"/v1/chat/completions\"}\n" +
			"dataset: conversations: {conversations: 200, turns: 10, input_len: 16, output_len: 64}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { diskFull(t, tc.workload) })
	}
}

// diskFull runs workload (scenario lines) with its records on a full
// disk, for TestDiskFullStopsTheRun.
func diskFull(t *testing.T, workload string) {
	disk := mountTmpfs(t, "48k")
	var stdout, stderr bytes.Buffer
	p := cli.Process{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" }, Context: context.Background()}
	scen := filepath.Join(t.TempDir(), "full.cue")
	if err := os.WriteFile(scen, []byte(`target: simulator: {ttft_ms: 1, itl_ms: 0.2}
tokenizer: name: "o200k_base"
sampling: ignore_eos: true
load: {num_prompts: 2000, max_concurrency: 64}
output: {save_result: true, save_detailed: true, result_dir: "`+disk+`", result_filename: "full.json", disable_tqdm: true}
`+workload), 0o644); err != nil {
		t.Fatal(err)
	}
	code := cli.Main([]string{"run", scen}, p)
	if code == 0 {
		t.Fatalf("exit 0 on a full disk\nstderr:\n%s", stderr.String())
	}
	errText := stderr.String()
	if !regexp.MustCompile(`(?m)^vbench: run interrupted after [0-9]+ of 2000 requests were sent: the records file could not be written\n(.*\n)*writing the records: write record [0-9]+ to .*: no space left on device$`).MatchString(errText) {
		t.Errorf("stderr does not say the records file filled the disk:\n%s", errText)
	}
	entries, err := os.ReadDir(disk)
	if err != nil {
		t.Fatal(err)
	}
	var records string
	for _, e := range entries {
		switch {
		case strings.HasSuffix(e.Name(), ".records.jsonl"):
			records = filepath.Join(disk, e.Name())
		case e.Name() == "full.json":
			b, err := os.ReadFile(filepath.Join(disk, e.Name()))
			if err != nil || !json.Valid(b) {
				t.Errorf("the result is not whole JSON (%v)", err)
			}
		default:
			t.Errorf("%s left on the disk", e.Name())
		}
	}
	if records == "" {
		t.Fatalf("no records file; files: %v", entries)
	}
	b, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("the records file does not end with a whole line (%d bytes)", len(b))
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("records line %d is not whole JSON: %.80q", i+1, l)
		}
	}
	if len(lines) < 10 {
		t.Errorf("only %d lines kept", len(lines))
	}
	t.Logf("%d record lines (%d bytes) kept; error: %s", len(lines), len(b), strings.TrimSpace(errText[strings.LastIndex(strings.TrimSpace(errText), "\n")+1:]))
}
