package reduced

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// Progress receives the progress of every reduced model's precomputation
// (basis, cubic polynomials): the object's path, the stage, the work done
// and its total (total 0: a message, in note). Programs set it to show
// progress their own way (nil: silent). The default prints a one-line
// indicator to standard error when it is a terminal, and nothing
// otherwise (tests, pipes). Calls come one at a time.
var Progress func(object, stage string, done, total int, note string) = defaultProgress()

func defaultProgress() func(object, stage string, done, total int, note string) {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return TerminalProgress(os.Stderr)
}

// TerminalProgress returns a Progress function that redraws one line on w
// at most ten times a second, and ends the line when a stage completes.
func TerminalProgress(w *os.File) func(object, stage string, done, total int, note string) {
	var last time.Time
	return func(object, stage string, done, total int, note string) {
		switch {
		case total == 0:
			fmt.Fprintf(w, "\r%s: %s %s\n", object, stage, note)
		case done >= total:
			fmt.Fprintf(w, "\r%s: %s %d/%d done\x1b[K\n", object, stage, done, total)
		case time.Since(last) > 100*time.Millisecond:
			last = time.Now()
			fmt.Fprintf(w, "\r%s: %s %d/%d (%.0f%%)\x1b[K", object, stage, done, total, 100*float64(done)/float64(total))
		}
	}
}

var progressMu sync.Mutex

// progress forwards to the Progress hook, serialised.
func (c *ReducedStVKForceField) progress(stage string, done, total int, note string) {
	progressMu.Lock()
	defer progressMu.Unlock()
	if p := Progress; p != nil {
		p(c.Path(), stage, done, total, note)
	}
}
