// Package scenes holds the example scenes (*.toml) and the test that runs
// them all; it has no code of its own.
package scenes
