#!/usr/bin/python3
"""Static hyperelastic equilibrium with FEniCSx (dolfinx 0.5, PETSc, MUMPS),
on a tetrahedral mesh and load given by sofago's validation tests.

    /usr/bin/python3 static_solve.py problem.json result.json

problem.json: {"points": [[x,y,z],...], "tets": [[a,b,c,d],...],
  "material": "StVenantKirchhoff" | "NeoHookean", "E": .., "nu": ..,
  "clampX": x0 (the face x = x0 is clamped),
  "loadX": x1, "force": [fx,fy,fz], "area": A (a uniform traction force/A
  on the boundary facets of the face x = x1: the consistent nodal loads of
  P1 elements, what sofago applies as ConstantForceField forces),
  "loadSteps": n, "rtol": 1e-10}

result.json: {"u": [[ux,uy,uz],...] in the order of the input points,
  "iterations": total Newton iterations, "solveSeconds": wall time of the
  Newton solves (form compilation excluded: it happens before)}.

The laws are written out as sofago's package material has them:
StVK  W = mu tr(E^2) + lambda/2 tr(E)^2, E = (F^T F - I)/2;
neo-Hookean (Bonet-Wood) W = mu/2 (tr C - 3) - mu ln J + lambda/2 (ln J)^2.
Newton: dolfinx's NewtonSolver, residual criterion |F| <= rtol |F_0| per
load step, LU by MUMPS.
"""
import json
import sys
import time

import numpy as np
import ufl
from mpi4py import MPI
from petsc4py import PETSc
from dolfinx import fem, mesh, nls
import dolfinx.fem.petsc  # noqa: F401  (NonlinearProblem)
import dolfinx.nls.petsc  # noqa: F401


def main(inp, out):
    p = json.load(open(inp))
    p["verbose"] = "-v" in sys.argv
    pts = np.array(p["points"], dtype=np.float64)
    tets = np.array(p["tets"], dtype=np.int64)
    domain = ufl.Mesh(ufl.VectorElement("Lagrange", ufl.tetrahedron, 1))
    msh = mesh.create_mesh(MPI.COMM_WORLD, tets, pts, domain)
    V = fem.VectorFunctionSpace(msh, ("Lagrange", 1))
    u = fem.Function(V)
    v = ufl.TestFunction(V)
    du = ufl.TrialFunction(V)

    E, nu = p["E"], p["nu"]
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    d = 3
    I = ufl.Identity(d)
    F = I + ufl.grad(u)
    if p["material"] == "StVenantKirchhoff":
        Eg = 0.5 * (F.T * F - I)
        W = mu * ufl.tr(Eg * Eg) + 0.5 * lam * ufl.tr(Eg) ** 2
    elif p["material"] == "NeoHookean":
        C = F.T * F
        J = ufl.det(F)
        W = 0.5 * mu * (ufl.tr(C) - 3) - mu * ufl.ln(J) + 0.5 * lam * ufl.ln(J) ** 2
    else:
        raise SystemExit("unknown material " + p["material"])

    # Clamp and load faces.
    x0, x1 = p["clampX"], p["loadX"]
    fdim = d - 1
    clamp_facets = mesh.locate_entities_boundary(msh, fdim, lambda x: np.isclose(x[0], x0))
    load_facets = mesh.locate_entities_boundary(msh, fdim, lambda x: np.isclose(x[0], x1))
    tags = mesh.meshtags(msh, fdim, load_facets, np.full(len(load_facets), 1, dtype=np.int32))
    ds = ufl.Measure("ds", domain=msh, subdomain_data=tags)
    dofs = fem.locate_dofs_topological(V, fdim, clamp_facets)
    bc = fem.dirichletbc(np.zeros(d, dtype=PETSc.ScalarType), dofs, V)

    factor = fem.Constant(msh, PETSc.ScalarType(1.0))
    t = fem.Constant(msh, np.array(p["force"], dtype=PETSc.ScalarType) / p["area"])
    Pi = W * ufl.dx - factor * ufl.dot(t, u) * ds(1)
    R = ufl.derivative(Pi, u, v)
    Jac = ufl.derivative(R, u, du)
    problem = fem.petsc.NonlinearProblem(R, u, [bc], J=Jac)
    solver = nls.petsc.NewtonSolver(MPI.COMM_WORLD, problem)
    solver.convergence_criterion = "residual"
    solver.rtol = p.get("rtol", 1e-10)
    solver.atol = 0.0
    solver.max_it = 50
    ksp = solver.krylov_solver
    opts = PETSc.Options()
    pre = ksp.getOptionsPrefix()
    opts[f"{pre}ksp_type"] = "preonly"
    opts[f"{pre}pc_type"] = "lu"
    opts[f"{pre}pc_factor_mat_solver_type"] = "mumps"
    ksp.setFromOptions()
    if p.get("verbose"):
        print("KSP", ksp.getType(), "PC", ksp.getPC().getType(), "factor", ksp.getPC().getFactorSolverType(), file=sys.stderr)

    n = int(p.get("loadSteps", 1))
    its = 0
    t0 = time.perf_counter()
    for i in range(1, n + 1):
        factor.value = i / n
        ti = time.perf_counter()
        k, converged = solver.solve(u)
        if p.get("verbose"):
            print(f"load step {i}: {k} iterations, {time.perf_counter() - ti:.3f} s", file=sys.stderr)
        its += k
        if not converged:
            raise SystemExit(f"dolfinx Newton did not converge at load step {i}")
    secs = time.perf_counter() - t0

    # Map the P1 dofs back to the input point order: for P1 the cell dofs
    # and the cell geometry nodes correspond position by position, and the
    # geometry nodes know their input index.
    gmap = msh.geometry.dofmap
    inp_idx = msh.geometry.input_global_indices
    bs = V.dofmap.index_map_bs
    arr = u.x.array
    out_u = np.zeros((len(pts), d))
    ncells = msh.topology.index_map(d).size_local
    for c in range(ncells):
        gn = gmap.links(c)
        cd = V.dofmap.cell_dofs(c)
        for g, dof in zip(gn, cd):
            out_u[inp_idx[g]] = arr[bs * dof:bs * dof + bs]
    json.dump({"u": out_u.tolist(), "iterations": its, "solveSeconds": secs}, open(out, "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])  # -v after them prints solver details
