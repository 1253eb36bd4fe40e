package graph

import "slices"

// Notes are what a scene changed from what its file says without it being
// an error (a non-unit quaternion normalised, ...): they are not silent,
// runscene prints them under "notes" in its summary. Each note is located
// like an error: "file:line: node "n", object "o" (Type): text".

// Notef records a note located at this object in the scene of its node.
// An object that is not in a scene (built in code, not yet added to a node)
// has nowhere to record it and the note is dropped. A note already recorded
// (an object initialised twice) is not repeated.
func (b *ObjectBase) Notef(format string, args ...any) {
	if b.Node == nil || b.Node.scene == nil {
		return
	}
	b.Node.scene.AddNote(b.Errorf(format, args...).Error())
}

// AddNote records a note about the scene (already located by the caller);
// a note already recorded is not repeated.
func (s *Scene) AddNote(note string) {
	if !slices.Contains(s.notes, note) {
		s.notes = append(s.notes, note)
	}
}

// Notes returns the scene's notes, in the order they were recorded (load,
// then Init phase by phase).
func (s *Scene) Notes() []string { return slices.Clone(s.notes) }
