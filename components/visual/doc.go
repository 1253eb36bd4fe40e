// Package visual holds output: writers of VTU/PVD series for ParaView, and
// (later) visual surfaces and pictures.
package visual
