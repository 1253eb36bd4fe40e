// Package validation holds no code: its tests check whole scenes — solver,
// mass, force field and constraints together — against results from outside
// the code (closed-form beam theory, energy conservation, static
// equilibrium). Component-level tests live beside each component; these are
// the end-to-end physics checks of the issues' "what it must show" lists.
//
// The longest studies are skipped with -short (CI's fast pass) and run with
// plain `go test ./validation/`.
package validation
