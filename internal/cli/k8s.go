package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/k8s"
	"github.com/vbench/vbench/internal/scenario"
)

const k8sDoc = `Print Kubernetes manifests that split one run of a scenario over --workers
pods, for kubectl apply.

The output is a YAML stream of three objects:

  ConfigMap NAME-scenario  the resolved scenario as JSON (key scenario.json)
  Service NAME             headless, so that worker 0 is NAME-0.NAME:7070
  Job NAME                 Indexed, --workers pods, no retries

Pod I runs "vbench run /etc/vbench/scenario.json --shard I/N --start-at T
--clock NAME-0.NAME:7070" (see vbench run): it sends every N-th request of
the plan from the I-th, all pods start at T on worker 0's clock, and each
writes its result and records under /results/I on the claim --pvc, which
must exist (ReadWriteMany when the pods may land on several nodes). Once
the Job completes, copy the claim's files off the cluster (for instance
with kubectl cp from a pod that mounts it) and fold the shards into one
result with "vbench merge DIR".

T is --start-at, or now plus --start-in (default 3m): late enough for every
pod to be scheduled, pull the image and measure its clock offset to worker
0. The manifests name T, so apply them soon after printing them.

The ConfigMap holds the scenario redacted, so a scenario with secrets
(target.headers values, a password in target.base_url) is refused: put the
API key in a Secret (key api-key) and give --api-key-secret; the workers
read it as OPENAI_API_KEY. Experiments (sweep, repeat, compare, search) and
scenarios with a managed server (target.server) are refused too, and the
scenario must save its result with records (output.save_result and
output.records), which vbench merge reads.

A Job cannot be changed: delete the previous one (kubectl delete job NAME)
or use another --name before applying new manifests.

Exit codes: 0 success, 2 bad usage or a scenario that cannot be split.`

const k8sExamples = `  vbench k8s s.cue --workers 4 > run.yaml
  kubectl apply -f run.yaml
  kubectl wait --for=condition=complete job/vbench --timeout=2h

  # an API key from a Secret, a namespace, 2 CPUs and 2 GiB per worker
  kubectl create secret generic openai --from-literal=api-key="$OPENAI_API_KEY"
  vbench k8s s.cue --workers 8 --namespace bench --api-key-secret openai --cpu 2 --memory 2Gi \
    --start-at 2026-12-04T12:00:00Z | kubectl apply -f -`

// k8sFlags are vbench k8s's own flags.
type k8sFlags struct {
	workers                         int
	image, namespace, name, startAt string
	startIn                         time.Duration
	pvc, apiKeySecret, cpu, memory  string
}

func newK8sCmd(p Process) *cobra.Command {
	var sf scenarioFlags
	var kf k8sFlags
	cmd := &cobra.Command{
		Use:     "k8s FILE... --workers N",
		Short:   "Print Kubernetes manifests for a run split over worker pods",
		Long:    k8sDoc,
		Example: k8sExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return doK8s(cmd, p, &sf, &kf, args, time.Now())
		},
	}
	sf.register(cmd.Flags())
	fs := cmd.Flags()
	fs.IntVar(&kf.workers, "workers", 0, "number of worker pods `N`, each sending one shard of the run (required)")
	fs.StringVar(&kf.image, "image", k8s.DefaultImage(), "the workers' `image`, whose entrypoint is vbench")
	fs.StringVar(&kf.namespace, "namespace", "", "the objects' `namespace` (default: kubectl's context's)")
	fs.StringVar(&kf.name, "name", k8s.DefaultName, "`name` of the Job and the Service (the ConfigMap is NAME-scenario): a DNS label")
	fs.StringVar(&kf.startAt, "start-at", "", "when the workers start sending (`RFC3339`, e.g. 2026-12-04T12:00:00Z)")
	fs.DurationVar(&kf.startIn, "start-in", 3*time.Minute, "start this long (`duration`) after now, unless --start-at is given")
	fs.StringVar(&kf.pvc, "pvc", k8s.DefaultPVC, "PersistentVolumeClaim `claim` the workers write their results and records to")
	fs.StringVar(&kf.apiKeySecret, "api-key-secret", "", "Secret `name` whose key api-key the workers read as OPENAI_API_KEY")
	fs.StringVar(&kf.cpu, "cpu", "", "CPU request and limit of each worker (a Kubernetes `quantity`: 500m, 2)")
	fs.StringVar(&kf.memory, "memory", "", "memory request and limit of each worker (a Kubernetes `quantity`: 512Mi, 4Gi)")
	return cmd
}

func doK8s(cmd *cobra.Command, p Process, sf *scenarioFlags, kf *k8sFlags, files []string, now time.Time) error {
	fs := cmd.Flags()
	if !fs.Changed("workers") {
		return usageErr(fmt.Errorf("--workers is required: the number of worker pods, from 1 to %d", k8s.MaxWorkers))
	}
	start, err := kf.start(fs.Changed("start-in"), now)
	if err != nil {
		return usageErr(err)
	}
	sc, err := sf.load(p, files)
	if err != nil {
		return err
	}
	if err := shardable(sc, kf.workers); err != nil {
		return usageErr(err)
	}
	if sc.Target.Simulator != nil {
		fmt.Fprintf(p.Stderr, "vbench: note: the scenario's target is the built-in simulator: each worker sends its shard to a simulator of its own\n")
	}
	text, err := json.Marshal(sc.Redacted()) // as the records' header holds it
	if err != nil {
		return failErr(err)
	}
	out, err := k8s.Manifests(k8s.Input{
		Name: kf.name, Namespace: kf.namespace, Image: kf.image, Workers: kf.workers, StartAt: start,
		ScenarioJSON: text, PVC: kf.pvc, APIKeySecret: kf.apiKeySecret, CPU: kf.cpu, Memory: kf.memory,
	})
	if err != nil {
		return usageErr(err)
	}
	if !start.After(now) {
		fmt.Fprintf(p.Stderr, "vbench: note: --start-at %s has passed (it is %s): the workers will refuse to start\n", k8s.StartAtText(start), now.UTC().Format(time.RFC3339))
	}
	_, err = p.Stdout.Write(out)
	return err
}

// start returns the workers' start: --start-at, or now plus --start-in,
// to the second.
func (kf *k8sFlags) start(startInGiven bool, now time.Time) (time.Time, error) {
	if kf.startAt != "" {
		if startInGiven {
			return time.Time{}, errors.New("--start-at and --start-in: give one of them")
		}
		t, err := time.Parse(time.RFC3339, kf.startAt)
		if err != nil {
			return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 time such as 2026-12-04T12:00:00Z", kf.startAt)
		}
		return t.UTC().Truncate(time.Second), nil
	}
	if kf.startIn <= 0 {
		return time.Time{}, fmt.Errorf("--start-in %s: want a duration above 0, long enough for every pod to start (such as 3m)", kf.startIn)
	}
	return now.Add(kf.startIn).UTC().Truncate(time.Second), nil
}

// shardable checks that the workers can run sc as shards of one run: a
// single run, against a server they share, with no secret the
// ConfigMap's redacted copy would lose, and results with records for
// vbench merge.
func shardable(sc *scenario.Scenario, workers int) error {
	if sc.Search != nil || experiment.IsExperiment(sc) {
		return errors.New("vbench k8s splits a single run: the scenario is an experiment (sweep, repeat, compare or search); split each of its runs instead")
	}
	if sc.Target.Server != nil {
		return errors.New("target.server: vbench k8s cannot split a run with a managed server (each worker would start its own); run the server apart and give its target.base_url")
	}
	if sc.Redacted().Hash() != sc.Hash() {
		var what []string
		if len(sc.Target.Headers) > 0 {
			what = append(what, "target.headers ("+strings.Join(slices.Sorted(maps.Keys(sc.Target.Headers)), ", ")+")")
		}
		if scenario.RedactURL(sc.Target.BaseURL) != sc.Target.BaseURL {
			what = append(what, "the password in target.base_url")
		}
		if len(what) == 0 {
			what = append(what, "values that are redacted")
		}
		return fmt.Errorf("the scenario holds secrets the workers' ConfigMap cannot carry (it holds the redacted scenario): %s; "+
			"remove them and pass the API key with --api-key-secret SECRET instead (the workers read OPENAI_API_KEY from the Secret's key api-key)", strings.Join(what, " and "))
	}
	if o := sc.Output; !(o.SaveResult || o.AppendResult) || !o.Records {
		return errors.New("the workers would write no records for vbench merge: set output.save_result and output.records (--set output.save_result=true)")
	}
	if n := sc.Load.NumPrompts; n > 0 && n < workers {
		return fmt.Errorf("load.num_prompts %d leaves some of the %d workers no request: use at most %d workers", n, workers, n)
	}
	if mc := sc.Load.MaxConcurrency; mc != nil && *mc < workers {
		return fmt.Errorf("load.max_concurrency %d cannot be divided over %d workers (each needs at least 1): use at most %d workers", *mc, workers, *mc)
	}
	return nil
}
