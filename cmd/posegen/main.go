// Command posegen authors an example pose for example-based shape matching
// (ShapeMatching's examples) from a rest mesh, by twisting, bending or
// scaling slabs of it (package pose), and writes it in any format meshio
// writes, vertex for vertex with the rest mesh:
//
//	posegen -box -min 0,0,0 -max 0.2,0.2,0.8 -n 5,5,9 -twist 'axis=z angle=90' -o twisted.vtk
//	posegen -in scenes/meshes/cylinder.msh -bend 'axis=x toward=y from=0.25 angle=60' -o bent.msh
//	posegen -in rest.vtk -scale 'axis=x from=0.2 to=0.5 lateral=1.5 blend=0.05' -twist 'axis=x angle=-45' -o out.vtk
//
// The rest mesh is a file (-in) or RegularGridTopology's box (-box with
// -min, -max, -n: the same vertices a scene's RegularGridTopology makes, so
// the example matches it). With -snapshot DUMP.json -state PATH the
// deformations start from a simulated state instead of the rest mesh: the
// positions of state PATH in a runscene -dump file (a "3D snapshot of a
// previously run simulation", one of Martin et al. 2011's ways of making
// examples), e.g. a block pressed by the simulation to which the artist
// adds a local bulge:
//
//	runscene -dump pressed.json scene.toml
//	posegen -box … -snapshot pressed.json -state plain/dofs -bulge '…' -o example.vtk
//
// Deformations apply in the order given; each takes space-separated
// key=value settings:
//
//	all:    axis=x|y|z|ax,ay,az   the slab's axis (required)
//	        from=S to=S           the slab, in axial coordinates p·axis (default: the whole mesh)
//	        center=x,y,z          a point of the axis line (default: the mesh's bounding-box centre)
//	twist:  angle=DEG             total twist over the slab, right-handed about the axis
//	bend:   angle=DEG toward=y|-y|x,y,z   total bend, turning toward that direction
//	scale:  lateral=F axial=F blend=W     factors across and along the axis, ramp width at the slab's ends
//	bulge:  out=x|y|z|…  amount=F [axial=F] [across=x|y|z|… afrom=S ato=S blend=W]
//	        offsets along out grow by 1 + F·sin(π·relative height), heights by axial;
//	        across confines it to the band afrom ≤ p·across ≤ ato (ramped over blend)
//
// posegen refuses to write a pose with inverted or flat tetrahedra (exit
// code 1) and prints the displacement range. Exit codes: 1 for a failed
// pose or write, 2 for a usage error.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
	"github.com/sofago/sofago/pose"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// vec3Flag is a flag of three comma-separated numbers.
type vec3Flag [3]float64

func (v *vec3Flag) String() string { return fmt.Sprintf("%g,%g,%g", v[0], v[1], v[2]) }
func (v *vec3Flag) Set(s string) error {
	p, err := parseVec(s)
	if err != nil {
		return err
	}
	*v = vec3Flag(p)
	return nil
}

// int3Flag is a flag of three comma-separated integers.
type int3Flag [3]int

func (v *int3Flag) String() string { return fmt.Sprintf("%d,%d,%d", v[0], v[1], v[2]) }
func (v *int3Flag) Set(s string) error {
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return fmt.Errorf("want three comma-separated integers, got %q", s)
	}
	for i := range f {
		x, err := strconv.Atoi(strings.TrimSpace(f[i]))
		if err != nil {
			return fmt.Errorf("%q is not an integer", f[i])
		}
		v[i] = x
	}
	return nil
}

// opSpec is one deformation as given on the command line; it is resolved
// against the mesh (default slab and centre) once the mesh is known.
type opSpec struct {
	kind string
	kv   map[string]string
}

// opList collects -twist, -bend and -scale in command-line order.
type opList struct {
	kind string
	ops  *[]opSpec
}

func (o opList) String() string { return "" }
func (o opList) Set(s string) error {
	kv := map[string]string{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("%q is not key=value", f)
		}
		if _, dup := kv[k]; dup {
			return fmt.Errorf("%s given twice", k)
		}
		kv[k] = v
	}
	allowed := map[string][]string{
		"twist": {"axis", "from", "to", "center", "angle"},
		"bend":  {"axis", "from", "to", "center", "angle", "toward"},
		"scale": {"axis", "from", "to", "center", "lateral", "axial", "blend"},
		"bulge": {"axis", "from", "to", "center", "out", "amount", "axial", "across", "afrom", "ato", "blend"},
	}[o.kind]
	for k := range kv {
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		if !found {
			return fmt.Errorf("unknown setting %q for -%s (known: %s)", k, o.kind, strings.Join(allowed, ", "))
		}
	}
	if _, ok := kv["axis"]; !ok {
		return fmt.Errorf("-%s needs axis=x|y|z|ax,ay,az", o.kind)
	}
	*o.ops = append(*o.ops, opSpec{o.kind, kv})
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("posegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "rest mesh file (any format meshio reads: .msh, .vtk, .node, .veg, .stl, .obj)")
	box := fs.Bool("box", false, "use RegularGridTopology's box of -min, -max, -n as the rest mesh")
	lo, hi, n := vec3Flag{0, 0, 0}, vec3Flag{1, 1, 1}, int3Flag{2, 2, 2}
	fs.Var(&lo, "min", "box: low corner x,y,z (m)")
	fs.Var(&hi, "max", "box: high corner x,y,z (m)")
	fs.Var(&n, "n", "box: vertices per axis nx,ny,nz")
	var ops []opSpec
	fs.Var(opList{"twist", &ops}, "twist", "twist a slab: 'axis=… angle=DEG [from=… to=… center=…]' (repeatable)")
	fs.Var(opList{"bend", &ops}, "bend", "bend a slab: 'axis=… toward=… angle=DEG [from=… to=… center=…]' (repeatable)")
	fs.Var(opList{"scale", &ops}, "scale", "scale a slab: 'axis=… [lateral=F] [axial=F] [blend=W] [from=… to=… center=…]' (repeatable)")
	fs.Var(opList{"bulge", &ops}, "bulge", "bow a block's walls outward: 'axis=… out=… amount=F [axial=F] [across=… afrom=… ato=… blend=W] [from=… to=… center=…]' (repeatable)")
	out := fs.String("o", "", "output file; the format follows the extension (.vtk, .msh, .node, .veg, .stl, .obj)")
	snapshot := fs.String("snapshot", "", "start from the positions of a simulated state in this runscene -dump JSON file (with -state) instead of the rest mesh's")
	statePath := fs.String("state", "", "with -snapshot: the path of the state in the dump (e.g. plain/dofs)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: posegen (-in REST | -box -min x,y,z -max x,y,z -n i,j,k) [-snapshot DUMP.json -state PATH] [-twist '…'] [-bend '…'] [-scale '…'] [-bulge '…'] -o FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "posegen: "+format+"\n", a...)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q", fs.Arg(0))
	case *out == "":
		return usage("-o FILE is required")
	case (*in == "") == !*box:
		return usage("give exactly one of -in FILE and -box")
	case len(ops) == 0:
		return usage("no deformation: give -twist, -bend, -scale or -bulge")
	case (*snapshot == "") != (*statePath == ""):
		return usage("-snapshot FILE and -state PATH go together")
	}
	var rest *meshio.Mesh
	if *box {
		g, err := topology.NewRegularGrid(lo, hi, n)
		if err != nil {
			return usage("%v", err)
		}
		rest = &meshio.Mesh{Points: g.Points(), Tetrahedra: g.Tetrahedra(), Triangles: g.Triangles()}
	} else {
		m, err := meshio.Read(*in)
		if err != nil {
			fmt.Fprintf(stderr, "posegen: %v\n", err)
			return 1
		}
		rest = m
	}
	start := rest
	if *snapshot != "" {
		pts, err := readSnapshot(*snapshot, *statePath, rest.NumPoints())
		if err != nil {
			fmt.Fprintf(stderr, "posegen: %v\n", err)
			return 1
		}
		start = &meshio.Mesh{Points: pts, Tetrahedra: rest.Tetrahedra, Triangles: rest.Triangles}
	}
	var ds []pose.Deformation
	for k, op := range ops {
		d, err := resolve(op, start.Points)
		if err != nil {
			return usage("deformation %d (-%s): %v", k+1, op.kind, err)
		}
		ds = append(ds, d)
	}
	m, bad, err := pose.Mesh(start, ds...)
	if err != nil {
		return usage("%v", err)
	}
	if len(bad) > 0 {
		fmt.Fprintf(stderr, "posegen: the pose inverts or flattens %d of %d tetrahedra (first: %d); use a smaller angle or factor, or a longer slab\n", len(bad), len(m.Tetrahedra), bad[0])
		return 1
	}
	if strings.HasSuffix(strings.ToLower(*out), ".veg") {
		m.Triangles = nil
	}
	if err := meshio.Write(*out, m); err != nil {
		fmt.Fprintf(stderr, "posegen: %v\n", err)
		return 1
	}
	maxD := 0.0
	for i := 0; i < m.NumPoints(); i++ {
		maxD = math.Max(maxD, geom.At(m.Points, i).Sub(geom.At(rest.Points, i)).Norm())
	}
	fmt.Fprintf(stdout, "wrote %s: %d points, %d tetrahedra, %d deformation(s); largest displacement %.6g m\n",
		*out, m.NumPoints(), len(m.Tetrahedra), len(ds), maxD)
	return 0
}

// readSnapshot returns the positions of the Vec3 state at path in a
// runscene -dump file, which must have n points (the rest mesh's).
func readSnapshot(file, path string, n int) ([]float64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var d struct {
		States []struct {
			Path     string      `json:"path"`
			Template string      `json:"template"`
			Position [][]float64 `json:"position"`
		} `json:"states"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var have []string
	for _, st := range d.States {
		if st.Path != path {
			have = append(have, st.Path)
			continue
		}
		if st.Template != "Vec3" {
			return nil, fmt.Errorf("%s: state %s is %s, want Vec3", file, path, st.Template)
		}
		if len(st.Position) != n {
			return nil, fmt.Errorf("%s: state %s has %d points, the rest mesh %d", file, path, len(st.Position), n)
		}
		pts := make([]float64, 0, 3*n)
		for i, p := range st.Position {
			if len(p) != 3 {
				return nil, fmt.Errorf("%s: state %s: point %d has %d coordinates", file, path, i, len(p))
			}
			pts = append(pts, p...)
		}
		return pts, nil
	}
	return nil, fmt.Errorf("%s: no state %q (states: %s)", file, path, strings.Join(have, ", "))
}

// resolve turns a command-line deformation into a pose.Deformation, taking
// the default slab and centre from the rest points.
func resolve(op opSpec, pts []float64) (pose.Deformation, error) {
	kv := op.kv
	axis, err := parseDir(kv["axis"])
	if err != nil {
		return nil, fmt.Errorf("axis: %w", err)
	}
	axis = axis.Normalized()
	lo, hi := pose.Bounds(pts)
	center := lo.Add(hi).Scale(0.5)
	if s, ok := kv["center"]; ok {
		if center, err = parseVec(s); err != nil {
			return nil, fmt.Errorf("center: %w", err)
		}
	}
	from, to := math.Inf(1), math.Inf(-1)
	for i := 0; i+2 < len(pts); i += 3 {
		s := geom.Vec3{pts[i], pts[i+1], pts[i+2]}.Dot(axis)
		from, to = math.Min(from, s), math.Max(to, s)
	}
	num := func(key string, def float64) (float64, error) {
		s, ok := kv[key]
		if !ok {
			return def, nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%s = %q is not a finite number", key, s)
		}
		return x, nil
	}
	if from, err = num("from", from); err != nil {
		return nil, err
	}
	if to, err = num("to", to); err != nil {
		return nil, err
	}
	switch op.kind {
	case "twist":
		angle, err := num("angle", math.NaN())
		if err != nil {
			return nil, err
		}
		if math.IsNaN(angle) {
			return nil, fmt.Errorf("twist needs angle=DEG")
		}
		d := pose.Twist{Center: center, Axis: axis, From: from, To: to, Angle: angle * math.Pi / 180}
		return d, d.Validate()
	case "bend":
		angle, err := num("angle", math.NaN())
		if err != nil {
			return nil, err
		}
		if math.IsNaN(angle) {
			return nil, fmt.Errorf("bend needs angle=DEG")
		}
		ts, ok := kv["toward"]
		if !ok {
			return nil, fmt.Errorf("bend needs toward=x|y|z|-x|…|tx,ty,tz")
		}
		toward, err := parseDir(ts)
		if err != nil {
			return nil, fmt.Errorf("toward: %w", err)
		}
		d := pose.Bend{Center: center, Axis: axis, Toward: toward, From: from, To: to, Angle: angle * math.Pi / 180}
		return d, d.Validate()
	case "bulge":
		outStr, ok := kv["out"]
		if !ok {
			return nil, fmt.Errorf("bulge needs out=x|y|z|ox,oy,oz")
		}
		outDir, err := parseDir(outStr)
		if err != nil {
			return nil, fmt.Errorf("out: %w", err)
		}
		amount, err := num("amount", math.NaN())
		if err != nil {
			return nil, err
		}
		if math.IsNaN(amount) {
			return nil, fmt.Errorf("bulge needs amount=F")
		}
		ax, err := num("axial", 1)
		if err != nil {
			return nil, err
		}
		d := pose.Bulge{Center: center, Axis: axis, Out: outDir, From: from, To: to, Amount: amount, Axial: ax}
		if as, ok := kv["across"]; ok {
			if d.Across, err = parseDir(as); err != nil {
				return nil, fmt.Errorf("across: %w", err)
			}
			d.Across = d.Across.Normalized()
			af, at := math.Inf(1), math.Inf(-1)
			for i := 0; i+2 < len(pts); i += 3 {
				s := geom.Vec3{pts[i], pts[i+1], pts[i+2]}.Dot(d.Across)
				af, at = math.Min(af, s), math.Max(at, s)
			}
			if d.AcrossFrom, err = num("afrom", af); err != nil {
				return nil, err
			}
			if d.AcrossTo, err = num("ato", at); err != nil {
				return nil, err
			}
			if d.Blend, err = num("blend", 0); err != nil {
				return nil, err
			}
		} else if _, ok := kv["afrom"]; ok {
			return nil, fmt.Errorf("afrom needs across=…")
		} else if _, ok := kv["ato"]; ok {
			return nil, fmt.Errorf("ato needs across=…")
		}
		return d, d.Validate()
	default:
		lat, err := num("lateral", 1)
		if err != nil {
			return nil, err
		}
		ax, err := num("axial", 1)
		if err != nil {
			return nil, err
		}
		bl, err := num("blend", 0)
		if err != nil {
			return nil, err
		}
		d := pose.Scale{Center: center, Axis: axis, From: from, To: to, Lateral: lat, Axial: ax, Blend: bl}
		return d, d.Validate()
	}
}

// parseDir reads x, y, z, -x, -y, -z or three comma-separated numbers.
func parseDir(s string) (geom.Vec3, error) {
	sign := 1.0
	t := s
	if strings.HasPrefix(t, "-") && len(t) == 2 {
		sign, t = -1, t[1:]
	}
	switch t {
	case "x":
		return geom.Vec3{sign, 0, 0}, nil
	case "y":
		return geom.Vec3{0, sign, 0}, nil
	case "z":
		return geom.Vec3{0, 0, sign}, nil
	}
	v, err := parseVec(s)
	if err != nil {
		return v, err
	}
	if !(v.Norm() > 0) {
		return v, fmt.Errorf("direction %q is zero", s)
	}
	return v, nil
}

func parseVec(s string) (geom.Vec3, error) {
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return geom.Vec3{}, fmt.Errorf("want three comma-separated numbers (or x, y, z), got %q", s)
	}
	var v geom.Vec3
	for i := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return v, fmt.Errorf("%q is not a finite number", f[i])
		}
		v[i] = x
	}
	return v, nil
}
