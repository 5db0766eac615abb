package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/scenario"
)

// Spec is the shape of an experiment: its sweep points, variants, repeat
// count and gates. Every run's result carries it (in "vbench" →
// "experiment" → "spec"), so that a directory of results can be summarised
// again without the scenario.
type Spec struct {
	// Name is the scenario's name.
	Name string `json:"name,omitempty"`
	// Axes are the swept field paths, sorted.
	Axes []string `json:"axes,omitempty"`
	// Mode is the sweep mode, grid or zip.
	Mode string `json:"mode,omitempty"`
	// Points are the sweep points in run order; one unnamed point without
	// a sweep.
	Points []Point `json:"points"`
	// Variants are the compare variants, the baseline first and then the
	// others in name order; nil without compare.
	Variants []string `json:"variants,omitempty"`
	// Baseline is the variant the others are compared with.
	Baseline string `json:"baseline,omitempty"`
	// Repeat is the number of runs of each point of each variant.
	Repeat int `json:"repeat"`
	// FixedSeed keeps the scenario seed in every repeat.
	FixedSeed bool `json:"fixed_seed,omitempty"`
	// Gates are the compare gates.
	Gates []scenario.Gate `json:"gates,omitempty"`
}

// Point is one sweep point.
type Point struct {
	// Name names the point in file names and tables: "key=value" per axis,
	// joined by "-", with key the axis's last field name (its whole path
	// when two axes share a last name), e.g. "max_concurrency=8".
	Name string `json:"name,omitempty"`
	// Values are the point's values, one per axis in Spec.Axes order, as
	// JSON (header values redacted).
	Values []json.RawMessage `json:"values,omitempty"`
}

// RunInfo places one run in its experiment. It is saved as the
// "experiment" member of the result's "vbench" object.
type RunInfo struct {
	// Hash is the experiment scenario's hash (with its sweep, repeat and
	// compare), shared by every run of the experiment.
	Hash string `json:"hash"`
	// Index is the run's position in run order (0-based) and Runs their number.
	Index int `json:"index"`
	Runs  int `json:"runs"`
	// Point indexes Spec.Points.
	Point int `json:"point"`
	// Variant is the compare variant ("" without compare).
	Variant string `json:"variant,omitempty"`
	// Repeat is the repeat number, 0-based.
	Repeat int `json:"repeat"`
	// Seed is the run's scenario seed (see RepeatSeed).
	Seed int64 `json:"seed"`
	// Spec is the experiment's shape.
	Spec *Spec `json:"spec"`
}

// JSON is the run information as the result's "vbench"."experiment"
// holds it.
func (i *RunInfo) JSON() json.RawMessage {
	b, err := json.Marshal(i)
	if err != nil {
		panic(fmt.Sprintf("internal error: run information does not marshal: %v", err))
	}
	return b
}

// PlannedRun is one run of an experiment.
type PlannedRun struct {
	// Info places the run in the experiment.
	Info RunInfo
	// Scenario is the run's single-run scenario: the base scenario with the
	// variant merged in, then the point's values, the repeat's seed, and
	// the result file set.
	Scenario *scenario.Scenario
	// Path is the run's result file.
	Path string
	// Label describes the run: "max_concurrency=8, variant slow, repeat 1".
	Label string
}

// Plan is an experiment expanded into its runs, in run order.
type Plan struct {
	// Hash is the experiment scenario's hash.
	Hash string
	// Spec is the experiment's shape.
	Spec Spec
	// Dir is where the results and summaries go (output.result_dir, else ".").
	Dir string
	// DisableProgress turns off the progress lines (output.disable_tqdm).
	DisableProgress bool
	// Runs are the runs in the order they run.
	Runs []PlannedRun
}

// IsExperiment reports whether sc has a sweep, repeat or compare.
func IsExperiment(sc *scenario.Scenario) bool {
	return sc.Sweep != nil || sc.Repeat != nil || sc.Compare != nil
}

// RepeatSeed is the seed of repeat r (0-based) of a point whose scenario
// seed is seed. Repeat 0, and every repeat with fixed_seed, keep the seed
// (identical prompts and arrival times); repeat r ≥ 1 otherwise takes
// SplitMix64's output for the state seed + r·γ, reduced to the 32 bits a
// numpy seed holds:
//
//	z = uint64(seed) + r · 0x9E3779B97F4A7C15                (mod 2⁶⁴)
//	z = (z ⊕ (z ≫ 30)) · 0xBF58476D1CE4E5B9
//	z = (z ⊕ (z ≫ 27)) · 0x94D049BB133111EB
//	seed_r = (z ⊕ (z ≫ 31)) mod 2³²
//
// Every variant of a compare gets the same seed in the same repeat, so the
// variants of one repeat see identical prompts.
func RepeatSeed(seed int64, r int, fixed bool) int64 {
	if r == 0 || fixed {
		return seed
	}
	z := uint64(seed) + uint64(r)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return int64((z ^ (z >> 31)) & math.MaxUint32)
}

// Expand turns an experiment scenario into its runs. The runs are
// interleaved so that drift over time does not line up with one point or
// one variant: repeat by repeat, within a repeat point by point, and within
// a point the variants in turn, baseline first in even repeats and in
// reverse order in odd ones (A B, B A, A B, ...). Reversing makes the
// interleaving counterbalanced: a linear drift, or an advantage of running
// second (a warmer server), cancels over each pair of repeats instead of
// always favouring the same variant.
// Sweep points are the Cartesian product of the axes (the last axis in
// sorted path order varying fastest) or, in zip mode, the axes' i-th
// values together.
//
// Each run writes its result to output.result_dir (else the working
// directory) under a name made of the variant, the point and "run=<r>"
// (with repeat), joined by "-": "slow-max_concurrency=8-run=1.json",
// prefixed with the stem of output.result_filename when that is set.
// Runs always save their result (and append_result is off): the summaries,
// --resume and `vbench report` read them back.
func Expand(sc *scenario.Scenario) (*Plan, error) {
	if !IsExperiment(sc) {
		return nil, fmt.Errorf("the scenario has no sweep, repeat or compare")
	}
	base := *sc
	base.Sweep, base.Repeat, base.Compare = nil, nil, nil
	plan := &Plan{Hash: sc.Hash(), Dir: sc.Output.ResultDir, DisableProgress: sc.Output.DisableTqdm}
	if plan.Dir == "" {
		plan.Dir = "."
	}
	spec := &plan.Spec
	spec.Name, spec.Repeat = sc.Name, 1
	if r := sc.Repeat; r != nil {
		spec.Repeat, spec.FixedSeed = r.Count, r.FixedSeed
	}

	overrides, err := expandPoints(sc, spec)
	if err != nil {
		return nil, err
	}
	variants := []string{""}
	if c := sc.Compare; c != nil {
		names := slices.Sorted(maps.Keys(c.Variants))
		spec.Baseline = c.Baseline
		if spec.Baseline == "" {
			spec.Baseline = names[0]
		}
		spec.Variants = append([]string{spec.Baseline}, slices.DeleteFunc(names, func(n string) bool { return n == spec.Baseline })...)
		spec.Gates = c.Gates
		variants = spec.Variants
	}

	// The scenario of each (variant, point): the variant merged into the
	// base, then the point's values, so that a row's axis values are what
	// actually ran.
	scenarios := make([][]*scenario.Scenario, len(variants))
	for vi, v := range variants {
		vs := &base
		if v != "" {
			if vs, err = base.Merge(sc.Compare.Variants[v]); err != nil {
				return nil, fmt.Errorf("compare variant %q: %w", v, err)
			}
		}
		scenarios[vi] = make([]*scenario.Scenario, len(spec.Points))
		for pi, ovs := range overrides {
			ps := vs
			if len(ovs) > 0 {
				if ps, err = vs.With(ovs...); err != nil {
					return nil, fmt.Errorf("sweep point %s: %w", spec.Points[pi].Name, err)
				}
			}
			scenarios[vi][pi] = ps
		}
	}
	if c := sc.Compare; c != nil && len(c.Gates) > 0 {
		if problems := gateProblems(c.Gates, variants, spec.Points, scenarios); len(problems) > 0 {
			return nil, &gateError{problems: problems}
		}
	}

	prefix := ""
	if f := sc.Output.ResultFilename; f != "" {
		prefix = strings.TrimSuffix(f, filepath.Ext(f))
	}
	total := spec.Repeat * len(spec.Points) * len(variants)
	seen := map[string]string{}
	for r := range spec.Repeat {
		for pi, pt := range spec.Points {
			for k := range variants {
				vi := k
				if r%2 == 1 {
					vi = len(variants) - 1 - k // counterbalanced: A B, then B A
				}
				v := variants[vi]
				run := *scenarios[vi][pi]
				run.Seed = RepeatSeed(run.Seed, r, spec.FixedSeed)
				var parts, label []string
				if prefix != "" {
					parts = append(parts, prefix)
				}
				if v != "" {
					parts = append(parts, sanitizeName(v))
				}
				if pt.Name != "" {
					parts = append(parts, pt.Name)
					label = append(label, pt.Name)
				}
				if v != "" {
					label = append(label, "variant "+v)
				}
				if sc.Repeat != nil {
					parts = append(parts, "run="+strconv.Itoa(r))
					label = append(label, "repeat "+strconv.Itoa(r))
				}
				name := strings.Join(parts, "-") + ".json"
				if other, dup := seen[name]; dup {
					return nil, fmt.Errorf("runs %s and %s would both write %s: make the sweep values or variant names distinct", other, strings.Join(label, ", "), name)
				}
				seen[name] = strings.Join(label, ", ")
				run.Output.SaveResult = true
				run.Output.AppendResult = false
				run.Output.ResultDir = plan.Dir
				run.Output.ResultFilename = name
				plan.Runs = append(plan.Runs, PlannedRun{
					Info: RunInfo{Hash: plan.Hash, Index: len(plan.Runs), Runs: total, Point: pi, Variant: v,
						Repeat: r, Seed: run.Seed, Spec: spec},
					Scenario: &run,
					Path:     filepath.Join(plan.Dir, name),
					Label:    strings.Join(label, ", "),
				})
			}
		}
	}
	groupByServer(plan)
	return plan, nil
}

// groupByServer reorders the runs of an experiment whose runs need
// different managed servers (a sweep over target.server) so that the runs
// of one server are consecutive, in the order each server is first
// needed, keeping the interleaved order within each group: the server then
// starts once per setting, as vLLM's sweep runs every benchmark of one
// serve combination before the next.
func groupByServer(plan *Plan) {
	first := map[string]int{}
	keys := make([]int, len(plan.Runs))
	for i := range plan.Runs {
		b, _ := json.Marshal(plan.Runs[i].Scenario.Target.Server)
		k, ok := first[string(b)]
		if !ok {
			k = len(first)
			first[string(b)] = k
		}
		keys[i] = k
	}
	if len(first) < 2 {
		return
	}
	order := make([]int, len(plan.Runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return keys[a] - keys[b] })
	runs := make([]PlannedRun, len(plan.Runs))
	for i, j := range order {
		runs[i] = plan.Runs[j]
		runs[i].Info.Index = i
	}
	plan.Runs = runs
}

// expandPoints fills spec.Axes and spec.Points and returns each point's
// overrides; without a sweep there is one point with none.
func expandPoints(sc *scenario.Scenario, spec *Spec) ([][]scenario.Override, error) {
	sw := sc.Sweep
	if sw == nil {
		spec.Points = []Point{{}}
		return [][]scenario.Override{nil}, nil
	}
	spec.Axes = slices.Sorted(maps.Keys(sw.Axes))
	spec.Mode = sw.Mode
	redacted := sc.Redacted().Sweep.Axes
	keys := axisKeys(spec.Axes)
	var combos [][]int
	switch sw.Mode {
	case "zip":
		n := len(sw.Axes[spec.Axes[0]])
		for _, a := range spec.Axes {
			if len(sw.Axes[a]) != n {
				return nil, fmt.Errorf("sweep.axes: zip mode needs every axis to have the same number of values")
			}
		}
		for i := range n {
			c := make([]int, len(spec.Axes))
			for j := range c {
				c[j] = i
			}
			combos = append(combos, c)
		}
	default: // grid
		c := make([]int, len(spec.Axes))
		for {
			combos = append(combos, slices.Clone(c))
			j := len(c) - 1
			for ; j >= 0; j-- {
				c[j]++
				if c[j] < len(sw.Axes[spec.Axes[j]]) {
					break
				}
				c[j] = 0
			}
			if j < 0 {
				break
			}
		}
	}
	for a, b := range sw.Link {
		if _, ok := sw.Axes[a]; !ok {
			return nil, fmt.Errorf("sweep.link: %s is not a sweep axis", a)
		}
		if _, ok := sw.Axes[b]; !ok {
			return nil, fmt.Errorf("sweep.link: %s is not a sweep axis", b)
		}
	}
	if len(sw.Link) > 0 {
		index := map[string]int{}
		for j, a := range spec.Axes {
			index[a] = j
		}
		combos = slices.DeleteFunc(combos, func(c []int) bool {
			for a, b := range sw.Link {
				if !jsonEqual(sw.Axes[a][c[index[a]]], sw.Axes[b][c[index[b]]]) {
					return true
				}
			}
			return false
		})
		if len(combos) == 0 {
			return nil, fmt.Errorf("sweep.link leaves no point: the linked axes never take equal values")
		}
	}
	var all [][]scenario.Override
	for _, c := range combos {
		var pt Point
		var ovs []scenario.Override
		var names []string
		for j, a := range spec.Axes {
			ovs = append(ovs, scenario.Override{Path: a, Value: sw.Axes[a][c[j]]})
			shown := redacted[a][c[j]]
			pt.Values = append(pt.Values, shown)
			names = append(names, keys[j]+"="+sanitizeName(ValueText(shown)))
		}
		pt.Name = strings.Join(names, "-")
		spec.Points = append(spec.Points, pt)
		all = append(all, ovs)
	}
	return all, nil
}

// axisKeys are the names of the axes in point names: the last field name,
// or the whole path when another axis has the same last name.
func axisKeys(axes []string) []string {
	last := func(p string) string {
		if strings.HasSuffix(p, `"`) { // a quoted last label: target.server.args."a.b"
			if i := strings.LastIndex(p[:len(p)-1], `."`); i >= 0 {
				if l, err := strconv.Unquote(p[i+1:]); err == nil {
					return l
				}
			}
		}
		return p[strings.LastIndex(p, ".")+1:]
	}
	keys := make([]string, len(axes))
	for i, a := range axes {
		keys[i] = last(a)
		for j, b := range axes {
			if i != j && last(a) == last(b) {
				keys[i] = a
			}
		}
	}
	return keys
}

// ValueText shows a sweep value as text: a string without its quotes, a
// number as written, anything else as compact JSON.
func ValueText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sanitizeName keeps a file name portable: characters other than ASCII
// letters, digits and . _ = + , - become "_", and a name longer than 64
// characters is cut to 55 and suffixed with 8 hex digits of its SHA-256.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._=+,-", c) >= 0
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		sum := sha256.Sum256([]byte(s))
		b = append(b[:55], '~')
		b = append(b, hex.EncodeToString(sum[:4])...)
	}
	return string(b)
}

// jsonEqual says whether two JSON values are equal as values (numbers by
// value: 8 and 8.0 are equal).
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
