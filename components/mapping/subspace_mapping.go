package mapping

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/modal"
	"github.com/sofago/sofago/reduced"
)

// SubspaceMapping maps reduced coordinates q (a Vec1 state of r DOFs) to
// the points of a full mesh (a Vec3 state of n DOFs) through a fixed
// displacement basis U (3n × r): x = x₀ + U q, J = U (Barbič & James 2005,
// Sec. 3.3 and 6.3). The full mesh is then there for output, contact and
// external forces: forces on its points go up as Uᵀ f, the reduced force
// (eq. 7). J is constant, so the geometric stiffness is zero.
//
// x₀ is the rest position of the child state (from its topology); a child
// without points is sized and placed by the mapping (rest positions of the
// basis source's mesh). The basis comes from a reduced model (basis =
// "@stvk", any component implementing reduced.BasisSource, typically
// ReducedStVKForceField) or a file (basisFile, any format modal.ReadBasis
// reads).
//
// A selection (indices or box, on the rest positions of the basis source's
// mesh) maps only those vertices: the child holds just them, x_s = x₀_s +
// U_s q, and costs r per point. Loads, contacts and sensors on a few points
// then stay independent of the mesh size, while a non-mechanical
// SubspaceMapping of the whole mesh provides the output.
//
// Cost: Apply and ApplyJ are one dense product U q (3n·r multiply–adds,
// blas64.Gemv). ApplyJT skips the vertices whose force is zero, so a
// sparse load (a few loaded points, contacts) costs r per loaded point
// rather than 3n·r (Sec. 6.3: "the user interaction vector f is typically
// sparse"); a dense force uses one transposed Gemv. With isMechanical =
// false the mapping only runs once at the end of each step, for output.
type SubspaceMapping struct {
	graph.ObjectBase
	MappingIO
	graph.DOFSelection            // vertices of the basis's mesh to map (default: all)
	Basis              graph.Link `toml:"basis" doc:"the component that owns the basis (e.g. \"@stvk\", a ReducedStVKForceField)"`
	BasisFile          string     `toml:"basisFile" doc:"a basis file instead (3n rows × r columns; formats of modal.ReadBasis: .json, VegaFEM binary .U/.bin, or text), relative to the scene file"`

	r, rows int
	u       blas64.General // 3n × r
	x0      []float64
	rowMask []int32 // scratch: rows with a non-zero force
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "SubspaceMapping",
		Kind: graph.KindMapping,
		Summary: "Reduced coordinates (Vec1) to full-mesh points (Vec3) through a displacement basis: x = x₀ + U q, J = U, forces up as Uᵀf " +
			"(Barbič & James 2005); the basis from a reduced model (basis = \"@stvk\") or a file.",
		New: func() graph.Object { return &SubspaceMapping{MappingIO: MappingIO{Mechanical: true}} },
	})
}

// Validate checks that exactly one basis source is given.
func (m *SubspaceMapping) Validate() error {
	if m.Basis.IsSet() == (m.BasisFile != "") {
		return fmt.Errorf("give basis = \"@model\" (the component that owns the basis) or basisFile, exactly one")
	}
	if m.Given() && m.BasisFile != "" {
		return fmt.Errorf("indices and box select vertices of the basis source's mesh; with basisFile, map the whole mesh")
	}
	return m.CheckSelection()
}

// SetBasis sets the basis directly (code that builds scenes without a
// source); Init then uses it with the child's rest positions.
func (m *SubspaceMapping) SetBasis(b *reduced.Basis) { m.setBasis(b) }

func (m *SubspaceMapping) setBasis(b *reduced.Basis) {
	m.r, m.rows = b.R, b.NumRows()
	m.u = blas64.General{Rows: m.rows, Cols: m.r, Stride: m.r, Data: b.U}
}

// Init resolves the states and the basis, checks the sizes, sizes the
// child when needed and maps the position onto it.
func (m *SubspaceMapping) Init() error {
	if err := m.resolve(&m.ObjectBase); err != nil {
		return m.Wrap(err)
	}
	if tn := m.from.Template().Name(); tn != "Vec1" {
		return m.Errorf("the input state %q has template %s; a subspace mapping reads reduced coordinates (Vec1)", m.from.Base().Path(), tn)
	}
	if tn := m.to.Template().Name(); tn != "Vec3" {
		return m.Errorf("the output state %q has template %s; a subspace mapping writes points (Vec3)", m.to.Base().Path(), tn)
	}
	var restPts []float64
	switch {
	case m.u.Data != nil:
	case m.Basis.IsSet():
		src, ok := m.Basis.Object.(reduced.BasisSource)
		if !ok {
			what := "a node"
			if m.Basis.Object != nil {
				what = "a " + m.Basis.Object.Base().TypeName
			}
			return m.Errorf("basis %q is %s, which owns no reduced basis (link a ReducedStVKForceField)", m.Basis.Path, what)
		}
		b, pts, err := src.SubspaceBasis()
		if err != nil {
			return err // located at the source
		}
		restPts = pts
		if m.Given() {
			if b, restPts, err = m.selectRows(b, pts); err != nil {
				return m.Wrap(err)
			}
		}
		m.setBasis(b)
	default:
		path := m.BasisFile
		if s := m.Node.Scene(); s != nil {
			path = s.ResolvePath(path)
		}
		U, rows, cols, err := modal.ReadBasis(path)
		if err != nil {
			return m.Errorf("basisFile: %w", err)
		}
		b, err := reduced.NewBasisColumnMajor(rows, cols, U)
		if err != nil {
			return m.Errorf("basisFile %s: %w", path, err)
		}
		m.setBasis(b)
	}
	if m.rows%3 != 0 {
		return m.Errorf("the basis has %d rows, not a multiple of 3", m.rows)
	}
	if n := m.from.Size(); n == 0 {
		m.from.Resize(m.r)
	} else if n != m.r {
		return m.Errorf("the input state %q has %d DOFs but the basis has %d vectors", m.from.Base().Path(), n, m.r)
	}
	n := m.rows / 3
	if m.to.Size() == 0 {
		if restPts == nil {
			return m.Errorf("the output state %q has no points and the basis source gives none: put the mesh's topology in the output node", m.to.Base().Path())
		}
		m.to.Resize(n)
		copy(m.to.Vec(graph.RestPosition), restPts)
	}
	if m.to.Size() != n {
		return m.Errorf("the output state %q has %d points but the basis has %d rows (%d points)", m.to.Base().Path(), m.to.Size(), m.rows, n)
	}
	m.x0 = append([]float64(nil), m.to.Vec(graph.RestPosition)...)
	m.rowMask = make([]int32, 0, m.rows)
	m.Apply(m.to.Vec(graph.Position), m.from.Vec(graph.Position))
	return nil
}

// selectRows restricts the basis and the rest points to the selected
// vertices.
func (m *SubspaceMapping) selectRows(b *reduced.Basis, pts []float64) (*reduced.Basis, []float64, error) {
	mesh := graph.NewMechanicalObject("mesh", graph.Vec3, len(pts)/3)
	copy(mesh.Vec(graph.RestPosition), pts)
	sel, err := m.Select(mesh)
	if err != nil {
		return nil, nil, err
	}
	sub := &reduced.Basis{R: b.R, U: make([]float64, 0, 3*len(sel)*b.R)}
	rest := make([]float64, 0, 3*len(sel))
	for _, v := range sel {
		sub.U = append(sub.U, b.U[3*v*b.R:3*(v+1)*b.R]...)
		rest = append(rest, pts[3*v:3*v+3]...)
	}
	return sub, rest, nil
}

// NumBasis returns r (0 before Init).
func (m *SubspaceMapping) NumBasis() int { return m.r }

// Apply implements graph.Mapping: x = x₀ + U q.
func (m *SubspaceMapping) Apply(childX, parentX []float64) {
	copy(childX, m.x0)
	blas64.Gemv(blas.NoTrans, 1, m.u, blas64.Vector{N: m.r, Inc: 1, Data: parentX}, 1, blas64.Vector{N: m.rows, Inc: 1, Data: childX})
}

// ApplyJ implements graph.Mapping: v = U q̇.
func (m *SubspaceMapping) ApplyJ(childV, parentV []float64) {
	blas64.Gemv(blas.NoTrans, 1, m.u, blas64.Vector{N: m.r, Inc: 1, Data: parentV}, 0, blas64.Vector{N: m.rows, Inc: 1, Data: childV})
}

// ApplyJT implements graph.Mapping: parentF += Uᵀ childF, over the
// non-zero rows of childF only when they are fewer than a quarter.
func (m *SubspaceMapping) ApplyJT(parentF, childF []float64) {
	mask := m.rowMask[:0]
	for i, f := range childF[:m.rows] {
		if f != 0 {
			mask = append(mask, int32(i))
			if 4*len(mask) > m.rows {
				break
			}
		}
	}
	if 4*len(mask) > m.rows {
		blas64.Gemv(blas.Trans, 1, m.u, blas64.Vector{N: m.rows, Inc: 1, Data: childF}, 1, blas64.Vector{N: m.r, Inc: 1, Data: parentF})
		return
	}
	r := m.r
	p := parentF[:r:r]
	for _, i := range mask {
		f := childF[i]
		row := m.u.Data[int(i)*r : int(i)*r+r : int(i)*r+r]
		for j, u := range row {
			p[j] += f * u
		}
	}
}

// ApplyDJT implements graph.Mapping: J is constant, nothing is added.
func (m *SubspaceMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {}
