package k8s_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/vbench/vbench/internal/k8s"
	"github.com/vbench/vbench/internal/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata/*.yaml with the manifests the tests make")

var startAt = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

// goldenScenario stands for a scenario's JSON in the golden files, which
// would otherwise change with every new schema field.
const goldenScenario = `{"name":"golden","target":{"base_url":"http://vllm:8000"}}`

// inputs are the golden cases: testdata/NAME.yaml holds the manifests of
// each. They name their image, so that a new version changes no golden
// file (TestObjectsValid checks the default image).
var inputs = []struct {
	name string
	in   k8s.Input
}{
	{"one-worker", k8s.Input{Image: "vbench:golden", Workers: 1, StartAt: startAt, ScenarioJSON: []byte(goldenScenario)}},
	{"three-workers", k8s.Input{
		Name: "bench-a", Namespace: "perf", Image: "registry.example/vbench:1.2.3", Workers: 3,
		// Printed in UTC, to the second.
		StartAt:      time.Date(2026, 12, 4, 13, 30, 15, 999_000_000, time.FixedZone("CET", 3600)),
		ScenarioJSON: []byte(goldenScenario), PVC: "shared-results", APIKeySecret: "openai", CPU: "2", Memory: "4Gi",
	}},
	{"cpu-only", k8s.Input{Image: "vbench:golden", Workers: 2, StartAt: startAt, ScenarioJSON: []byte(goldenScenario), CPU: "500m"}},
}

func TestK8sGolden(t *testing.T) {
	for _, tc := range inputs {
		t.Run(tc.name, func(t *testing.T) {
			got, err := k8s.Manifests(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			decode(t, got)
			path := filepath.Join("testdata", tc.name+".yaml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("manifests differ from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// manifests are the objects decoded back from Manifests' YAML.
type manifests struct {
	cm  corev1.ConfigMap
	svc corev1.Service
	job batchv1.Job
}

// decode checks that data is a YAML stream of the three documents
// (ConfigMap, Service, Job) after a comment, and decodes each with strict
// field checking into its API type.
func decode(t *testing.T, data []byte) manifests {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("# vbench k8s: ")) {
		t.Errorf("manifests do not start with the comment line:\n%s", data)
	}
	// The whole output is one valid YAML stream.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n int
	for {
		var v map[string]any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("manifests are not a YAML stream: %v", err)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d YAML documents, want 3", n)
	}

	var docs [][]byte
	for doc := range bytes.SplitSeq(data, []byte("---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 || bytes.HasPrefix(doc, []byte("#")) {
			continue
		}
		docs = append(docs, doc)
	}
	if len(docs) != 3 {
		t.Fatalf("%d documents after splitting on ---, want 3", len(docs))
	}
	var m manifests
	for i, obj := range []any{&m.cm, &m.svc, &m.job} {
		if err := sigsyaml.UnmarshalStrict(docs[i], obj); err != nil {
			t.Fatalf("document %d does not decode strictly as %T: %v\n%s", i, obj, err, docs[i])
		}
	}
	for _, tm := range []struct{ got, want string }{
		{m.cm.APIVersion + " " + m.cm.Kind, "v1 ConfigMap"},
		{m.svc.APIVersion + " " + m.svc.Kind, "v1 Service"},
		{m.job.APIVersion + " " + m.job.Kind, "batch/v1 Job"},
	} {
		if tm.got != tm.want {
			t.Errorf("document is %s, want %s", tm.got, tm.want)
		}
	}
	return m
}

// TestK8sObjectsValid decodes the manifests of a real scenario back into the
// Kubernetes API types and checks what the workers need.
func TestK8sObjectsValid(t *testing.T) {
	sc, err := scenario.LoadBytes("s.yaml", []byte(`
name: sharded
target: {base_url: "http://vllm.serving.svc:8000", model: m}
tokenizer: {name: o200k_base}
dataset: {random: {input_len: 128, output_len: 16}}
load: {num_prompts: 300, request_rate: 20, max_concurrency: 32}
output: {save_result: true}
`), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := json.Marshal(sc.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		in   k8s.Input
	}{
		{"defaults", k8s.Input{Workers: 1, StartAt: startAt, ScenarioJSON: text}},
		{"everything", k8s.Input{Name: "run-7", Namespace: "perf", Image: "vbench:test", Workers: 5, StartAt: startAt,
			ScenarioJSON: text, PVC: "claim", APIKeySecret: "key", CPU: "1500m", Memory: "2Gi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := k8s.Manifests(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			m := decode(t, data)
			name := cmp.Or(tc.in.Name, "vbench")
			n := int32(tc.in.Workers)

			for _, meta := range []struct{ kind, name, ns string }{
				{"ConfigMap", m.cm.Name, m.cm.Namespace},
				{"Service", m.svc.Name, m.svc.Namespace},
				{"Job", m.job.Name, m.job.Namespace},
			} {
				if meta.ns != tc.in.Namespace {
					t.Errorf("%s namespace %q, want %q", meta.kind, meta.ns, tc.in.Namespace)
				}
			}

			// The ConfigMap holds the scenario, which loads back as itself.
			if m.cm.Name != name+"-scenario" {
				t.Errorf("ConfigMap %q, want %q", m.cm.Name, name+"-scenario")
			}
			back, err := scenario.LoadBytes("scenario.json", []byte(m.cm.Data["scenario.json"]), scenario.Options{})
			if err != nil {
				t.Fatalf("scenario.json does not load: %v", err)
			}
			if back.Hash() != sc.Hash() {
				t.Errorf("scenario.json hash %s, want the scenario's %s", back.Hash(), sc.Hash())
			}

			// The headless Service publishes every pod's clock port.
			s := m.svc.Spec
			if m.svc.Name != name || s.ClusterIP != corev1.ClusterIPNone || !s.PublishNotReadyAddresses {
				t.Errorf("Service %s: clusterIP %q publishNotReadyAddresses %v, want %s, None, true", m.svc.Name, s.ClusterIP, s.PublishNotReadyAddresses, name)
			}
			if len(s.Ports) != 1 || s.Ports[0].Name != "clock" || s.Ports[0].Port != 7070 {
				t.Errorf("Service ports %+v, want clock 7070", s.Ports)
			}

			// The Job: N indexed pods, no retries, reachable as NAME-I.NAME.
			js := m.job.Spec
			if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
				t.Errorf("completionMode %v, want Indexed", js.CompletionMode)
			}
			if js.Completions == nil || js.Parallelism == nil || *js.Completions != n || *js.Parallelism != n {
				t.Errorf("completions %v parallelism %v, want %d", js.Completions, js.Parallelism, n)
			}
			if js.BackoffLimit == nil || *js.BackoffLimit != 0 {
				t.Errorf("backoffLimit %v, want 0", js.BackoffLimit)
			}
			pod := js.Template.Spec
			if pod.RestartPolicy != corev1.RestartPolicyNever || pod.Subdomain != name {
				t.Errorf("restartPolicy %q subdomain %q, want Never and %q", pod.RestartPolicy, pod.Subdomain, name)
			}
			for k, v := range s.Selector {
				if js.Template.Labels[k] != v {
					t.Errorf("the Service selects %s=%s, the pods are labelled %v", k, v, js.Template.Labels)
				}
			}
			if js.Template.Labels["app.kubernetes.io/name"] != "vbench" || js.Template.Labels["app.kubernetes.io/instance"] != name {
				t.Errorf("pod labels %v", js.Template.Labels)
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers, want 1", len(pod.Containers))
			}
			c := pod.Containers[0]
			if c.Name != "vbench" || c.Image != cmp.Or(tc.in.Image, k8s.DefaultImage()) {
				t.Errorf("container %s image %s", c.Name, c.Image)
			}
			wantArgs := []string{"run", "/etc/vbench/scenario.json", "--shard", "$(JOB_COMPLETION_INDEX)/" + strconv.Itoa(tc.in.Workers),
				"--start-at", "2026-12-04T12:00:00Z", "--clock", name + "-0." + name + ":7070",
				"--set", "output.result_dir=/results/$(JOB_COMPLETION_INDEX)"}
			if !slices.Equal(c.Args, wantArgs) {
				t.Errorf("args\n%q\nwant\n%q", c.Args, wantArgs)
			}
			if len(c.Command) != 0 {
				t.Errorf("command %q: the image's entrypoint is vbench", c.Command)
			}

			// The index comes from the downward API, before any use of it.
			if len(c.Env) == 0 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
				c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
				t.Errorf("env %+v: want JOB_COMPLETION_INDEX from the completion index annotation first", c.Env)
			}
			var key *corev1.SecretKeySelector
			for _, e := range c.Env {
				if e.Name == "OPENAI_API_KEY" && e.ValueFrom != nil {
					key = e.ValueFrom.SecretKeyRef
				}
			}
			switch {
			case tc.in.APIKeySecret == "" && key != nil:
				t.Errorf("OPENAI_API_KEY from %+v without --api-key-secret", key)
			case tc.in.APIKeySecret != "" && (key == nil || key.Name != tc.in.APIKeySecret || key.Key != "api-key"):
				t.Errorf("OPENAI_API_KEY from %+v, want secret %s key api-key", key, tc.in.APIKeySecret)
			}

			if len(c.Ports) != 1 || c.Ports[0].Name != "clock" || c.Ports[0].ContainerPort != 7070 {
				t.Errorf("container ports %+v, want clock 7070", c.Ports)
			}

			// Mounts: the scenario read-only, the results on the claim.
			vols := map[string]corev1.Volume{}
			for _, v := range pod.Volumes {
				vols[v.Name] = v
			}
			mounts := map[string]corev1.VolumeMount{}
			for _, vm := range c.VolumeMounts {
				mounts[vm.MountPath] = vm
				if _, ok := vols[vm.Name]; !ok {
					t.Errorf("mount %s names no volume (%s)", vm.MountPath, vm.Name)
				}
			}
			if vm, ok := mounts["/etc/vbench"]; !ok || !vm.ReadOnly || vols[vm.Name].ConfigMap == nil || vols[vm.Name].ConfigMap.Name != m.cm.Name {
				t.Errorf("/etc/vbench: mount %+v volume %+v, want the ConfigMap read-only", vm, vols[vm.Name])
			}
			if vm, ok := mounts["/results"]; !ok || vm.ReadOnly || vols[vm.Name].PersistentVolumeClaim == nil ||
				vols[vm.Name].PersistentVolumeClaim.ClaimName != cmp.Or(tc.in.PVC, "vbench-results") {
				t.Errorf("/results: mount %+v volume %+v, want claim %s", vm, vols[vm.Name], cmp.Or(tc.in.PVC, "vbench-results"))
			}

			// Resources: requests equal limits, as given.
			for _, r := range []struct {
				name  corev1.ResourceName
				value string
			}{{corev1.ResourceCPU, tc.in.CPU}, {corev1.ResourceMemory, tc.in.Memory}} {
				req, hasReq := c.Resources.Requests[r.name]
				lim, hasLim := c.Resources.Limits[r.name]
				if r.value == "" {
					if hasReq || hasLim {
						t.Errorf("%s request %v limit %v, want none", r.name, req, lim)
					}
					continue
				}
				want := resource.MustParse(r.value)
				if req.Cmp(want) != 0 || lim.Cmp(want) != 0 {
					t.Errorf("%s request %v limit %v, want %s", r.name, req.String(), lim.String(), r.value)
				}
			}
		})
	}
}

func TestK8sObjectsErrors(t *testing.T) {
	good := k8s.Input{Workers: 2, StartAt: startAt, ScenarioJSON: []byte(goldenScenario)}
	for _, tc := range []struct {
		name string
		edit func(*k8s.Input)
		want string
	}{
		{"no workers", func(in *k8s.Input) { in.Workers = 0 }, "--workers 0: want a number of worker pods from 1 to 100000"},
		{"negative workers", func(in *k8s.Input) { in.Workers = -3 }, "--workers -3: want a number of worker pods from 1 to 100000"},
		{"too many workers", func(in *k8s.Input) { in.Workers = 100001 }, "--workers 100001: want"},
		{"upper-case name", func(in *k8s.Input) { in.Name = "Bench" }, `--name "Bench": a lowercase RFC 1123 label`},
		{"name with a dot", func(in *k8s.Input) { in.Name = "a.b" }, `--name "a.b": must not contain dots`},
		{"name starting with a digit", func(in *k8s.Input) { in.Name = "1bench" }, `--name "1bench": a DNS-1035 label`},
		{"name too long for the ConfigMap", func(in *k8s.Input) { in.Name = strings.Repeat("a", 60) }, "the ConfigMap's name " + strings.Repeat("a", 60) + "-scenario must be a DNS label too"},
		{"bad namespace", func(in *k8s.Input) { in.Namespace = "Perf_1" }, `--namespace "Perf_1"`},
		{"image with a space", func(in *k8s.Input) { in.Image = "vbench latest" }, `--image "vbench latest"`},
		{"bad claim", func(in *k8s.Input) { in.PVC = "My Claim" }, `--pvc "My Claim"`},
		{"bad secret", func(in *k8s.Input) { in.APIKeySecret = "key/x" }, `--api-key-secret "key/x"`},
		{"bad cpu", func(in *k8s.Input) { in.CPU = "two" }, `--cpu "two": want a Kubernetes quantity`},
		{"bad memory", func(in *k8s.Input) { in.Memory = "4GB" }, `--memory "4GB": want a Kubernetes quantity`},
		{"zero cpu", func(in *k8s.Input) { in.CPU = "0" }, `--cpu "0": want a quantity above 0`},
		{"negative memory", func(in *k8s.Input) { in.Memory = "-1Gi" }, `--memory "-1Gi": want a quantity above 0`},
		{"no start", func(in *k8s.Input) { in.StartAt = time.Time{} }, "no start time"},
		{"no scenario", func(in *k8s.Input) { in.ScenarioJSON = nil }, "the scenario is not valid JSON"},
		{"scenario too large", func(in *k8s.Input) {
			in.ScenarioJSON = []byte(`{"name":"` + strings.Repeat("x", 1<<20) + `"}`)
		}, "a ConfigMap holds at most 1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := good
			tc.edit(&in)
			_, _, _, err := k8s.Objects(in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := k8s.Manifests(in); err == nil {
				t.Fatal("Manifests: no error")
			}
		})
	}
	// Every problem is reported at once.
	in := good
	in.Workers, in.CPU = 0, "x"
	_, _, _, err := k8s.Objects(in)
	if err == nil || !strings.Contains(err.Error(), "--workers") || !strings.Contains(err.Error(), "--cpu") {
		t.Errorf("error %v, want both --workers and --cpu", err)
	}
}
