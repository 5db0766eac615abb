package argv

import (
	"slices"
	"strings"
	"testing"
)

// TestDatasetTable checks that the dataset table and the flag table agree,
// so that Parse and Format never meet a dataset flag without a home.
func TestDatasetTable(t *testing.T) {
	general := map[string]bool{"--dataset-name": true, "--input-len": true, "--output-len": true}
	for _, f := range flags {
		if f.vbenchOnly || general[f.name] {
			continue
		}
		for _, p := range f.paths {
			// vllm-bench's --multi-turn replaces the dataset with
			// dataset.conversations, which no vllm bench serve flag sets.
			if !strings.HasPrefix(p, "dataset.") || f.rust && strings.HasPrefix(p, "dataset.conversations") {
				continue
			}
			owners, ok := datasetFlagOwners[f.name]
			if !ok {
				t.Errorf("flag %s sets %s but belongs to no dataset kind in argvDatasets", f.name, p)
				continue
			}
			if !slices.ContainsFunc(owners, func(d *argvDataset) bool {
				return strings.HasPrefix(p, "dataset."+strings.ReplaceAll(d.name, "-", "_")+".")
			}) {
				t.Errorf("flag %s sets %s, outside the fields of its datasets", f.name, p)
			}
		}
	}
	for _, d := range argvDatasets {
		if !slices.Contains(datasetNames, vllmDatasetName(d.name)) {
			t.Errorf("dataset %s is not one of vLLM's --dataset-name choices", d.name)
		}
		if d.dataset == nil {
			t.Errorf("dataset %s has no scenario builder", d.name)
		}
		for flag := range d.values {
			if flagByName[flag] == nil {
				t.Errorf("dataset %s owns flag %s, which is not in the flag table", d.name, flag)
			}
		}
		for flag, path := range map[string]string{"--input-len": d.inputLenPath, "--output-len": d.outputLenPath} {
			if path != "" && !slices.Contains(flagByName[flag].paths, path) {
				t.Errorf("dataset %s maps %s to %s, which is not among the flag's paths %q", d.name, flag, path, flagByName[flag].paths)
			}
		}
		n := newNamespace()
		n.datasetName = d.name
		if got := d.dataset(n).Name; got != d.name {
			t.Errorf("dataset %s builds a %q dataset", d.name, got)
		}
	}
	if got := flagByName["--dataset-name"].supported; !slices.Equal(got, argvDatasetNames()) {
		t.Errorf("--dataset-name supports %q, want the table's %q", got, argvDatasetNames())
	}
}
