// Package k8s builds the Kubernetes manifests of a run split over worker
// pods (vbench k8s): a ConfigMap holding the resolved scenario, a headless
// Service through which the workers reach worker 0's clock, and an Indexed
// Job whose pod I runs shard I of the run with vbench run --shard.
//
// The objects are built from the Kubernetes API types (k8s.io/api) and
// printed as YAML with sigs.k8s.io/yaml; nothing here talks to a cluster.
package k8s

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/vbench/vbench/internal/version"
)

// Defaults of the Input fields left empty.
const (
	// DefaultName is the name of the Job and the Service, and the prefix
	// of the ConfigMap's.
	DefaultName = "vbench"
	// DefaultPVC is the PersistentVolumeClaim the workers write to.
	DefaultPVC = "vbench-results"
)

// Fixed parts of the manifests.
const (
	// ClockPort is the port of worker 0's clock (vbench run --clock).
	ClockPort = 7070
	// ClockPortName names ClockPort on the container and the Service.
	ClockPortName = "clock"
	// ScenarioKey is the ConfigMap key holding the scenario's JSON.
	ScenarioKey = "scenario.json"
	// ScenarioDir is where the ConfigMap is mounted in the workers.
	ScenarioDir = "/etc/vbench"
	// ResultsDir is where the results claim is mounted in the workers;
	// worker I writes under ResultsDir/I.
	ResultsDir = "/results"
	// APIKeySecretKey is the key of the API key in Input.APIKeySecret.
	APIKeySecretKey = "api-key"
	// IndexEnv is the environment variable holding a worker's index.
	IndexEnv = "JOB_COMPLETION_INDEX"
	// MaxWorkers is the largest completion count Kubernetes allows for an
	// Indexed Job.
	MaxWorkers = 100000
	// maxConfigMapBytes is the most a ConfigMap may hold.
	maxConfigMapBytes = 1 << 20
	// nonrootGID is the group of the distroless nonroot user the image
	// runs as; the pods' fsGroup, so that it can write to the claim.
	nonrootGID = 65532
)

// DefaultImage returns the image of this vbench version, "vbench:" and
// [version.Version].
func DefaultImage() string { return "vbench:" + version.Version }

// Input describes a sharded run. Its string fields are the values of the
// vbench k8s flags of the same names; empty ones take their defaults.
type Input struct {
	// Name names the Job and the Service (DefaultName when empty) and,
	// with "-scenario", the ConfigMap. It must be a DNS label.
	Name string
	// Namespace, when not empty, is set on every object; when empty,
	// kubectl's context chooses.
	Namespace string
	// Image is the workers' image (DefaultImage() when empty); its
	// entrypoint is the vbench binary.
	Image string
	// Workers is the number of worker pods, each running one shard.
	Workers int
	// StartAt is when every worker starts sending, on worker 0's clock;
	// it is printed in UTC to the second.
	StartAt time.Time
	// ScenarioJSON is the resolved scenario's JSON, redacted (it is stored
	// in a ConfigMap, which is not for secrets).
	ScenarioJSON []byte
	// PVC is the PersistentVolumeClaim the records are written to
	// (DefaultPVC when empty). It must exist; pods on different nodes need
	// it ReadWriteMany.
	PVC string
	// APIKeySecret, when not empty, is a Secret whose key "api-key" the
	// workers read as OPENAI_API_KEY.
	APIKeySecret string
	// CPU and Memory, when not empty, are the worker container's CPU and
	// memory requests and limits (Kubernetes quantities such as "2" or
	// "4Gi").
	CPU, Memory string
}

// withDefaults returns in with its empty fields set to their defaults.
func (in Input) withDefaults() Input {
	if in.Name == "" {
		in.Name = DefaultName
	}
	if in.Image == "" {
		in.Image = DefaultImage()
	}
	if in.PVC == "" {
		in.PVC = DefaultPVC
	}
	return in
}

// StartAtText is how the manifests print t: UTC, RFC 3339, to the second.
func StartAtText(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// ConfigMapName is the name of the ConfigMap of a run named name.
func ConfigMapName(name string) string { return name + "-scenario" }

// ClockAddress is worker 0's clock endpoint in a run named name: its pod's
// DNS name under the headless Service, and ClockPort.
func ClockAddress(name string) string {
	return name + "-0." + name + ":" + strconv.Itoa(ClockPort)
}

// Labels are the labels of a run's objects and pods; the Service selects
// the pods by them.
func Labels(name string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":     "vbench",
		"app.kubernetes.io/instance": name,
	}
}

// Args are the worker container's arguments (after the vbench entrypoint)
// for a run named name over workers pods starting at startAt. Kubernetes
// expands $(JOB_COMPLETION_INDEX) from the container's environment.
func Args(name string, workers int, startAt time.Time) []string {
	index := "$(" + IndexEnv + ")"
	return []string{
		"run", ScenarioDir + "/" + ScenarioKey,
		"--shard", index + "/" + strconv.Itoa(workers),
		"--start-at", StartAtText(startAt),
		"--clock", ClockAddress(name),
		"--set", "output.result_dir=" + ResultsDir + "/" + index,
	}
}

// check validates in (with its defaults applied): its error names the
// vbench k8s flag of each bad field, on one line.
func (in Input) check() error {
	var errs []string
	bad := func(flag, value string, msgs []string) {
		if len(msgs) > 0 {
			errs = append(errs, fmt.Sprintf("--%s %q: %s", flag, value, strings.Join(msgs, "; ")))
		}
	}
	if in.Workers < 1 || in.Workers > MaxWorkers {
		errs = append(errs, fmt.Sprintf("--workers %d: want a number of worker pods from 1 to %d", in.Workers, MaxWorkers))
	}
	// The Job's pods are named NAME-I (their hostnames), the ConfigMap
	// NAME-scenario; the Service's name must also be a DNS-1035 label (it
	// starts with a letter). NAME-scenario being a label, NAME-I is one.
	msgs := validation.IsDNS1123Label(in.Name)
	if len(msgs) == 0 {
		msgs = validation.IsDNS1035Label(in.Name)
	}
	if cm := ConfigMapName(in.Name); len(msgs) == 0 && len(validation.IsDNS1123Label(cm)) > 0 {
		msgs = []string{fmt.Sprintf("the ConfigMap's name %s must be a DNS label too: %s", cm, strings.Join(validation.IsDNS1123Label(cm), "; "))}
	}
	bad("name", in.Name, msgs)
	if in.Namespace != "" {
		bad("namespace", in.Namespace, validation.IsDNS1123Label(in.Namespace))
	}
	if strings.ContainsFunc(in.Image, unicode.IsSpace) {
		bad("image", in.Image, []string{"an image reference has no spaces"})
	}
	bad("pvc", in.PVC, validation.IsDNS1123Subdomain(in.PVC))
	if in.APIKeySecret != "" {
		bad("api-key-secret", in.APIKeySecret, validation.IsDNS1123Subdomain(in.APIKeySecret))
	}
	for _, q := range []struct{ flag, value string }{{"cpu", in.CPU}, {"memory", in.Memory}} {
		if q.value == "" {
			continue
		}
		if _, err := quantity(q.value); err != nil {
			bad(q.flag, q.value, []string{err.Error()})
		}
	}
	if in.StartAt.IsZero() {
		errs = append(errs, "no start time (--start-at or --start-in)")
	}
	switch {
	case len(in.ScenarioJSON) == 0 || !json.Valid(in.ScenarioJSON):
		errs = append(errs, "the scenario is not valid JSON")
	case len(in.ScenarioJSON) > maxConfigMapBytes-1024:
		errs = append(errs, fmt.Sprintf("the scenario's JSON is %d bytes: a ConfigMap holds at most 1 MiB", len(in.ScenarioJSON)))
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(errs, "; ")) // one line, as vbench prints errors
}

// quantity parses a positive Kubernetes quantity.
func quantity(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, errors.New("want a Kubernetes quantity such as 500m, 2, 512Mi or 4Gi")
	}
	if q.Sign() <= 0 {
		return q, errors.New("want a quantity above 0")
	}
	return q, nil
}

// Objects returns the objects of the run in describes: the ConfigMap
// holding the scenario, the headless Service for worker 0's clock, and
// the Indexed Job of the workers. Empty fields of in take their defaults;
// an invalid field is an error naming its vbench k8s flag (all problems
// are reported together).
func Objects(in Input) (*corev1.ConfigMap, *corev1.Service, *batchv1.Job, error) {
	in = in.withDefaults()
	if err := in.check(); err != nil {
		return nil, nil, nil, err
	}
	labels := Labels(in.Name)
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: in.Namespace, Labels: Labels(in.Name)}
	}

	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(ConfigMapName(in.Name)),
		Data:       map[string]string{ScenarioKey: string(in.ScenarioJSON)},
	}

	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(in.Name),
		Spec: corev1.ServiceSpec{
			// Headless: NAME-I.NAME resolves to pod I, ready or not (the
			// workers have no readiness probe to pass before the start).
			ClusterIP:                corev1.ClusterIPNone,
			PublishNotReadyAddresses: true,
			Selector:                 labels,
			Ports: []corev1.ServicePort{{
				Name:       ClockPortName,
				Port:       ClockPort,
				TargetPort: intstr.FromString(ClockPortName),
				Protocol:   corev1.ProtocolTCP,
			}},
		},
	}

	env := []corev1.EnvVar{{
		Name: IndexEnv,
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']",
		}},
	}}
	if in.APIKeySecret != "" {
		env = append(env, corev1.EnvVar{
			Name: "OPENAI_API_KEY",
			ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: in.APIKeySecret},
				Key:                  APIKeySecretKey,
			}},
		})
	}
	var res corev1.ResourceRequirements
	for _, r := range []struct {
		name  corev1.ResourceName
		value string
	}{{corev1.ResourceCPU, in.CPU}, {corev1.ResourceMemory, in.Memory}} {
		if r.value == "" {
			continue
		}
		q, _ := quantity(r.value) // checked
		if res.Requests == nil {
			res.Requests, res.Limits = corev1.ResourceList{}, corev1.ResourceList{}
		}
		// Requests equal to limits: a benchmark client is not throttled
		// or evicted for using what it asked for.
		res.Requests[r.name], res.Limits[r.name] = q, q
	}

	completions := int32(in.Workers)
	indexed := batchv1.IndexedCompletion
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(in.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &completions,
			Parallelism:    &completions,
			// A shard that fails fails the run: a retried shard would
			// start after the others.
			BackoffLimit: new(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// With the headless Service of the same name, pod I
					// resolves as NAME-I.NAME.
					Subdomain: in.Name,
					// The image runs as distroless's nonroot user: make the
					// claim writable by its group.
					SecurityContext: &corev1.PodSecurityContext{FSGroup: new(int64(nonrootGID))},
					Containers: []corev1.Container{{
						Name:  "vbench",
						Image: in.Image,
						Args:  Args(in.Name, in.Workers, in.StartAt),
						Env:   env,
						Ports: []corev1.ContainerPort{{
							Name:          ClockPortName,
							ContainerPort: ClockPort,
							Protocol:      corev1.ProtocolTCP,
						}},
						Resources: res,
						VolumeMounts: []corev1.VolumeMount{
							{Name: "scenario", MountPath: ScenarioDir, ReadOnly: true},
							{Name: "results", MountPath: ResultsDir},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "scenario", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(in.Name)},
						}}},
						{Name: "results", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
							ClaimName: in.PVC,
						}}},
					},
				},
			},
		},
	}
	return cm, svc, job, nil
}

// Manifests returns the objects of [Objects] as multi-document YAML
// (ConfigMap, Service, Job), after a comment line that says how many
// workers start when. The objects' empty status is left out.
func Manifests(in Input) ([]byte, error) {
	cm, svc, job, err := Objects(in)
	if err != nil {
		return nil, err
	}
	in = in.withDefaults()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# vbench k8s: %d workers, start at %s; collect the records with vbench merge from claim %s (see vbench k8s --help)\n",
		in.Workers, StartAtText(in.StartAt), in.PVC)
	for _, obj := range []any{cm, svc, job} {
		doc, err := toYAML(obj)
		if err != nil {
			return nil, err
		}
		buf.WriteString("---\n")
		buf.Write(doc)
	}
	return buf.Bytes(), nil
}

// toYAML encodes obj as YAML without its status, which only a cluster
// fills in.
func toYAML(obj any) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifests: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("encoding the manifests: %w", err)
	}
	delete(fields, "status")
	if data, err = json.Marshal(fields); err != nil {
		return nil, fmt.Errorf("encoding the manifests: %w", err)
	}
	out, err := yaml.JSONToYAML(data)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifests: %w", err)
	}
	return out, nil
}
