package scenario

import (
	"cuelang.org/go/cue"
)

// userDefault is a default the user's inputs give a field, such as a
// shipped scenario's `num_prompts: *4096 | int`.
type userDefault struct {
	path  cue.Path
	value cue.Value
}

// userDefaults returns the defaults left in the unification of the user's
// inputs (without the schema): the fields no input decided. CUE's rule
// for two defaults is that they unify, so a scenario's `*4096 | int`
// against the schema's `*1000 | int` would leave no default at all ("
// incomplete value 4096 | 1000"); resolve instead fills these in as
// values before the schema's defaults apply. So a base scenario's defaults
// win over the schema's, and an overlay's value (`num_prompts: 6`, which
// unifies with `*4096 | int` to 6) wins over the base's: a base gives
// defaults, an overlay decides.
func userDefaults(user cue.Value) []userDefault {
	var out []userDefault
	collectDefaults(user, nil, &out)
	return out
}

func collectDefaults(v cue.Value, sels []cue.Selector, out *[]userDefault) {
	if d, ok := v.Default(); ok {
		if len(sels) > 0 && d.Validate(cue.Concrete(true)) == nil {
			*out = append(*out, userDefault{path: cue.MakePath(sels...), value: d})
		}
		return
	}
	if v.IncompleteKind() != cue.StructKind {
		return
	}
	it, err := v.Fields()
	if err != nil {
		return
	}
	for it.Next() {
		collectDefaults(it.Value(), append(sels[:len(sels):len(sels)], it.Selector()), out)
	}
}
