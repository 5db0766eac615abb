package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"cuelang.org/go/cue"
)

// Unimplemented is a schema field vbench does not implement yet. A
// scenario that sets it to anything but its default is refused at load
// (an [*Error] naming the field's file:line:col), so that it is never
// accepted and then ignored.
type Unimplemented struct {
	// Path is the field path, e.g. "target.profile".
	Path string
	// Flag is the `vllm bench serve` flag the field corresponds to. vbench
	// serve refuses it with the same Reason (argv's allowlist,
	// internal/argv/testdata/unsupported.txt; a test there checks they
	// agree).
	Flag string
	// Reason says what is missing.
	Reason string
}

// unimplemented lists the fields of #Scenario that vbench does not
// implement yet. When one lands, remove it here and from argv's
// unsupported.txt, and list it as implemented in TestSchemaFieldsAccounted.
var unimplemented = []Unimplemented{
	{"dataset.random.batch_size", "--random-batch-size", "batched random prompts are for embedding backends, which are not implemented yet"},
	{"dataset.hf.asr_max_audio_len_sec", "--asr-max-audio-len-sec", "the hf ASR datasets come with the audio (transcription) backends, not implemented yet"},
	{"dataset.hf.asr_min_audio_len_sec", "--asr-min-audio-len-sec", "the hf ASR datasets come with the audio (transcription) backends, not implemented yet"},
	{"dataset.hf.bfcl_categories", "--bfcl-categories", "the hf BFCL tool-calling dataset comes with the chat backend's tools support, not implemented yet"},
}

// UnimplementedFields returns the schema fields vbench refuses because it
// does not implement them yet, in schema order.
func UnimplementedFields() []Unimplemented {
	return append([]Unimplemented(nil), unimplemented...)
}

// refuseUnimplemented returns a problem for each unimplemented field that
// v (the scenario unified with the schema) sets to something other than
// its schema default. It runs under cueMu.
func refuseUnimplemented(v cue.Value, cs *compiledSchema) []Problem {
	var problems []Problem
	for _, u := range unimplemented {
		p := cue.ParsePath(u.Path)
		got := v.LookupPath(p)
		if !got.Exists() {
			continue
		}
		def, hasDefault := schemaField(cs.def, p).Default()
		if hasDefault && def.IsConcrete() && sameJSON(got, def) {
			continue
		}
		msg := fmt.Sprintf("not supported yet: %s (remove it", u.Reason)
		if hasDefault && def.IsConcrete() {
			if b, err := def.MarshalJSON(); err == nil {
				msg += fmt.Sprintf(", or set the default %s", b)
			}
		}
		msg += ")"
		problems = append(problems, newProblem(msg, strings.Split(u.Path, ".")...))
	}
	return problems
}

// schemaField is the schema's field at p, also when p passes through an
// optional field (dataset.hf?), which a plain lookup does not enter.
func schemaField(def cue.Value, p cue.Path) cue.Value {
	if f := def.LookupPath(p); f.Exists() {
		return f
	}
	sels := p.Selectors()
	for i, s := range sels {
		if s.ConstraintType() == 0 && s.LabelType() == cue.StringLabel {
			sels[i] = s.Optional()
		}
	}
	return def.LookupPath(cue.MakePath(sels...))
}

// sameJSON reports whether a and b have equal JSON values, numbers
// compared by value (0 equals 0.0).
func sameJSON(a, b cue.Value) bool {
	decode := func(v cue.Value) (any, bool) {
		data, err := v.MarshalJSON()
		if err != nil {
			return nil, false
		}
		var x any
		err = json.Unmarshal(data, &x)
		return x, err == nil
	}
	x, ok1 := decode(a)
	y, ok2 := decode(b)
	return ok1 && ok2 && reflect.DeepEqual(x, y)
}

// placeAll places each problem in the user's input.
func (l *locator) placeAll(problems []Problem, cs *compiledSchema) []Problem {
	for i := range problems {
		problems[i] = l.place(problems[i], cs)
	}
	return problems
}
