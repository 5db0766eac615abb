// Package version holds vbench's version.
package version

import "runtime"

// Version is vbench's release version.
const Version = "0.1.0-dev"

// String is the version line `vbench version` prints.
func String() string {
	return "vbench " + Version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
