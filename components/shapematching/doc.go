// Package shapematching holds shape-matching dynamics on particle states
// (Müller et al. 2005) and its example-based extension (Koyama et al. 2012).
package shapematching
