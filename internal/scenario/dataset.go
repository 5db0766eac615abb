package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Dataset is the scenario's dataset section: the one kind that is set and
// its settings. The scenario's Go types know no kind: a kind's section is
// decoded into the type its package registered ([RegisterDatasetKind];
// package dataset registers every kind it implements), so that adding a
// kind needs no field here.
type Dataset struct {
	// Name is the kind's key under dataset ("random", "sharegpt", ...),
	// the schema's spelling; "" when no kind is set.
	Name string
	// Spec is the kind's settings: a pointer to the kind's registered
	// spec type, or, for a kind the schema knows but no package
	// registered, its section as json.RawMessage (running it is refused
	// later, by the dataset registry).
	Spec any
}

// DatasetKind is what a scenario needs of a dataset kind: how to decode
// its section and the rules that span its section and the rest of the
// scenario. Package dataset registers one for each kind it implements,
// from the kind's own file.
type DatasetKind struct {
	// Name is the kind's key under dataset.
	Name string
	// NewSpec returns a pointer to a new zero spec, into which the kind's
	// section (with the schema's defaults filled in) is decoded.
	NewSpec func() any
	// AllPrompts says load.num_prompts 0 means every row of the kind's
	// data; for other kinds 0 requests is refused.
	AllPrompts bool
	// Backends, when set, returns the only target.backend values the kind
	// accepts.
	Backends func() []string
	// Check, when set, returns the problems of a spec that the schema
	// cannot see (a value that always fails the run), each naming its
	// field (NewProblem with the full path, e.g. "dataset", name, field).
	Check func(spec any) []Problem
}

var datasetKinds = struct {
	sync.RWMutex
	kinds map[string]DatasetKind
}{kinds: map[string]DatasetKind{}}

// RegisterDatasetKind registers k, replacing any kind of the same name,
// and returns a function that restores what was registered before.
// Package dataset calls it for each kind it implements.
func RegisterDatasetKind(k DatasetKind) (restore func()) {
	if k.Name == "" || k.NewSpec == nil {
		panic("scenario: a dataset kind needs a name and NewSpec")
	}
	datasetKinds.Lock()
	defer datasetKinds.Unlock()
	old, had := datasetKinds.kinds[k.Name]
	datasetKinds.kinds[k.Name] = k
	return func() {
		datasetKinds.Lock()
		defer datasetKinds.Unlock()
		if had {
			datasetKinds.kinds[k.Name] = old
		} else {
			delete(datasetKinds.kinds, k.Name)
		}
	}
}

// lookupDatasetKind returns the registered kind called name.
func lookupDatasetKind(name string) (DatasetKind, bool) {
	datasetKinds.RLock()
	defer datasetKinds.RUnlock()
	k, ok := datasetKinds.kinds[name]
	return k, ok
}

// MarshalJSON writes {name: spec}, or {} when no kind is set.
func (d Dataset) MarshalJSON() ([]byte, error) {
	if d.Name == "" {
		return []byte("{}"), nil
	}
	spec, err := json.Marshal(d.Spec)
	if err != nil {
		return nil, err
	}
	name, err := json.Marshal(d.Name)
	if err != nil {
		return nil, err
	}
	return slices.Concat([]byte("{"), name, []byte(":"), spec, []byte("}")), nil
}

// UnmarshalJSON reads {name: spec}: exactly one kind, decoded into its
// registered spec type (unknown fields refused), or kept as raw JSON when
// no package registered the kind.
func (d *Dataset) UnmarshalJSON(b []byte) error {
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(b, &sections); err != nil {
		return err
	}
	if len(sections) != 1 {
		names := slices.Sorted(maps.Keys(sections))
		return fmt.Errorf("exactly one dataset kind must be set, got %d (%s)", len(names), strings.Join(names, ", "))
	}
	for name, raw := range sections {
		k, ok := lookupDatasetKind(name)
		if !ok {
			*d = Dataset{Name: name, Spec: json.RawMessage(bytes.Clone(raw))}
			return nil
		}
		spec := k.NewSpec()
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(spec); err != nil {
			if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
				te.Field = strings.TrimSuffix(name+"."+te.Field, ".")
				return te
			}
			return fmt.Errorf("dataset %s: %w", name, err)
		}
		*d = Dataset{Name: name, Spec: spec}
	}
	return nil
}

// validateDataset checks the rules of the dataset's kind that span the
// scenario: a kind is set, load.num_prompts 0 only where it means every
// row, the backends the kind accepts, and the kind's own Check.
func (s *Scenario) validateDataset() []Problem {
	d := s.Dataset
	if d.Name == "" {
		return []Problem{NewProblem("exactly one dataset kind must be set, got 0", "dataset")}
	}
	k, registered := lookupDatasetKind(d.Name)
	var problems []Problem
	if s.Load.NumPrompts == 0 && !k.AllPrompts {
		problems = append(problems, NewProblem("0 requests: want at least 1", "load", "num_prompts"))
	}
	if !registered {
		return problems
	}
	if k.Backends != nil {
		if backends := k.Backends(); !slices.Contains(backends, s.Target.Backend) {
			problems = append(problems, NewProblem(fmt.Sprintf("dataset %s needs backend %s, got %q", d.Name, orList(backends), s.Target.Backend), "target", "backend"))
		}
	}
	if k.Check != nil {
		problems = append(problems, k.Check(d.Spec)...)
	}
	return problems
}
