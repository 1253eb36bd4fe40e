// Package all imports every component package for its side effect of
// registering the component types with graph, the way image/png registers
// a format. Programs that load scenes import it blank:
//
//	import _ "github.com/sofago/sofago/components/all"
package all

import (
	_ "github.com/sofago/sofago/components/collision"
	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	_ "github.com/sofago/sofago/components/mapping"
	_ "github.com/sofago/sofago/components/mass"
	_ "github.com/sofago/sofago/components/reduced"
	_ "github.com/sofago/sofago/components/shapefunction"
	_ "github.com/sofago/sofago/components/shapematching"
	_ "github.com/sofago/sofago/components/solver"
	_ "github.com/sofago/sofago/components/topology"
	_ "github.com/sofago/sofago/components/visual"
)
