"""Deformable FEM soles (Chardonnet 2009, §4.3 and §4.5, eqs. (4.4)–(4.32);
docs/soles.md). ROS-free; `world_coupling.FemSoles` is what `humanoid_sim.World` calls when a
scene sets ``robot.soles: fem`` (flat ground: nodes; static boxes: P, eqs 4.24–4.32).

    from humanoid_sim.soles import CondensedSole, box_sole
    sole = CondensedSole(box_sole())  # 22 × 13 × 2 cm, E = 3 MPa, ν = 0.4
    Cc = sole.contact_compliance(sole.mesh.bottom_nodes[:4])  # K_c⁻¹ [m/N] in the sole frame

Package layout (no import cycle; each module imports only those above it):
  material.py      Material (E, ν), Layer, lame (eq. 4.7)
  mesh.py          SoleMesh, box_sole (structured Kuhn tets), gmsh_box_sole / from_gmsh (optional gmsh)
  loads.py         consistent nodal loads of a uniform traction
  fem.py           element and global stiffness (4.9), CondensedSole: Dirichlet removal, 4.12–4.14, 4.18–4.22
  distribution.py  barycentric distribution matrix P (4.24–4.32), virtual-work consistent
  ground.py        flat-ground contact nodes (node below the ground, §4.5), pure function
  coupling.py      W_total = W_rigid + T K_c⁻¹ Tᵀ/dt, V_free − T U_c^t/dt, U_c update (4.21–4.22), pure functions
  obstacles.py     stone (static box) vertices under a sole's ground face: contacted triangle, weights, gap
  world_coupling.py  FemSoles: those steps inside a World step (node and stone contacts, W, v_free, U update)
  static_check.py  the compression a World holds against a static FEM solve of the same load (sole_sinks)
"""

from .coupling import contact_displacements, coupled_problem, frame_rotation, sole_coupling
from .distribution import Distribution, barycentric, distribution_matrix
from .fem import CondensedSole, element_stiffness, node_dofs, rigid_body_modes, stiffness_matrix
from .ground import flat_ground_nodes
from .loads import pressure_loads, triangle_areas
from .material import RUBBER, Layer, Material, lame
from .mesh import SoleMesh, box_sole, from_gmsh, gmsh_box_sole

__all__ = [
    "Material",
    "Layer",
    "RUBBER",
    "lame",
    "SoleMesh",
    "box_sole",
    "gmsh_box_sole",
    "from_gmsh",
    "pressure_loads",
    "triangle_areas",
    "element_stiffness",
    "stiffness_matrix",
    "rigid_body_modes",
    "node_dofs",
    "CondensedSole",
    "barycentric",
    "Distribution",
    "distribution_matrix",
    "frame_rotation",
    "sole_coupling",
    "coupled_problem",
    "contact_displacements",
    "flat_ground_nodes",
]
