package graph

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SceneKey is one root key of a scene file. The loader validates a root key
// with its set function and `runscene -doc scene` prints the same table
// (SceneKeys), so the documentation cannot drift from the code; Default is
// read from NewScene's values.
type SceneKey struct {
	Name    string
	Type    string // as -doc TYPE shows field types
	Default string
	Unit    string
	Doc     string

	// set validates the value and stores it in the scene; line is for
	// nothing but the caller's error. nil for "node" (the loader builds
	// the tree itself).
	set func(s *Scene, v any) error
	// show formats the scene's current value (for Default).
	show func(s *Scene) string
}

// sceneKeys is the table of root keys, in the order they are documented.
var sceneKeys = []SceneKey{
	{
		Name: "dt", Type: "number", Unit: "s",
		Doc: "time step of every ODE solver (runscene -dt overrides it); must be positive and finite",
		set: func(s *Scene, v any) error {
			x, err := number(v)
			if err != nil || x <= 0 {
				return fmt.Errorf("dt must be a positive number of seconds, got %s", describe(v))
			}
			s.Dt = x
			return nil
		},
		show: func(s *Scene) string { return strconv.FormatFloat(s.Dt, 'g', -1, 64) },
	},
	{
		Name: "gravity", Type: "[3]number", Unit: "m/s²",
		Doc: "gravitational acceleration of every node without its own gravity; its potential energy −Σ m g·x is measured from the world origin",
		set: func(s *Scene, v any) error {
			g, err := vec3(v)
			if err != nil {
				return fmt.Errorf("gravity: %v", err)
			}
			s.Gravity = g
			return nil
		},
		show: func(s *Scene) string {
			return fmt.Sprintf("[%s, %s, %s]", strconv.FormatFloat(s.Gravity[0], 'g', -1, 64),
				strconv.FormatFloat(s.Gravity[1], 'g', -1, 64), strconv.FormatFloat(s.Gravity[2], 'g', -1, 64))
		},
	},
	{
		Name: "steps", Type: "integer", Unit: "-",
		Doc: "number of steps runscene takes (runscene -steps overrides it); 0 or more",
		set: func(s *Scene, v any) error {
			n, ok := v.(int64)
			if !ok || n < 0 {
				return fmt.Errorf("steps must be a non-negative integer, got %s", describe(v))
			}
			s.Steps = int(n)
			return nil
		},
		show: func(s *Scene) string { return strconv.Itoa(s.Steps) },
	},
	{
		Name: "cacheDir", Type: "string", Unit: "-",
		Doc: "folder of the precomputation caches (reduced models, spring networks), relative to the scene file; runscene -cache overrides it",
		set: func(s *Scene, v any) error {
			d, ok := v.(string)
			if !ok || strings.TrimSpace(d) == "" {
				return fmt.Errorf("cacheDir must be a non-empty folder name, got %s", describe(v))
			}
			s.CacheDir = s.ResolvePath(d)
			return nil
		},
		show: func(s *Scene) string {
			if s.CacheDir != "" {
				return s.CacheDir
			}
			return "(user cache folder)/sofago"
		},
	},
	{
		Name: "node", Type: "[[node]]", Default: "-", Unit: "-",
		Doc: "the top-level nodes, each a [[node]] table with name, gravity, [[node.object]] components and [[node.node]] children",
	},
}

// SceneKeys returns the root keys of a scene file with their type, default,
// unit and meaning.
func SceneKeys() []SceneKey {
	fresh := NewScene("")
	out := make([]SceneKey, len(sceneKeys))
	for i, k := range sceneKeys {
		out[i] = k
		if k.show != nil {
			out[i].Default = k.show(fresh)
		}
		out[i].set, out[i].show = nil, nil
	}
	return out
}

// sceneKeyNames lists the root keys, for did-you-mean.
func sceneKeyNames() []string {
	names := make([]string, len(sceneKeys))
	for i, k := range sceneKeys {
		names[i] = k.Name
	}
	return names
}

func findSceneKey(name string) (SceneKey, bool) {
	for _, k := range sceneKeys {
		if k.Name == name {
			return k, true
		}
	}
	return SceneKey{}, false
}

// CacheFolder returns the folder precomputations (reduced models, spring
// networks) are cached in: CacheDir when it is set (the scene's root key
// cacheDir, or runscene -cache), else DefaultCacheFolder.
func (s *Scene) CacheFolder() (string, error) {
	if s != nil && s.CacheDir != "" {
		return s.CacheDir, nil
	}
	return DefaultCacheFolder()
}

// DefaultCacheFolder returns os.UserCacheDir()/sofago ($XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows).
// When the system gives none (no home folder), it is an error that says
// how to choose one: there is no silent fallback into the scene's folder.
func DefaultCacheFolder() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		if err == nil {
			err = errors.New("empty")
		}
		return "", fmt.Errorf("no folder for the precomputation cache: the user cache folder is unknown (%v); set cacheDir at the scene's root, run with -cache DIR, or set cache = false", err)
	}
	return filepath.Join(d, "sofago"), nil
}
