"""RABBIT's and the five-bar's URDFs (urdf/chesse_generate.py, Chessé 2002, Tables III-2 and III-1)
against the thesis's closed-form mass matrices and gravity torques, eqs. (III.1)-(III.2) (the
five-bar) and (III.8), (III.12) (RABBIT), on random states: Pinocchio's model of the URDF mapped to
the thesis's absolute angles, and the gait trees built from the URDF
(`humanoid_planner.gait.chesse_robots`). A wrong mass, COM, inertia or length in a URDF fails here."""

import importlib.util
import math

import numpy as np
import pinocchio as pin
import pytest
from support import REPO

from humanoid_planner.gait.chesse_robots import ChainModel

G = 9.81
RNG = np.random.default_rng(3)


def _rabbit_constants():
    """(III.8) and (III.12) with Table III-2 read as the URDF does (COM and inertia from the upper
    joint): in the DS frames the rear tibia's COM is 0.4 - 0.127 m from the foot and the rear
    thigh's 0.4 - 0.163 m from the knee, their inertias moved to those origins."""
    mt, dt, it = 3.2, 0.127, 0.1  # tibia, Table III-2
    mf, df, i_f = 6.8, 0.163, 0.25  # thigh
    mk, dk, ik = 20.0, 0.2, 2.22  # trunk
    r = 0.4
    m = [mt, mf, mf, mt, mk]
    a = [r - dt, r - df, df, dt, dk]
    Ic = [it - mt * dt**2, i_f - mf * df**2]
    I = [Ic[0] + mt * a[0] ** 2, Ic[1] + mf * a[1] ** 2, i_f, it, ik]
    m2345, m345 = sum(m[1:]), sum(m[2:])
    M_diag = [I[0] + m2345 * r**2, I[1] + m345 * r**2, I[2] + m[3] * r**2, I[3], I[4]]
    E = {
        (0, 1): r * (m[1] * a[1] + m345 * r),
        (0, 2): r * (m[2] * a[2] + m[3] * r),
        (0, 3): r * m[3] * a[3],
        (0, 4): r * m[4] * a[4],
        (1, 2): r * (m[2] * a[2] + m[3] * r),
        (1, 3): r * m[3] * a[3],
        (1, 4): r * m[4] * a[4],
        (2, 3): r * m[3] * a[3],
    }
    V = [
        G * (m[0] * a[0] + m2345 * r),
        G * (m[1] * a[1] + m345 * r),
        G * (m[2] * a[2] + m[3] * r),
        G * m[3] * a[3],
        G * m[4] * a[4],
    ]
    return M_diag, E, V


def _five_bar_constants():
    """(III.1) and (III.2) with Table III-1: bars 0.4 m, 2 kg, COM 0.2 m, I 0.107 about the joint
    end; the 5 kg load at O3, the end of S2."""
    r, mb, a, I, m5 = 0.4, 2.0, 0.2, 0.107, 5.0
    m = [mb] * 4
    m2345, m345 = 3 * mb + m5, 2 * mb + m5
    M_diag = [I + m2345 * r**2, I + m345 * r**2, I + m[3] * r**2, I]
    E = {
        (0, 1): r * (mb * a + m345 * r),
        (0, 2): r * (mb * a + mb * r),
        (0, 3): r * mb * a,
        (1, 2): r * (mb * a + mb * r),
        (1, 3): r * mb * a,
        (2, 3): r * mb * a,
    }
    V = [G * (mb * a + m2345 * r), G * (mb * a + m345 * r), G * (mb * a + mb * r), G * mb * a]
    return M_diag, E, V


def _closed_form(constants, q):
    M_diag, E, V = constants
    n = len(M_diag)
    M = np.diag(M_diag)
    for (i, j), e in E.items():
        M[i, j] = M[j, i] = e * math.cos(q[i] - q[j])
    return M, np.array([V[i] * math.cos(q[i]) for i in range(n)])


def _rabbit_pinocchio():
    """Pinocchio's model of urdf/rabbit.urdf on a planar base (x, z, pitch about y) and the map
    from the thesis's DS angles (rear = left leg) to its configuration, written here from the
    geometry (independent of the gait module): hip = the rear leg's end, link pitches about +y."""
    root = pin.JointModelComposite()
    for j in (pin.JointModelPX(), pin.JointModelPZ(), pin.JointModelRY()):
        root.addJoint(j)
    model = pin.buildModelFromUrdf(str(REPO / "urdf" / "rabbit.urdf"), root)
    model.gravity = pin.Motion(np.array([0.0, 0.0, -G]), np.zeros(3))
    iq = {name: model.joints[model.getJointId(name)].idx_q for name in ("l_hip", "l_knee", "r_hip", "r_knee")}

    def x_of(q):
        r = 0.4
        hip = r * np.array([math.cos(q[0]) + math.cos(q[1]), math.sin(q[0]) + math.sin(q[1])])
        pitch = {"torso": math.pi / 2 - q[4], "l_thigh": math.pi / 2 - q[1], "l_tibia": math.pi / 2 - q[0]}
        pitch.update({"r_thigh": -math.pi / 2 - q[2], "r_tibia": -math.pi / 2 - q[3]})
        x = np.zeros(model.nq)
        x[:3] = hip[0], hip[1], pitch["torso"]
        for side in "lr":
            x[iq[f"{side}_hip"]] = pitch[f"{side}_thigh"] - pitch["torso"]
            x[iq[f"{side}_knee"]] = pitch[f"{side}_tibia"] - pitch[f"{side}_thigh"]
        return x

    return model, x_of


def _five_bar_pinocchio():
    model = pin.buildModelFromUrdf(str(REPO / "urdf" / "five_bar.urdf"))
    model.gravity = pin.Motion(np.array([0.0, 0.0, -G]), np.zeros(3))

    def x_of(q):  # joints about -y: the joint angles are the thesis's relative angles
        return np.array([q[0], q[1] - q[0], q[2] - q[1], q[3] - q[2]])

    return model, x_of


def _reduced(model, x_of, q):
    """M and dV/dq of the URDF's model in the absolute angles q: J^T M(x) J, J^T g(x), J = dx/dq by
    central differences."""
    data = model.createData()
    x = x_of(q)
    h = 1e-6
    J = np.column_stack([(x_of(q + h * e) - x_of(q - h * e)) / (2 * h) for e in np.eye(len(q))])
    M = pin.crba(model, data, x)
    M = np.triu(M) + np.triu(M, 1).T
    return J.T @ M @ J, J.T @ pin.computeGeneralizedGravity(model, data, x)


CASES = {
    "rabbit": (_rabbit_constants, _rabbit_pinocchio, "ds", 5),
    "five_bar": (_five_bar_constants, _five_bar_pinocchio, "transfer", 4),
}


@pytest.mark.spec("003", "A14", "A15", "A18")
@pytest.mark.parametrize("robot", list(CASES))
def test_urdf_mass_matrix_and_gravity_match_the_thesis_closed_forms(robot):
    """Pinocchio's M and dV/dq of the URDF, and the gait tree's, equal eqs. (III.1)-(III.2) (five-bar) and
    (III.8), (III.12) (RABBIT) with the tables' constants at random absolute angles."""
    constants, pinocchio_model, kind, n = CASES[robot]
    model, x_of = pinocchio_model()
    tree = ChainModel(robot).tree(kind)
    c = constants()
    for _ in range(8):
        q = RNG.uniform(-math.pi, math.pi, n)
        M_th, g_th = _closed_form(c, q)
        M_pin, g_pin = _reduced(model, x_of, q)
        np.testing.assert_allclose(M_pin, M_th, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(g_pin, g_th, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(tree.M(q), M_th, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(tree.dVdq(q), g_th, rtol=1e-9, atol=1e-9)


def test_rabbit_urdf_masses_are_table_iii_2():
    model, _ = _rabbit_pinocchio()
    assert sum(i.mass for i in model.inertias) == pytest.approx(40.0, abs=1e-12)  # 2 x (3.2 + 6.8) + 20
    assert ChainModel("five_bar").total_mass == pytest.approx(13.0, abs=1e-12)  # 4 x 2 + 5, Table III-1


def test_generated_urdfs_are_up_to_date():
    """rabbit.urdf and five_bar.urdf are outputs of chesse_generate.py."""
    spec = importlib.util.spec_from_file_location("chesse_generate", REPO / "urdf" / "chesse_generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for name, text in gen.FILES.items():
        assert (REPO / "urdf" / name).read_text() == text(), name
