package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/vbench/vbench/internal/cli"
	"github.com/vbench/vbench/internal/scenario"
)

// k8sScenario is a scenario vbench k8s splits.
const k8sScenario = `name: sharded
target: {base_url: "http://vllm.serving.svc:8000", model: m}
tokenizer: {name: o200k_base}
dataset: {random: {input_len: 128, output_len: 16}}
load: {num_prompts: 300, request_rate: 20, max_concurrency: 8}
output: {save_result: true}
`

// runK8s runs vbench with args in dir, where files are written first.
func runK8s(t *testing.T, files map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code = cli.Main(args, cli.Process{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

// k8sDocs decodes vbench k8s's output, strictly, into its three objects.
func k8sDocs(t *testing.T, out string) (cm corev1.ConfigMap, job batchv1.Job) {
	t.Helper()
	var docs []string
	for doc := range strings.SplitSeq(out, "---\n") {
		if strings.TrimSpace(doc) != "" && !strings.HasPrefix(doc, "#") {
			docs = append(docs, doc)
		}
	}
	if len(docs) != 3 {
		t.Fatalf("%d documents, want 3:\n%s", len(docs), out)
	}
	var svc corev1.Service
	for i, obj := range []any{&cm, &svc, &job} {
		if err := sigsyaml.UnmarshalStrict([]byte(docs[i]), obj); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	return cm, job
}

func TestK8sManifests(t *testing.T) {
	code, out, errOut := runK8s(t, map[string]string{"s.yaml": k8sScenario},
		"k8s", "s.yaml", "--workers", "3", "--start-at", "2026-12-04T13:00:00+01:00", "--name", "bench",
		"--namespace", "perf", "--api-key-secret", "openai", "--set", "load.num_prompts=600")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "# vbench k8s: 3 workers, start at 2026-12-04T12:00:00Z;") {
		t.Errorf("output does not start with the comment line:\n%s", out)
	}
	cm, job := k8sDocs(t, out)
	want, err := scenario.LoadFiles([]string{"s.yaml"}, scenario.Options{Sets: []string{"load.num_prompts=600"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := scenario.LoadBytes("scenario.json", []byte(cm.Data["scenario.json"]), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash() != want.Hash() {
		t.Errorf("the ConfigMap's scenario hash %s, want %s (with --set)", got.Hash(), want.Hash())
	}
	if cm.Namespace != "perf" || job.Namespace != "perf" {
		t.Errorf("namespaces %q %q, want perf", cm.Namespace, job.Namespace)
	}
	c := job.Spec.Template.Spec.Containers[0]
	wantArgs := []string{"run", "/etc/vbench/scenario.json", "--shard", "$(JOB_COMPLETION_INDEX)/3", "--start-at", "2026-12-04T12:00:00Z",
		"--clock", "bench-0.bench:7070", "--set", "output.result_dir=/results/$(JOB_COMPLETION_INDEX)"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args %q, want %q", c.Args, wantArgs)
	}
	if c.Image != "vbench:"+versionOf(t) {
		t.Errorf("image %s", c.Image)
	}
	if len(c.Env) != 2 || c.Env[1].Name != "OPENAI_API_KEY" || c.Env[1].ValueFrom.SecretKeyRef.Name != "openai" {
		t.Errorf("env %+v", c.Env)
	}
	// The start is in the past today: a note says so.
	if time.Now().After(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)) && !strings.Contains(errOut, "has passed") {
		t.Errorf("no note that the start has passed: %q", errOut)
	}
}

// versionOf is vbench version's version.
func versionOf(t *testing.T) string {
	var out bytes.Buffer
	cli.Main([]string{"version"}, cli.Process{Stdout: &out, Stderr: &out})
	f := strings.Fields(out.String())
	if len(f) < 2 {
		t.Fatalf("vbench version: %q", out.String())
	}
	return f[1]
}

func TestK8sStartIn(t *testing.T) {
	before := time.Now()
	code, out, errOut := runK8s(t, map[string]string{"s.yaml": k8sScenario}, "k8s", "s.yaml", "--workers", "2", "--start-in", "10m")
	after := time.Now()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}
	_, job := k8sDocs(t, out)
	args := job.Spec.Template.Spec.Containers[0].Args
	i := slices.Index(args, "--start-at")
	if i < 0 {
		t.Fatalf("no --start-at in %q", args)
	}
	start, err := time.Parse(time.RFC3339, args[i+1])
	if err != nil || !strings.HasSuffix(args[i+1], "Z") {
		t.Fatalf("--start-at %q: not UTC RFC 3339 (%v)", args[i+1], err)
	}
	if lo, hi := before.Add(10*time.Minute).Truncate(time.Second), after.Add(10*time.Minute); start.Before(lo) || start.After(hi) {
		t.Errorf("start %s, want between %s and %s", start, lo, hi)
	}
	// The default is 3 minutes.
	code, out, errOut = runK8s(t, map[string]string{"s.yaml": k8sScenario}, "k8s", "s.yaml", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, job = k8sDocs(t, out)
	args = job.Spec.Template.Spec.Containers[0].Args
	start, _ = time.Parse(time.RFC3339, args[slices.Index(args, "--start-at")+1])
	if d := time.Until(start); d < 2*time.Minute || d > 3*time.Minute {
		t.Errorf("default start in %s, want about 3m", d)
	}
}

func TestK8sErrors(t *testing.T) {
	args := func(extra ...string) []string { return append([]string{"k8s", "s.yaml"}, extra...) }
	good := []string{"--workers", "3", "--start-at", "2030-01-01T00:00:00Z"}
	for _, tc := range []struct {
		name     string
		scenario string // the scenario, k8sScenario when empty
		args     []string
		stderr   string
	}{
		{"no workers", "", args("--start-at", "2030-01-01T00:00:00Z"), `--workers is required: the number of worker pods, from 1 to 100000`},
		{"workers 0", "", args("--workers", "0"), `--workers 0: want a number of worker pods from 1 to 100000`},
		{"workers not a number", "", args("--workers", "three"), `invalid argument "three" for "--workers"`},
		{"bad start-at", "", args("--workers", "3", "--start-at", "tomorrow"), `--start-at "tomorrow": want an RFC 3339 time such as 2026-12-04T12:00:00Z`},
		{"start-at without a zone", "", args("--workers", "3", "--start-at", "2030-01-01T00:00:00"), `--start-at "2030-01-01T00:00:00": want an RFC 3339 time`},
		{"start-at and start-in", "", args("--workers", "3", "--start-at", "2030-01-01T00:00:00Z", "--start-in", "5m"), `--start-at and --start-in: give one of them`},
		{"start-in 0", "", args("--workers", "3", "--start-in", "0s"), `--start-in 0s: want a duration above 0`},
		{"bad name", "", args(append(good, "--name", "My_Bench")...), `--name "My_Bench": a lowercase RFC 1123 label`},
		{"name too long", "", args(append(good, "--name", strings.Repeat("b", 55))...), `--name "b+": the ConfigMap's name b+-scenario must be a DNS label too`},
		{"bad cpu", "", args(append(good, "--cpu", "lots")...), `--cpu "lots": want a Kubernetes quantity such as 500m, 2, 512Mi or 4Gi`},
		{"bad memory", "", args(append(good, "--memory", "4GB")...), `--memory "4GB": want a Kubernetes quantity`},
		{"bad namespace", "", args(append(good, "--namespace", "Perf")...), `--namespace "Perf": a lowercase RFC 1123 label`},
		{"repeat", k8sScenario + "repeat: {count: 3}\n", args(good...), `vbench k8s splits a single run: the scenario is an experiment \(sweep, repeat, compare or search\)`},
		{"sweep", k8sScenario + "sweep: {axes: {\"load.request_rate\": [1, 2]}}\n", args(good...), `the scenario is an experiment`},
		{"search", k8sScenario + "search: {max: 32, slos: [{metric: median_tpot_ms, max: 10}]}\n", args(good...), `the scenario is an experiment`},
		{"headers", k8sScenario, args(append(good, "--set", `target.headers={"X-Api-Key": "s3cr3t", "Authorization": "Bearer s3cr3t"}`)...),
			`the scenario holds secrets the workers' ConfigMap cannot carry \(it holds the redacted scenario\): target\.headers \(Authorization, X-Api-Key\); remove them and pass the API key with --api-key-secret SECRET instead \(the workers read OPENAI_API_KEY`},
		{"base_url password", "", args(append(good, "--set", "target.base_url=http://u:s3cr3t@vllm:8000")...), `secrets .*: the password in target\.base_url; .*--api-key-secret`},
		{"managed server", "", args(append(good, "--set", `target.server={command: ["vllm", "serve", "m"]}`)...), `target\.server: vbench k8s cannot split a run with a managed server`},
		{"no result", "", args(append(good, "--set", "output.save_result=false")...), `the workers would write no records for vbench merge: set output\.save_result and output\.records`},
		{"no records", "", args(append(good, "--set", "output.records=false")...), `the workers would write no records for vbench merge`},
		{"more workers than max_concurrency", "", args("--workers", "9", "--start-at", "2030-01-01T00:00:00Z"), `load\.max_concurrency 8 cannot be divided over 9 workers \(each needs at least 1\): use at most 8 workers`},
		{"more workers than requests", "", args(append(good, "--set", "load.num_prompts=2")...), `load\.num_prompts 2 leaves some of the 3 workers no request: use at most 2 workers`},
		{"bad scenario", "load: num_prompts: -1\n", args(good...), `s\.yaml:1:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := tc.scenario
			if sc == "" {
				sc = k8sScenario
			}
			code, out, errOut := runK8s(t, map[string]string{"s.yaml": sc}, tc.args...)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d", code, cli.ExitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if strings.Contains(errOut, "s3cr3t") {
				t.Errorf("stderr shows the secret: %q", errOut)
			}
			if !regexp.MustCompile(`^vbench: ` + ".*" + tc.stderr + `.*\n$`).MatchString(errOut) {
				t.Errorf("stderr %q, want one line matching %q", errOut, tc.stderr)
			}
		})
	}
}
