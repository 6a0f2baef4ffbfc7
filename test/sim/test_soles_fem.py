"""FEM soles (`humanoid_sim.soles`; Chardonnet 2009, §4.3 and §4.5): the condensations of §4.3.3–4.3.4
against the full solve, the FEM patch test, the distribution matrix of §4.5 (acceptance tests
D1–D3, marked `spec("000", ...)`), stiffness properties, layered soles and input checks."""

import importlib.util

import numpy as np
import pytest
import scipy.linalg as sla
from scipy.sparse.linalg import spsolve

from humanoid_model.exceptions import ConfigError
from humanoid_sim.soles import (
    CondensedSole,
    Layer,
    Material,
    barycentric,
    box_sole,
    distribution_matrix,
    element_stiffness,
    from_gmsh,
    gmsh_box_sole,
    node_dofs,
    pressure_loads,
    rigid_body_modes,
    stiffness_matrix,
)

HAS_GMSH = importlib.util.find_spec("gmsh") is not None

# the patch test's load and material (chosen): top face fixed, ν = 0, p = 10 kPa, E = 3 MPa (the thesis's
# E, §4.4.1), h = 2 cm (the thesis's sole, §4.4)
P_PATCH, E_PATCH, H_PATCH = 10e3, 3e6, 0.02


def rel(a, b):
    return np.linalg.norm(np.asarray(a) - np.asarray(b)) / np.linalg.norm(b)


@pytest.fixture(scope="module")
def rubber_sole():
    """The thesis's sole: 22 × 13 × 2 cm, E = 3 MPa, ν = 0.4 (Chardonnet 2009, §4.4, §4.4.1), 1 cm elements."""
    return CondensedSole(box_sole())


@pytest.fixture(scope="module")
def patch_sole():
    return CondensedSole(box_sole(layers=[Layer(H_PATCH, Material(E_PATCH, 0.0))]))


# ----------------------------------------------------------------------------- condensation
@pytest.mark.spec("000", "D1")
def test_surface_condensation_equals_full_reduced_solve(rubber_sole):
    s, m = rubber_sole, rubber_sole.mesh
    rng = np.random.default_rng(1)
    F = np.zeros((m.n_nodes, 3))
    F[m.surface_nodes] = rng.normal(size=(len(m.surface_nodes), 3)) * 10.0  # [N] loads on surface nodes only
    U_full = s.solve_full(F)  # K^r U = F (4.10–4.11)
    U_s = np.linalg.solve(s.K_s, F[m.surface_nodes].ravel())  # K_s U_s = F_s (4.12–4.14)
    assert rel(U_s, U_full[m.surface_nodes].ravel()) < 1e-9
    assert rel(s.C_s @ F[m.surface_nodes].ravel(), U_full[m.surface_nodes].ravel()) < 1e-9
    assert rel(s.displacement_field(U_s), U_full) < 1e-9  # interior recovery
    assert m.surface_nodes.size == 392 and s.K_s.shape == (1176, 1176)  # 23×14 bottom + 70 side nodes at 1 cm


@pytest.mark.spec("000", "D1")
def test_contact_condensation_and_recovery_equal_full_solve(rubber_sole):
    s, m = rubber_sole, rubber_sole.mesh
    rng = np.random.default_rng(2)
    contact = rng.choice(m.bottom_nodes, size=8, replace=False)
    F = np.zeros((m.n_nodes, 3))
    F[contact] = rng.normal(size=(8, 3)) * 50.0 + [0, 0, 100.0]
    U_full = s.solve_full(F)
    Fc = F[contact].ravel()
    Kc = s.contact_stiffness(contact)  # (4.20), computed literally
    Uc = np.linalg.solve(Kc, Fc)
    assert rel(Uc, U_full[contact].ravel()) < 1e-9
    assert rel(s.contact_compliance(contact) @ Fc, U_full[contact].ravel()) < 1e-9  # K_c⁻¹ = (K_s⁻¹)_cc
    # U_n (4.22) in both printed forms: −K_nn⁻¹ K_nc U_c and (K_nn − K_nc K_cc⁻¹ K_cn)⁻¹ (−K_nc K_cc⁻¹ F_c)
    U_s_full = U_full[m.surface_nodes].ravel()
    c = s.surface_index(contact)
    nn = np.setdiff1d(np.arange(len(s.K_s)), c)
    assert rel(s.noncontact_displacements(contact, Uc), U_s_full[nn]) < 1e-9
    Ks = s.K_s
    Kcc, Kcn, Knn = Ks[np.ix_(c, c)], Ks[np.ix_(c, nn)], Ks[np.ix_(nn, nn)]
    Un_printed = np.linalg.solve(Knn - Kcn.T @ np.linalg.solve(Kcc, Kcn), -Kcn.T @ np.linalg.solve(Kcc, Fc))
    assert rel(Un_printed, U_s_full[nn]) < 1e-9
    assert rel(s.displacement_field(s.surface_displacements(contact, Uc)), U_full) < 1e-9


# ----------------------------------------------------------------------------- patch test
@pytest.mark.spec("000", "D2")
def test_patch_test_uniform_pressure_gives_p_h_over_e(patch_sole):
    s, m = patch_sole, patch_sole.mesh
    expected = P_PATCH * H_PATCH / E_PATCH  # 10e3 × 0.02 / 3e6 = 6.667e-5 m
    assert expected == pytest.approx(66.7e-6, rel=1e-3)
    F = pressure_loads(m.nodes, m.bottom, [0.0, 0.0, P_PATCH])  # pressure pushes the ground face up (+z)
    assert F.sum(axis=0) == pytest.approx([0, 0, P_PATCH * 0.22 * 0.13], rel=1e-12)
    U = s.solve_full(F)
    uz = U[m.bottom_nodes, 2]
    assert np.all(np.abs(uz - expected) <= 0.005 * expected)  # ± 0.5 % (chosen)
    # linear tets reproduce the exact field u_z = −p z / E, u_x = u_y = 0 at every node (z ≤ 0)
    exact = np.zeros_like(U)
    exact[:, 2] = -P_PATCH * m.nodes[:, 2] / E_PATCH
    assert np.abs(U - exact).max() < 1e-9 * expected
    # the same through the surface condensation (4.12–4.14)
    Us = s.C_s @ F[m.surface_nodes].ravel()
    assert np.abs(Us - exact[m.surface_nodes].ravel()).max() < 1e-9 * expected


def test_two_layer_sole_compresses_as_springs_in_series():
    """Stiff top layer 1 cm E = 3 MPa over 1 cm pads E = 1 MPa (the thesis's E values, Chardonnet 2009, §4.6;
    ν = 0 here: the series-spring value p (h1/E1 + h2/E2) is exact only without lateral coupling)."""
    h1, E1, h2, E2 = 0.01, 3e6, 0.01, 1e6
    m = box_sole(layers=[Layer(h1, Material(E1, 0.0)), Layer(h2, Material(E2, 0.0))], resolution=0.01)
    assert sorted(set(zip(m.layer.tolist(), m.E.tolist()))) == [(0, E1), (1, E2)]
    U = CondensedSole(m).solve_full(pressure_loads(m.nodes, m.bottom, [0, 0, P_PATCH]))
    series = P_PATCH * (h1 / E1 + h2 / E2)  # 1e4 (0.01/3e6 + 0.01/1e6) = 133.3 µm
    assert series == pytest.approx(133.33e-6, rel=1e-4)
    assert np.abs(U[m.bottom_nodes, 2] - series).max() < 1e-9 * series
    interface = np.isclose(m.nodes[:, 2], -h1)
    assert np.abs(U[interface, 2] - P_PATCH * h1 / E1).max() < 1e-9 * series


def test_confined_compression_uses_the_lame_coefficients():
    """ν = 0.4 with the sides on rollers (laterally confined): u_z(bottom) = p h / M exactly, with
    the oedometric modulus M = λ + 2μ = E (1−ν) / ((1+ν)(1−2ν)) (eq. (4.7));
    a wrong λ_L or μ_L changes M."""
    E, nu = 3e6, 0.4
    m = box_sole(layers=[Layer(H_PATCH, Material(E, nu))], resolution=0.02)
    K = stiffness_matrix(m).tocsr()
    X = m.nodes
    fixed = np.zeros((m.n_nodes, 3), bool)
    fixed[m.top] = True
    fixed[np.isclose(np.abs(X[:, 0]), 0.11), 0] = True  # rollers on the x faces
    fixed[np.isclose(np.abs(X[:, 1]), 0.065), 1] = True  # and on the y faces
    free = np.flatnonzero(~fixed.ravel())
    F = pressure_loads(X, m.bottom, [0, 0, P_PATCH]).ravel()
    U = np.zeros(3 * m.n_nodes)
    U[free] = spsolve(K[free][:, free].tocsc(), F[free])
    M = E * (1 - nu) / ((1 + nu) * (1 - 2 * nu))  # 6.43 MPa
    expected = P_PATCH * H_PATCH / M
    assert np.abs(U.reshape(-1, 3)[m.bottom_nodes, 2] - expected).max() < 1e-9 * expected


# ----------------------------------------------------------------------------- K
@pytest.mark.parametrize("layers", [None, [Layer(0.01, Material(3e6, 0.25)), Layer(0.01, Material(1e6, 0.45))]])
def test_stiffness_symmetric_psd_with_six_rigid_modes_and_pd_after_dirichlet(layers):
    m = box_sole(layers=layers, resolution=0.05)  # 6 × 4 × (2 or 3) nodes: a dense eigensolve stays cheap
    Ke, V = element_stiffness(m)
    assert np.abs(Ke - Ke.transpose(0, 2, 1)).max() <= 1e-12 * np.abs(Ke).max()
    assert V.sum() == pytest.approx(0.22 * 0.13 * 0.02, rel=1e-12)
    K = stiffness_matrix(m).toarray()
    lam = np.linalg.eigvalsh(K)
    assert lam[0] > -1e-10 * lam[-1]
    assert np.all(np.abs(lam[:6]) < 1e-10 * lam[-1]) and lam[6] > 1e-6 * lam[-1]  # exactly 6 zero modes
    R = rigid_body_modes(m.nodes)
    assert np.abs(K @ R).max() < 1e-10 * lam[-1] * np.abs(R).max()  # and they are the rigid-body motions
    free = node_dofs(np.setdiff1d(np.arange(m.n_nodes), m.top))
    Kr = K[np.ix_(free, free)]
    sla.cholesky(Kr)  # positive definite after Dirichlet removal
    lr = np.linalg.eigvalsh(Kr)
    assert lr[0] > 1e-8 * lr[-1]


def test_contact_compliance_is_symmetric_pd_and_inverts_the_condensed_stiffness(rubber_sole):
    corners = rubber_sole.mesh.bottom_nodes[[0, 13, -14, -1]]
    C = rubber_sole.contact_compliance(corners)
    assert C.shape == (12, 12)
    assert np.abs(C - C.T).max() <= 1e-12 * np.abs(C).max()
    assert np.linalg.eigvalsh(C)[0] > 0
    assert rel(np.linalg.inv(C), rubber_sole.contact_stiffness(corners)) < 1e-9


# ----------------------------------------------------------------------------- distribution matrix
def _random_points_in(m, rng, k):
    tri = m.surface[rng.integers(len(m.surface), size=k)]
    tri[: k // 2] = m.surface[rng.integers(len(m.surface), size=1)]  # half of them share one triangle
    w = rng.dirichlet(np.ones(3), size=k)
    return tri, np.einsum("kj,kja->ka", w, m.nodes[tri]), w


@pytest.mark.spec("000", "D3")
def test_distribution_matrix_identities(rubber_sole):
    m = rubber_sole.mesh
    rng = np.random.default_rng(3)
    tri, p, w_true = _random_points_in(m, rng, 40)
    D = distribution_matrix(m.nodes, tri, p)
    d = D.weights
    assert np.abs(d.sum(axis=1) - 1).max() <= 1e-12  # partition of unity
    assert np.abs(d - w_true).max() <= 1e-12  # the weights the points were built with
    assert np.abs(np.einsum("kj,kja->ka", d, m.nodes[tri]) - p).max() <= 1e-12  # Σ d_j n_j = p
    f = rng.normal(size=(40, 3)) * 30.0
    Fn = D.node_forces(f)
    assert np.abs(Fn.sum(axis=0) - f.sum(axis=0)).max() <= 1e-12 * np.abs(f).sum()  # Pᵀ f sums to f
    Xn = m.nodes[D.nodes]
    torque = np.cross(Xn, Fn).sum(axis=0) - np.cross(p, f).sum(axis=0)
    assert np.abs(torque).max() <= 1e-12 * np.abs(f).sum()  # and has the same moment
    u = rng.normal(size=(len(D.nodes), 3)) * 1e-4
    work_p, work_n = np.sum(f * D.displacements(u)), np.sum(Fn * u)
    assert abs(work_p - work_n) <= 1e-12 * np.abs(f).sum() * np.abs(u).max()  # f·(P u) = (Pᵀ f)·u
    A, b = rng.normal(size=(3, 3)) * 1e-3, rng.normal(size=3) * 1e-4
    assert np.abs(D.displacements(Xn @ A.T + b) - (p @ A.T + b)).max() <= 1e-12 * np.abs(A).max()  # linear fields


@pytest.mark.spec("000", "D3")
def test_weights_are_area_ratios_also_for_a_plane_through_the_origin():
    corners = np.array(
        [[[0.0, 0, 0], [0.1, 0, 0], [0, 0, 0.1]], [[0.2, 0.1, 0], [0.25, 0.13, -0.02], [0.21, 0.2, 0.01]]]
    )
    rng = np.random.default_rng(4)
    w = rng.dirichlet(np.ones(3), size=2)
    p = np.einsum("kj,kja->ka", w, corners)

    def area(a, b, c):
        return 0.5 * np.linalg.norm(np.cross(b - a, c - a))

    for k in range(2):  # (4.25) with raw coordinates is singular for k = 0 (its plane y = 0 holds the origin)
        n1, n2, n3 = corners[k]
        ratios = np.array([area(p[k], n2, n3), area(n1, p[k], n3), area(n1, n2, p[k])]) / area(n1, n2, n3)
        assert np.abs(barycentric(p[k], corners[k])[0] - ratios).max() <= 1e-12
    assert abs(np.linalg.det(corners[0])) == 0.0


@pytest.mark.spec("000", "D3")
def test_point_compliance_is_p_kc_inverse_pt(rubber_sole):
    s, m = rubber_sole, rubber_sole.mesh
    tri = m.bottom[[10, 11, 200]]
    p = np.stack([m.nodes[tri[0, 0]], m.nodes[tri[1]].mean(axis=0), m.nodes[tri[2]] @ [0.2, 0.3, 0.5]])
    D = distribution_matrix(m.nodes, tri, p)
    Cn = s.contact_compliance(D.nodes)
    Cp = D.compliance(Cn)
    assert np.abs(Cp - D.P.toarray() @ Cn @ D.P.toarray().T).max() <= 1e-12 * np.abs(Cn).max()
    i = int(np.searchsorted(D.nodes, tri[0, 0]))
    assert np.abs(Cp[:3, :3] - Cn[3 * i : 3 * i + 3, 3 * i : 3 * i + 3]).max() <= 1e-12 * np.abs(Cn).max()


# ----------------------------------------------------------------------------- input checks
@pytest.mark.parametrize(
    "make, field",
    [
        (lambda: Material(3e6, 0.5), "nu"),
        (lambda: Material(3e6, 0.7), "nu"),
        (lambda: Material(0.0, 0.3), "E"),
        (lambda: Material(-1e6, 0.3), "E"),
        (lambda: box_sole(resolution=0.0), "resolution"),
        (lambda: box_sole(resolution=-0.01), "resolution"),
        (lambda: box_sole(layers=[]), "layers"),
        (lambda: Layer(0.0, Material(3e6, 0.4)), "thickness"),
    ],
)
def test_bad_input_is_refused_with_a_one_line_error(make, field):
    with pytest.raises(ConfigError) as e:
        make()
    text = str(e.value)
    assert "\n" not in text and f"field '{field}'" in text and "; value " in text


def test_contact_nodes_must_be_distinct_surface_nodes(rubber_sole):
    top = rubber_sole.mesh.top[0]
    for nodes in ([top], [5, 5]):
        with pytest.raises(ConfigError, match="field 'nodes'"):
            rubber_sole.contact_compliance(nodes)


# ----------------------------------------------------------------------------- gmsh
@pytest.mark.skipif(not HAS_GMSH, reason="gmsh is not installed in .venv (optional mesher)")
def test_gmsh_path_gives_the_same_stiffness_on_the_same_mesh():
    import gmsh

    ref = box_sole(resolution=0.02)
    gmsh.initialize()
    try:
        gmsh.model.add("roundtrip")
        vol = gmsh.model.addDiscreteEntity(3)
        gmsh.model.mesh.addNodes(3, vol, np.arange(1, ref.n_nodes + 1), ref.nodes.ravel())
        gmsh.model.mesh.addElementsByType(vol, 4, [], (ref.tets + 1).ravel())
        got = from_gmsh([Layer(0.02, Material(3e6, 0.4))])
    finally:
        gmsh.finalize()
    assert np.array_equal(got.nodes, ref.nodes)
    Kr, Kg = stiffness_matrix(ref), stiffness_matrix(got)
    assert abs(Kr - Kg).max() <= 1e-12 * abs(Kr).max()
    m = gmsh_box_sole(layers=[Layer(H_PATCH, Material(E_PATCH, 0.0))], resolution=0.02)  # unstructured: patch test
    U = CondensedSole(m).solve_full(pressure_loads(m.nodes, m.bottom, [0, 0, P_PATCH]))
    assert np.abs(U[m.bottom_nodes, 2] - P_PATCH * H_PATCH / E_PATCH).max() <= 1e-6 * P_PATCH * H_PATCH / E_PATCH
    m = gmsh_box_sole(layers=[Layer(0.01, Material(3e6, 0.0)), Layer(0.01, Material(1e6, 0.0))], resolution=0.02)
    assert set(m.layer.tolist()) == {0, 1}  # the physical groups carry the layers
    U = CondensedSole(m).solve_full(pressure_loads(m.nodes, m.bottom, [0, 0, P_PATCH]))
    series = P_PATCH * (0.01 / 3e6 + 0.01 / 1e6)
    assert np.abs(U[m.bottom_nodes, 2] - series).max() <= 1e-6 * series
