package scenario_test

// The scenario's Go types know no dataset kind: package dataset registers
// each kind it implements (scenario.RegisterDatasetKind). Importing it here
// links every kind into this package's test binary, the internal tests'
// included, as into every program that loads scenarios.
import _ "github.com/vbench/vbench/internal/dataset"
