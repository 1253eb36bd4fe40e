package collision

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// ContactReporter is implemented by the components that find contacts (the
// obstacles and CollisionPipeline): the contact figures of the current
// step, taken when the step's contacts were detected (at its start, on the
// configuration the previous step ended in).
type ContactReporter interface {
	graph.Object
	// ContactStats returns the number of penetrating contacts (points
	// inside an obstacle or another object) and the largest penetration
	// depth in metres.
	ContactStats() (contacts int, maxPenetration float64)
}

// ContactFigures accumulates the contact figures of one reporter over a run
// (for runscene's summary): Record after every step, then String.
type ContactFigures struct {
	Reporter       ContactReporter
	Steps          int
	Total          int // contacts summed over the steps
	Max            int // most contacts in one step
	MaxPenetration float64
}

// CollectContactReporters returns a ContactFigures for every
// ContactReporter of the scene, in tree order.
func CollectContactReporters(s *graph.Scene) []*ContactFigures {
	var out []*ContactFigures
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if r, ok := o.(ContactReporter); ok {
				out = append(out, &ContactFigures{Reporter: r})
			}
		}
		return nil
	})
	return out
}

// Record adds the figures of the step just taken.
func (c *ContactFigures) Record() {
	n, d := c.Reporter.ContactStats()
	c.Steps++
	c.Total += n
	c.Max = max(c.Max, n)
	c.MaxPenetration = max(c.MaxPenetration, d)
}

// String formats the figures: mean and largest number of contacts per
// step, largest penetration.
func (c *ContactFigures) String() string {
	mean := 0.0
	if c.Steps > 0 {
		mean = float64(c.Total) / float64(c.Steps)
	}
	return fmt.Sprintf("contacts: %.1f/step (max %d), largest penetration %.3g m", mean, c.Max, c.MaxPenetration)
}
