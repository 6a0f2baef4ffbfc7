"""Dynamic-model generator: the report's 2R robot (Canovas, §4.1), the frame and joint rules of its
URDF reader (§3.2), its generated artefacts (§3.3), LaTeX read-back, Lagrange closed forms, URDF
ingestion (defaults, fixed/floating joints, malformed files) and the CLI command.

The report prints no torque values. Expected 2R numbers are derived from the parameters of its 2R
URDF by two independent computations (Pinocchio's RNEA and CRBA, and a SymPy Lagrange derivation);
the report's generated listing (§4.1) and its Lagrange result, eq. (2.20), contain errors and are
NOT used as oracles.
"""

import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from humanoid_model import dynmodel
from humanoid_model.dynmodel.check import PinocchioReference, max_error
from humanoid_model.dynmodel.lagrange import lagrange
from humanoid_model.dynmodel.lagrange import to_latex as lagrange_latex
from humanoid_model.dynmodel.latex_parse import parse_equations
from humanoid_model.exceptions import ModelError

DATA = Path(dynmodel.__file__).resolve().parent / "data"
URDF_2R = DATA / "robot_2R.urdf"
G_Y = (0.0, -9.81, 0.0)  # the report's gravity: 9.81 along -y (y up, Canovas, §2.2.2, eq. (2.27))
T6_STATE = ([0.3, -0.7], [1.2, -0.5], [0.4, 2.0])  # the general state of acceptance test 004 T6


@pytest.fixture(scope="module")
def r2():
    return dynmodel.load_python(dynmodel.generate(URDF_2R, "python", gravity=G_Y), "r2")


@pytest.fixture(scope="module")
def r2_nograv():
    return dynmodel.load_python(dynmodel.generate(URDF_2R, "python", gravity=(0, 0, 0)), "r2_g0")


@pytest.fixture(scope="module")
def r2_lagrange():
    return lagrange(dynmodel.parse_urdf(URDF_2R), G_Y)


def closed_form_2r(q, qd, qdd, g=9.81):
    """The planar 2R closed form with the parameters of the report's 2R URDF (Canovas, §4.1)."""
    l1, lc1, lc2, m1, m2, I1, I2 = 2.0, 1.0, 1.0, 3.0, 5.0, 15.6, 10.0
    c2, s2 = math.cos(q[1]), math.sin(q[1])
    t1 = (
        (I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2)) * qdd[0]
        + (I2 + m2 * (lc2**2 + l1 * lc2 * c2)) * qdd[1]
        - m2 * l1 * lc2 * s2 * (2 * qd[0] * qd[1] + qd[1] ** 2)
        + (m1 * lc1 + m2 * l1) * g * math.cos(q[0])
        + m2 * lc2 * g * math.cos(q[0] + q[1])
    )
    t2 = (
        (I2 + m2 * (lc2**2 + l1 * lc2 * c2)) * qdd[0]
        + (I2 + m2 * lc2**2) * qdd[1]
        + m2 * l1 * lc2 * s2 * qd[0] ** 2
        + m2 * lc2 * g * math.cos(q[0] + q[1])
    )
    return np.array([t1, t2])


# ------------------------------------------------------------------ 2R torques
@pytest.mark.parametrize(
    "state, expected, tol",
    [
        pytest.param(([0, 0], [0, 0], [0, 0]), (176.58, 49.05), 1e-6, marks=pytest.mark.spec("004", "T1")),
        pytest.param(([math.pi / 2, 0], [0, 0], [0, 0]), (0.0, 0.0), 1e-9, marks=pytest.mark.spec("004", "T2")),
        pytest.param(([0, math.pi / 2], [0, 0], [0, 0]), (127.53, 0.0), 1e-6, marks=pytest.mark.spec("004", "T3")),
        pytest.param(
            ([math.pi / 6, math.pi / 3], [0, 0], [0, 0]), (110.444220, 0.0), 1e-5, marks=pytest.mark.spec("004", "T4")
        ),
        pytest.param(([0, math.pi / 2], [1, 1], [0, 0]), (97.53, 10.0), 1e-6, marks=pytest.mark.spec("004", "T5")),
        pytest.param(T6_STATE, (233.747617, 74.960676), 1e-5, marks=pytest.mark.spec("004", "T6")),
    ],
)
def test_2r_torques_match_the_reference_values(r2, state, expected, tol):
    tau = r2.inverse_dynamics(*state)
    assert np.allclose(tau, expected, rtol=0, atol=tol), tau


def test_2r_joints_and_bodies_are_in_tree_order(r2):
    # joint2 is declared first in the report's URDF; the generated order is the tree order
    assert r2.JOINT_NAMES == ("joint1", "joint2") and r2.BODY_NAMES == ("link1", "link2")


@pytest.mark.spec("004", "T7", "T8")
def test_2r_inertia_matrix_from_ne_columns_equals_lagrange(r2_nograv, r2_lagrange):
    # gravity off, q = 0, qdd = e1 / e2 -> columns of H
    z = [0.0, 0.0]
    assert np.allclose(r2_nograv.inverse_dynamics(z, z, [1, 0]), (73.6, 25.0), rtol=0, atol=1e-9)
    assert np.allclose(r2_nograv.inverse_dynamics(z, z, [0, 1]), (25.0, 15.0), rtol=0, atol=1e-9)
    # H at q2 = 0 and q2 = pi/2, from NE columns and from the Lagrange closed form
    lm = r2_lagrange
    for q2, H in ((0.0, [[73.6, 25], [25, 15]]), (math.pi / 2, [[53.6, 15], [15, 15]])):
        cols = np.column_stack([r2_nograv.inverse_dynamics([0.7, q2], z, e) for e in np.eye(2)])
        assert np.allclose(cols, H, rtol=0, atol=1e-9)
        Hs = np.array(lm.M.subs({lm.q[0]: 0.7, lm.q[1]: q2}).evalf(), dtype=float)
        assert np.allclose(Hs, H, rtol=0, atol=1e-9)
    # the closed form is exact (rational constants): H11 = 268/5 + 20 cos q2 (`closed_form_2r`)
    assert sp.simplify(lm.M[0, 0] - (sp.Rational(268, 5) + 20 * sp.cos(lm.q[1]))) == 0
    assert sp.simplify(lm.M[0, 1] - (15 + 10 * sp.cos(lm.q[1]))) == 0 and lm.M[1, 1] == 15


@pytest.mark.spec("004", "T9")
def test_2r_intermediate_quantities_match_the_reference(r2):
    """The equivalent of the report's ``values_robot`` (Canovas, §3.3) at `T6_STATE` (true
    accelerations)."""
    v = r2.quantities(*T6_STATE)
    expect = {
        "position_joint2": (1.910673, 0.591040, 0),
        "position_link1": (0.955336, 0.295520, 0),
        "position_link2": (2.831734, 0.201622, 0),
        "velocity_link1": (-0.354624, 1.146404, 0),
        "velocity_link2": (-0.436656, 2.937550, 0),
        "acceleration_link1": (-1.493893, -0.043415, 0),
        "acceleration_link2": (-2.504501, 2.314532, 0),
        "force_joint1": (-17.004183, 89.922418, 0),
        "force_joint2": (-12.522506, 60.622662, 0),
        "moment_joint1": (0, 0, 233.747617),
        "moment_joint2": (0, 0, 74.960676),
    }
    for key, val in expect.items():
        assert np.allclose(v[key], val, rtol=0, atol=1e-5), (key, v[key])
    assert v["tau_joint1"] == pytest.approx(233.747617, abs=1e-5)


@pytest.mark.spec("004", "T10")
def test_2r_generated_model_equals_the_closed_form(r2):
    """Generated model = `closed_form_2r` on 200 random states, 1e-9 relative."""
    rng = np.random.default_rng(10)
    for _ in range(200):
        q, qd, qdd = rng.uniform(-math.pi, math.pi, (3, 2))
        ref = closed_form_2r(q, qd, qdd)
        assert max_error(r2.inverse_dynamics(q, qd, qdd), ref) <= 1e-9


def _chain3_urdf():
    """A spatial 3R chain (axes z, y, x) with full inertia tensors, for the NE / Lagrange comparison."""
    return """<robot name="chain3"><link name="base"/>
  <link name="a"><inertial><origin xyz="0.2 0.05 0" rpy="0.1 0 0.3"/><mass value="2.5"/>
    <inertia ixx="0.03" ixy="0.002" ixz="-0.001" iyy="0.05" iyz="0.003" izz="0.04"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.25 0 0.02"/><mass value="1.5"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <link name="c"><inertial><origin xyz="0.1 0 -0.03"/><mass value="0.8"/>
    <inertia ixx="0.004" ixy="0.001" ixz="0" iyy="0.006" iyz="0" izz="0.005"/></inertial></link>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="jb" type="continuous"><parent link="a"/><child link="b"/><origin xyz="0.5 0 0"/><axis xyz="0 1 0"/></joint>
  <joint name="jc" type="continuous"><parent link="b"/><child link="c"/><origin xyz="0.5 0 0"/><axis xyz="1 0 0"/></joint>
</robot>"""


@pytest.mark.parametrize("which", ["2r", "3r"])
@pytest.mark.spec("004", "T11")
def test_ne_equals_lagrange(which, r2_lagrange):
    """The NE program and the SymPy Lagrange closed form agree (1e-9 relative; the report derives the
    2R both ways, Canovas, §2.1-2.2)."""
    if which == "2r":
        model, g, lm = dynmodel.parse_urdf(URDF_2R), G_Y, r2_lagrange
    else:
        model, g = dynmodel.parse_urdf(_chain3_urdf()), (0.0, 0.0, -9.81)
        lm = lagrange(model, g, trigsimp_ops=0)  # canonical polynomial form (faster)
    mod = dynmodel.load_python(dynmodel.generate(model, "python", gravity=g))
    f = lm.numeric()
    rng = np.random.default_rng(11)
    for _ in range(50):
        q, qd, qdd = rng.uniform(-2, 2, (3, model.nv))
        assert max_error(mod.inverse_dynamics(q, qd, qdd), f(q, qd, qdd)) <= 1e-9


@pytest.mark.spec("004", "T12")
def test_forward_integration_recovers_reference(r2):
    """The report's suggested check (Canovas, Chapter 2): tau from the generated IDM on
    q_ref = (0.5 sin t, 0.8 cos 1.3t), RK4 on
    Pinocchio's ABA (dt = 1e-3, 2 s) gives back q_ref to < 1e-8 rad."""
    import pinocchio as pin

    text = URDF_2R.read_text().replace(
        'type="continuous">', 'type="revolute">\n    <limit lower="-10" upper="10" effort="1e3" velocity="1e3"/>'
    )
    model = pin.buildModelFromXML(text)
    model.armature[:] = 0.0
    model.gravity = pin.Motion(np.array([0, -9.81, 0, 0, 0, 0]))
    data = model.createData()
    idx = [model.joints[model.getJointId(n)].idx_v for n in r2.JOINT_NAMES]

    def ref(t):
        return (
            np.array([0.5 * math.sin(t), 0.8 * math.cos(1.3 * t)]),
            np.array([0.5 * math.cos(t), -1.04 * math.sin(1.3 * t)]),
            np.array([-0.5 * math.sin(t), -1.352 * math.cos(1.3 * t)]),
        )

    def acc(t, q, v):
        tau = r2.inverse_dynamics(*ref(t))
        qp, vp, tp = np.zeros(2), np.zeros(2), np.zeros(2)
        qp[idx], vp[idx], tp[idx] = q, v, tau
        return pin.aba(model, data, qp, vp, tp)[idx]

    dt, t = 1e-3, 0.0
    q, v = ref(0.0)[:2]
    err = 0.0
    for _ in range(2000):
        k1q, k1v = v, acc(t, q, v)
        k2q, k2v = v + dt / 2 * k1v, acc(t + dt / 2, q + dt / 2 * k1q, v + dt / 2 * k1v)
        k3q, k3v = v + dt / 2 * k2v, acc(t + dt / 2, q + dt / 2 * k2q, v + dt / 2 * k2v)
        k4q, k4v = v + dt * k3v, acc(t + dt, q + dt * k3q, v + dt * k3v)
        q = q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
        v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        t += dt
        err = max(err, float(np.abs(q - ref(t)[0]).max()))
    assert err < 1e-8


@pytest.mark.spec("004", "T13")
def test_declaration_order_does_not_change_tau(r2):
    """Reordering the URDF elements gives identical tau by joint name (the report's 2R URDF declares
    joint2 first, Canovas, §4.1)."""
    text = URDF_2R.read_text()
    import xml.etree.ElementTree as ET

    root = ET.fromstring(text)
    elems = list(root)
    for e in elems:
        root.remove(e)
    for e in reversed(elems):
        root.append(e)
    mod = dynmodel.load_python(dynmodel.generate(ET.tostring(root, encoding="unicode"), "python", gravity=G_Y))
    rng = np.random.default_rng(13)
    for _ in range(10):
        q, qd, qdd = rng.uniform(-2, 2, (3, 2))
        a = dict(zip(r2.JOINT_NAMES, r2.inverse_dynamics(q, qd, qdd)))
        b = dict(zip(mod.JOINT_NAMES, mod.inverse_dynamics(q, qd, qdd)))
        assert a == b


@pytest.mark.spec("004", "T14")
def test_fig32_frames_place_joint2():
    """The frames of Canovas, §3.2, Fig. 3.2: joint2 world origin (2.5, 3.5, 0) at q = 0,
    (-0.5, 2.5, 0) at q1 = pi/2."""
    text = """<robot name="fig32"><link name="base"/><link name="link1"/><link name="link2"/>
      <joint name="joint1" type="continuous"><parent link="base"/><child link="link1"/>
        <origin xyz="1.5 1.5 0" rpy="0 0 0"/><axis xyz="0 0 1"/></joint>
      <joint name="joint2" type="continuous"><parent link="link1"/><child link="link2"/>
        <origin xyz="1 2 0" rpy="0 0 1.57"/><axis xyz="0 0 1"/></joint></robot>"""
    mod = dynmodel.load_python(dynmodel.generate(text, "python"))
    z = np.zeros(2)
    assert np.allclose(mod.quantities(z, z, z)["position_joint2"], (2.5, 3.5, 0), rtol=0, atol=1e-9)
    assert np.allclose(mod.quantities([math.pi / 2, 0], z, z)["position_joint2"], (-0.5, 2.5, 0), rtol=0, atol=1e-9)


@pytest.mark.spec("004", "T15")
def test_axis_is_expressed_in_the_joint_frame():
    """The axis is in the joint frame (Canovas, §3.2): origin rpy (0, 0, pi/2) with axis (1, 0, 0)
    moves about world y."""
    text = f"""<robot name="t15"><link name="base"/><link name="l"/>
      <joint name="j" type="continuous"><parent link="base"/><child link="l"/>
        <origin rpy="0 0 {math.pi / 2!r}"/><axis xyz="1 0 0"/></joint></robot>"""
    mod = dynmodel.load_python(dynmodel.generate(text, "python"))
    assert np.allclose(mod.quantities([0.3], [0], [0])["axis_j"], (0, 1, 0), rtol=0, atol=1e-9)


@pytest.mark.spec("004", "T16")
def test_composite_joint_static_torques_and_pinocchio_agree():
    """A multi-DoF joint as 1-DoF joints joined by empty links (Canovas, §3.2): three continuous
    joints (x, y, z) at one point, m = 2 at
    c = (0.3, 0.1, 0.2): static torques (1.962, -5.886, 0); equals Pinocchio on random states."""
    text = """<robot name="t16"><link name="base"/><link name="e1"/><link name="e2"/>
      <link name="body"><inertial><origin xyz="0.3 0.1 0.2"/><mass value="2"/>
        <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial></link>
      <joint name="jx" type="continuous"><parent link="base"/><child link="e1"/><axis xyz="1 0 0"/></joint>
      <joint name="jy" type="continuous"><parent link="e1"/><child link="e2"/><axis xyz="0 1 0"/></joint>
      <joint name="jz" type="continuous"><parent link="e2"/><child link="body"/><axis xyz="0 0 1"/></joint>
    </robot>"""
    model = dynmodel.parse_urdf(text)
    assert model.nv == 3
    mod = dynmodel.load_python(dynmodel.generate(model, "python"))
    z = np.zeros(3)
    assert np.allclose(mod.inverse_dynamics(z, z, z), (1.962, -5.886, 0.0), rtol=0, atol=1e-9)
    ref = PinocchioReference(text, (0, 0, -9.81))
    rng = np.random.default_rng(16)
    for _ in range(20):
        q, qd, qdd = rng.uniform(-2, 2, (3, 3))
        assert max_error(mod.inverse_dynamics(q, qd, qdd), ref.rnea(q, qd, qdd)) <= 1e-9


@pytest.mark.spec("004", "T23")
def test_artefact_is_a_script_with_an_input_snippet_per_joint():
    """The report's two outputs (Canovas, §3.3): a runnable script plus an input snippet
    gv_<kind>_<joint> for every joint."""
    model = dynmodel.parse_urdf(URDF_2R)
    snippet = dynmodel.generate(model, "snippet")
    ns = {}
    exec(snippet, ns)
    for j in model.joint_names:
        for kind in ("position", "velocity", "acceleration"):
            assert f"gv_{kind}_{j}" in ns
    ns["gv_position_joint1"] = 0.0
    mod = dynmodel.load_python(dynmodel.generate(model, "python", gravity=G_Y))
    assert np.allclose(mod.inverse_dynamics(ns["q"], ns["qd"], ns["qdd"]), (176.58, 49.05), atol=1e-9)


def test_generated_python_is_self_contained(r2):
    src = dynmodel.generate(URDF_2R, "python", gravity=G_Y)
    imports = [line for line in src.splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["import math", "import numpy as np"]
    assert "pinocchio" not in src
    # one block per joint and link, named after the URDF
    for name in ("joint 'joint1'", "joint 'joint2'", "link 'link1'", "link 'link2'"):
        assert f"# --- {name}" in src


def test_2r_external_force_changes_tau_by_minus_jt_f(r2):
    """A tip force on link2: tau changes by -J^T f (virtual work), checked by hand."""
    q, z = np.array([0.3, -0.7]), np.zeros(2)
    f = np.array([2.0, -3.0, 0.0])
    # wrench at the link2 frame origin (= joint2 origin); moment 0
    tau0 = r2.inverse_dynamics(q, z, z)
    tau = r2.inverse_dynamics(q, z, z, {"link2": np.concatenate([f, np.zeros(3)])})
    p2 = np.array([2 * math.cos(q[0]), 2 * math.sin(q[0]), 0.0])  # joint2 origin
    # joint1 sees the moment of f about the base origin, joint2 none (f acts at its own axis)
    assert tau - tau0 == pytest.approx([-np.cross(p2, f)[2], 0.0], abs=1e-12)


# ------------------------------------------------------------------ LaTeX read-back
def _tau_from_latex(tex, P, q, qd, qdd):
    """Evaluate the LaTeX equations in order; return the efforts."""
    env = {}
    for k in range(len(P.joint_names)):
        env[sp.Symbol(P.latex_names[P.q[k].name])] = q[k]
        env[sp.Symbol(P.latex_names[P.qd[k].name])] = qd[k]
        env[sp.Symbol(P.latex_names[P.qdd[k].name])] = qdd[k]
        for s in P.fext[k]:
            env[sp.Symbol(P.latex_names[s.name])] = 0.0
    for lhs, rhs in parse_equations(tex):
        env[sp.Symbol(lhs)] = float(rhs.xreplace(env))
    return np.array([env[sp.Symbol(r"\tau_{{\mathrm{{{}}}}}".format(n.replace("_", r"\_")))] for n in P.joint_names])


def test_latex_2r_parses_back_to_the_closed_form():
    """The 2R LaTeX equations, read back into SymPy and evaluated line by line, equal the
    closed form (`closed_form_2r`); substituted symbolically they give the closed form exactly."""
    model = dynmodel.parse_urdf(URDF_2R)
    P = dynmodel.build_program(model, G_Y)
    tex = dynmodel.to_latex(P)
    assert r"\begin{document}" in tex and r"\tau_{\mathrm{joint1}}" in tex
    rng = np.random.default_rng(20)
    for _ in range(100):
        q, qd, qdd = rng.uniform(-math.pi, math.pi, (3, 2))
        assert max_error(_tau_from_latex(tex, P, q, qd, qdd), closed_form_2r(q, qd, qdd)) <= 1e-12
    # symbolic: substitute every line into the next; the result equals the closed form
    q1, q2, v1, v2, a1, a2 = sp.symbols("q1 q2 v1 v2 a1 a2")
    env = {}
    for k, (a, b, c) in enumerate(((q1, v1, a1), (q2, v2, a2))):
        env[sp.Symbol(P.latex_names[P.q[k].name])] = a
        env[sp.Symbol(P.latex_names[P.qd[k].name])] = b
        env[sp.Symbol(P.latex_names[P.qdd[k].name])] = c
        for s in P.fext[k]:
            env[sp.Symbol(P.latex_names[s.name])] = 0
    for lhs, rhs in parse_equations(tex):
        env[sp.Symbol(lhs)] = sp.nsimplify(rhs.xreplace(env), rational=True)
    t1 = env[sp.Symbol(r"\tau_{\mathrm{joint1}}")]
    t2 = env[sp.Symbol(r"\tau_{\mathrm{joint2}}")]
    g = sp.Rational(981, 100)
    c1 = (
        (sp.Rational(268, 5) + 20 * sp.cos(q2)) * a1
        + (15 + 10 * sp.cos(q2)) * a2
        - 10 * sp.sin(q2) * (2 * v1 * v2 + v2**2)
        + 13 * g * sp.cos(q1)
        + 5 * g * sp.cos(q1 + q2)
    )
    c2 = (15 + 10 * sp.cos(q2)) * a1 + 15 * a2 + 10 * sp.sin(q2) * v1**2 + 5 * g * sp.cos(q1 + q2)
    assert sp.simplify(sp.expand_trig(t1 - c1)) == 0
    assert sp.simplify(sp.expand_trig(t2 - c2)) == 0


def test_lagrange_latex_2r_parses_back(r2_lagrange):
    tex = lagrange_latex(r2_lagrange)
    eqs = dict(parse_equations(tex))
    lm = r2_lagrange
    back = {sp.Symbol(lm.names[s.name]): s for s in lm.q + lm.qd}
    M11 = sp.nsimplify(eqs[r"M^{11}_{\mathrm{q}}"].xreplace(back), rational=True)
    g1 = sp.nsimplify(eqs[r"g^{1}_{\mathrm{q}}"].xreplace(back), rational=True)
    c1 = sp.nsimplify(eqs[r"c^{1}_{\mathrm{q}}"].xreplace(back), rational=True)
    assert sp.simplify(M11 - lm.M[0, 0]) == 0
    assert sp.simplify(g1 - lm.g[0]) == 0 and sp.simplify(c1 - lm.Cqd[0]) == 0
    # and g equals the 2R's gravity closed form: 127.53 cos q1 + 49.05 cos(q1 + q2)
    q1, q2 = lm.q
    assert sp.simplify(lm.g[0] - (sp.Rational(12753, 100) * sp.cos(q1) + sp.Rational(4905, 100) * sp.cos(q1 + q2))) == 0


# ------------------------------------------------------------------ URDF ingestion
def test_urdf_defaults_are_identity_origin_x_axis_and_massless_link():
    """No <origin>, no <axis>, no <inertial>: identity origin, axis (1, 0, 0), massless link."""
    text = """<robot name="d"><link name="base"/><link name="a"/>
      <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
      <joint name="j1" type="continuous"><parent link="base"/><child link="a"/></joint>
      <joint name="j2" type="prismatic"><parent link="a"/><child link="b"/><origin xyz="0 0.5 0"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""
    model = dynmodel.parse_urdf(text)
    assert np.allclose(model.joints[0].axis, (1, 0, 0)) and np.allclose(model.joints[0].origin_xyz, 0)
    mod = dynmodel.load_python(dynmodel.generate(model, "python"))
    v = mod.quantities([0.2, 0.1], [0, 0], [0, 0])
    assert np.allclose(v["axis_j1"], (1, 0, 0))
    # the prismatic axis (x of the rotated frame) is still world x since j1 rotates about x
    assert np.allclose(v["position_j2"], (0.1, 0.5 * math.cos(0.2), 0.5 * math.sin(0.2)))
    ref = PinocchioReference(text, (0, 0, -9.81))
    rng = np.random.default_rng(3)
    for _ in range(10):
        q, qd, qdd = rng.uniform(-1, 1, (3, 2))
        assert max_error(mod.inverse_dynamics(q, qd, qdd), ref.rnea(q, qd, qdd)) <= 1e-9


def test_floating_joint_equals_floating_base_option():
    """A URDF 'floating' joint is the same 3P+3R block as parse_urdf(..., floating_base=True)."""
    text = URDF_2R.read_text()
    body = text.replace('<link name="world"/>', "").replace('<parent link="world"/>', '<parent link="base"/>')
    body = body.replace(
        '<robot name="robot_2R">',
        '<robot name="fb"><link name="base"><inertial><mass value="4"/>'
        '<origin xyz="0.1 0.2 0.3"/><inertia ixx="0.2" ixy="0" ixz="0" iyy="0.3" iyz="0" izz="0.4"/></inertial></link>',
    )
    with_joint = body.replace(
        '<link name="base">',
        '<link name="ground"/><joint name="root" type="floating">'
        '<parent link="ground"/><child link="base"/></joint><link name="base">',
    )
    a = dynmodel.parse_urdf(body, floating_base=True)
    b = dynmodel.parse_urdf(with_joint)
    assert a.joint_names[:6] == ["root_x", "root_y", "root_z", "root_yaw", "root_pitch", "root_roll"]
    assert b.joint_names == a.joint_names and a.nv == 8
    ma = dynmodel.load_python(dynmodel.generate(a, "python"))
    mb = dynmodel.load_python(dynmodel.generate(b, "python"))
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.uniform(-1, 1, (3, 8))
    assert np.allclose(ma.inverse_dynamics(q, qd, qdd), mb.inverse_dynamics(q, qd, qdd), rtol=0, atol=1e-12)
    # and both equal Pinocchio's free-flyer through the documented conversion
    ref = PinocchioReference(body, (0, 0, -9.81), floating_base=True)
    assert max_error(ma.inverse_dynamics(q, qd, qdd), ref.rnea(q, qd, qdd)) <= 1e-9


def test_fixed_joint_is_merged():
    text = """<robot name="m"><link name="base"/>
      <link name="a"><inertial><mass value="1"/><origin xyz="0.1 0 0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
      <link name="tool"><inertial><mass value="0.5"/><origin xyz="0 0.1 0"/><inertia ixx="0.002" ixy="0" ixz="0" iyy="0.003" iyz="0" izz="0.004"/></inertial></link>
      <joint name="j" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
      <joint name="weld" type="fixed"><parent link="a"/><child link="tool"/><origin xyz="0.3 0 0" rpy="0.2 0.1 0.4"/></joint>
    </robot>"""
    model = dynmodel.parse_urdf(text)
    assert model.joint_names == ["j"] and model.bodies["a"].mass == 1.5 and model.bodies["a"].merged == ["tool"]
    mod = dynmodel.load_python(dynmodel.generate(model, "python"))
    ref = PinocchioReference(text, (0, 0, -9.81))
    q, qd, qdd = [0.4], [1.1], [-0.3]
    assert max_error(mod.inverse_dynamics(q, qd, qdd), ref.rnea(q, qd, qdd)) <= 1e-9


def test_planar_joint_expands_to_2p1r():
    text = """<robot name="p"><link name="base"/><link name="b"><inertial><mass value="2"/>
      <origin xyz="0.1 0 0"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
      <joint name="pl" type="planar"><parent link="base"/><child link="b"/><axis xyz="0 0 1"/></joint></robot>"""
    model = dynmodel.parse_urdf(text)
    assert [j.kind for j in model.joints] == ["prismatic", "prismatic", "revolute"]
    mod = dynmodel.load_python(dynmodel.generate(model, "python"))
    # in-plane gravity-free push: f = m a along the two in-plane axes, rotation tau = 0 at rest
    tau = mod.inverse_dynamics([0, 0, 0], [0, 0, 0], [1.0, 0, 0])
    assert tau[0] == pytest.approx(2.0) and tau[1] == pytest.approx(0.0, abs=1e-12)


BAD = [
    ("<robot", "not well-formed XML"),
    ("<model name='x'/>", "expected <robot>"),
    ("<robot name='x'><link name='a'/><link name='a'/></robot>", "<link name='a'> is declared twice"),
    (
        "<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='hinge'><parent link='a'/>"
        "<child link='b'/></joint></robot>",
        "<joint name='j'>: type='hinge'",
    ),
    (
        "<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='continuous'><parent link='a'/>"
        "</joint></robot>",
        "<joint name='j'>: missing <child",
    ),
    (
        "<robot name='x'><link name='a'/><joint name='j' type='continuous'><parent link='a'/>"
        "<child link='zz'/></joint></robot>",
        "<child link='zz'> names an undeclared link",
    ),
    (
        "<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='continuous'><parent link='a'/>"
        "<child link='b'/><origin xyz='1 2'/></joint></robot>",
        "xyz='1 2' needs 3 numbers",
    ),
    (
        "<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='continuous'><parent link='a'/>"
        "<child link='b'/><axis xyz='0 0 0'/></joint></robot>",
        "the axis is zero",
    ),
    ("<robot name='x'><link name='a'><inertial><mass value='-1'/></inertial></link></robot>", "mass must be >= 0"),
    (
        "<robot name='x'><link name='a'><inertial><mass value='abc'/></inertial></link></robot>",
        "value='abc' is not a list of numbers",
    ),
    (
        "<robot name='x'><link name='a'><inertial><mass value='1'/><inertia ixx='1' iyy='-1' izz='1' ixy='0' ixz='0' iyz='0'/>"
        "</inertial></link></robot>",
        "not positive semi-definite",
    ),
    ("<robot name='x'><link name='a'/><link name='b'/></robot>", "exactly one root link"),
    (
        "<robot name='x'><link name='r'/><link name='a'/><link name='b'/>"
        "<joint name='j1' type='continuous'><parent link='a'/><child link='b'/></joint>"
        "<joint name='j2' type='continuous'><parent link='b'/><child link='a'/></joint></robot>",
        "a joint cycle",
    ),
]


@pytest.mark.parametrize("text, message", BAD)
def test_malformed_urdf_errors_name_element_and_problem(text, message):
    with pytest.raises(ModelError) as e:
        dynmodel.parse_urdf(text)
    assert message in str(e.value) and "<urdf string>" in str(e.value)


def test_missing_urdf_file_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="not found"):
        dynmodel.parse_urdf(tmp_path / "none.urdf")


# ------------------------------------------------------------------ CLI
@pytest.mark.parametrize(
    "lang, check",
    [
        ("python", "def inverse_dynamics"),
        ("latex", r"\begin{align*}"),
        ("sympy", r"M^{11}"),
        ("snippet", "gv_position_joint1"),
    ],
)
def test_cli_dynmodel_writes_the_model_in_each_language(tmp_path, lang, check):
    from humanoid_stack.cli import main

    out = tmp_path / f"m.{lang}"
    assert main(["dynmodel", "2r", "--lang", lang, "--gravity", "0", "-9.81", "0", "--out", str(out)]) == 0
    assert check in out.read_text()
    if lang == "python":
        mod = dynmodel.load_python(out.read_text())
        assert np.allclose(mod.inverse_dynamics([0, 0], [0, 0], [0, 0]), (176.58, 49.05), atol=1e-9)


def test_cli_dynmodel_c_writes_header(tmp_path):
    from humanoid_stack.cli import main

    out = tmp_path / "r2.c"
    assert main(["dynmodel", "2r", "--lang", "c", "--out", str(out)]) == 0
    assert '#include "r2.h"' in out.read_text() and "robot_2r_inverse_dynamics" in (tmp_path / "r2.h").read_text()


def test_cli_dynmodel_bad_input_exits_2_with_the_reason(tmp_path, capsys):
    from humanoid_stack.cli import main

    assert main(["dynmodel", str(tmp_path / "missing.urdf")]) == 2
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'/><joint name='j' type='slider'/></robot>")
    assert main(["dynmodel", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "missing.urdf" in err and "type='slider'" in err and "Traceback" not in err
    assert main(["dynmodel", "human36", "--lang", "sympy"]) == 2
    assert "--max-dof" in capsys.readouterr().err
    assert main(["dynmodel", "2r", "--lang", "sympy", "--max-dof", "0"]) == 2
    assert "--max-dof 0: must be >= 1" in capsys.readouterr().err
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for lang in ("python", "c"):  # the parent of --out is a regular file: no traceback, exit 2
        assert main(["dynmodel", "2r", "--lang", lang, "--out", str(blocker / "m.out")]) == 2
        err = capsys.readouterr().err
        assert "--out" in err and str(blocker) in err and "Traceback" not in err


def test_cli_dynmodel_creates_missing_output_folders(tmp_path):
    from humanoid_stack.cli import main

    out = tmp_path / "new" / "sub" / "r2.c"
    assert main(["dynmodel", "2r", "--lang", "c", "--out", str(out)]) == 0
    assert out.is_file() and (tmp_path / "new" / "sub" / "r2.h").is_file()


def test_name_clashes_between_joints_and_links():
    """URDF allows a joint and a link with one name, and names that are not identifiers."""
    inertia = '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/>'
    text = f"""<robot name="clash"><link name="base"/>
      <link name="X"><inertial><origin xyz="0.2 0 0"/><mass value="1"/>{inertia}</inertial></link>
      <link name="a-b"><inertial><origin xyz="0.1 0.1 0"/><mass value="1"/>{inertia}</inertial></link>
      <joint name="X" type="continuous"><parent link="base"/><child link="X"/><axis xyz="0 0 1"/></joint>
      <joint name="a_b" type="continuous"><parent link="X"/><child link="a-b"/><origin xyz="0.4 0 0"/>
        <axis xyz="0 1 0"/></joint></robot>"""
    P = dynmodel.build_program(dynmodel.parse_urdf(text), (0, 0, -9.81))
    mod = dynmodel.load_python(dynmodel.to_python(P))
    q, qd, qdd = np.random.default_rng(5).uniform(-1, 1, (3, 2))
    assert max_error(mod.inverse_dynamics(q, qd, qdd), PinocchioReference(text).rnea(q, qd, qdd)) <= 1e-9
    v = mod.quantities(q, qd, qdd)
    assert {"position_X", "position_X_joint", "position_a-b", "position_a_b"} <= set(v)
    lhs = [name for name, _ in parse_equations(dynmodel.to_latex(P))]
    assert len(lhs) == len(set(lhs))


@pytest.mark.parametrize("gravity", [(0, 0), (0, float("nan"), -9.81), "down"])
def test_bad_gravity_is_a_config_error(gravity):
    from humanoid_model.exceptions import ConfigError

    with pytest.raises(ConfigError, match="gravity"):
        dynmodel.build_program(dynmodel.parse_urdf(URDF_2R), gravity)


def test_generated_python_input_errors(r2):
    with pytest.raises(ValueError, match="need 2 values"):
        r2.inverse_dynamics([0.0], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="unknown link 'hand'"):
        r2.inverse_dynamics([0, 0], [0, 0], [0, 0], {"hand": np.zeros(6)})
    with pytest.raises(ValueError, match=r"expected shape \(2, 6\)"):
        r2.inverse_dynamics([0, 0], [0, 0], [0, 0], np.zeros((3, 6)))
