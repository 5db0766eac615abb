// Package atomicfile writes files atomically: the content goes to a
// temporary file in the destination's directory, which is given its
// permission bits, synced and renamed over the destination, and the
// directory is synced so the rename itself survives a crash. Readers see
// the old file or the new one, never a torn one.
//
// It wraps github.com/google/renameio/v2, which builds on Unix only (as
// does the rest of vbench: the simulator's raw writes are Unix-only too).
// It is a leaf package: it imports no other vbench package.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// File is a pending replacement of a file: write to it, then Commit. Call
// Cleanup (deferred) in every case; after a Commit it does nothing.
type File struct {
	*renameio.PendingFile
	dir string
}

// Create starts a replacement of path: a temporary file named ".<base>"
// plus a random number in path's directory, with permission bits perm
// exactly (the umask does not apply). The directory must exist.
func Create(path string, perm fs.FileMode) (*File, error) {
	dir := filepath.Dir(path)
	// WithTempDir keeps renameio from probing os.TempDir: the temporary
	// file always sits next to the destination.
	f, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(perm))
	if err != nil {
		return nil, err
	}
	return &File{PendingFile: f, dir: dir}, nil
}

// Commit syncs and closes the temporary file, renames it over the
// destination and syncs the directory (where the platform can sync one).
// After a failed Commit, Cleanup removes the temporary file.
func (f *File) Commit() error {
	if err := f.CloseAtomicallyReplace(); err != nil {
		return err
	}
	if d, err := os.Open(f.dir); err == nil {
		_ = d.Sync() // not every platform or file system can sync a directory
		d.Close()
	}
	return nil
}

// WriteFile replaces path with data atomically; a new file gets perm, and
// so does an existing one (its old bits are not kept). The directory must
// exist.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
