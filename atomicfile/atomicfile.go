// Package atomicfile writes files so that no reader ever sees a partial
// one: the content goes to a temporary file in the same folder, which is
// then renamed over the target. A failed or interrupted write leaves any
// previous file intact and no temporary file behind. Every file the project
// writes (meshes, pictures, exports, dumps, bases, precomputation caches)
// goes through here.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through fill. With sync the data is flushed to disk
// before the rename (survives a power loss, costs ~1 ms); without, it
// survives a killed process (the data is in the page cache). The file gets
// mode 0644 like any file the user writes. Errors are not prefixed with the
// path: callers add their own context.
func Write(path string, sync bool, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if sync {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	// CreateTemp makes the file private (0600).
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteBytes writes data to path atomically, flushed to disk.
func WriteBytes(path string, data []byte) error {
	return Write(path, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
