"""Solver properties on small planar structures (test/support/kin_planar.py): an over-constrained loop with
an out-of-plane error, the command frames of a target increment, the dexterity and the joint
speeds (acceptance tests of Flückiger 1998, marked ``spec("002", ...)``), the initial-gap
convergence rate, joint-limit saturation, and the interface the two solvers share."""

import numpy as np
import pinocchio as pin
import pytest
from support.kin_planar import write_parallelogram

from humanoid_control.kinematics import (
    SOLVERS,
    Ball,
    ComTask,
    FrameTarget,
    JointTask,
    PostureTask,
    load_structure,
    prioritized,
    svd,
)
from humanoid_model.paths import urdf_dir


@pytest.fixture
def planar(tmp_path):
    return load_structure(write_parallelogram(tmp_path))


def _loop_error(s, q):
    data = s.compute(q)
    c = s.closures["loop"]
    return c.error(q, data)


@pytest.mark.spec("002", "A14")
@pytest.mark.parametrize("solver", SOLVERS)
def test_over_constrained_loop_with_out_of_plane_error(tmp_path, solver):
    """The hyperstatic loop of the Hitachi-HPR (Flückiger 1998, §6.3.2): a planar parallelogram closed by
    a 6-D weld (3 dependent rows) whose frame is lifted 1 mm out of the plane: the solver stays
    finite, the in-plane gap closes (< 1e-9 m), the 1 mm out-of-plane error is the least-squares
    minimum and stays; without the error the loop closes to < 1e-9 m (1e-6 mm)."""
    s = load_structure(write_parallelogram(tmp_path, z_error=0.001))
    q = s.q0.copy()
    q[s.joint_index("j4")[0]] += 0.05  # open the loop in the plane too
    for _ in range(6):
        q, report = SOLVERS[solver](s, q)
        assert np.all(np.isfinite(q))
    e = _loop_error(s, q)
    assert np.linalg.norm(e[[0, 1, 5]]) < 1e-9  # in-plane: x, y, rz
    assert abs(abs(e[2]) - 0.001) < 1e-12 and np.linalg.norm(e[3:5]) < 1e-12  # z stays 1 mm
    s2 = load_structure(write_parallelogram(tmp_path / ".." / tmp_path.name))
    q = s2.q0.copy()
    q[s2.joint_index("j4")[0]] += 0.05
    for _ in range(6):
        q, _ = SOLVERS[solver](s2, q)
    assert np.linalg.norm(_loop_error(s2, q)) < 1e-9


@pytest.mark.spec("002", "A7")
def test_parallelogram_direct_mode_follows_the_parallelogram_law(planar):
    """Direct mode (Flückiger 1998, §3.4.3.3): driving crank 1 moves crank 2 by the same angle (the
    parallelogram law, independent of the solver), coupler and stub by its opposite."""
    s, q = planar, planar.q0.copy()
    j = {n: s.joint_index(n)[0] for n in ("j1", "j2", "j3", "j4")}
    slider = JointTask(s, {"j1": q[j["j1"]]})
    for k in range(10):
        slider.set_target([0.6 + 0.02 * (k + 1)])
        q, _ = prioritized.solve(s, q, slider)
    assert q[j["j1"]] == pytest.approx(0.8, abs=1e-9)
    assert q[j["j3"]] == pytest.approx(0.8, abs=1e-7)
    assert q[j["j2"]] == pytest.approx(-0.8, abs=1e-7) and q[j["j4"]] == pytest.approx(-0.8, abs=1e-7)
    assert np.linalg.norm(_loop_error(s, q)) < 1e-7


@pytest.mark.spec("002", "A16")
def test_target_increments_in_world_and_tool_frames(planar):
    """Command frames (Flückiger 1998, §3.4.3.1): ``world`` increments rotate about the target's own
    origin with world axes (LOCAL_WORLD_ALIGNED, the documented alternative to the pivot at the
    world origin of eq. (3.28)); ``tool`` increments are right-multiplied (tool axes, pivot at the
    tool point, where eq. (3.28) agrees)."""
    t = FrameTarget(planar, "tool")
    rng = np.random.default_rng(0)
    for frame in ("world", "tool"):
        M0 = pin.SE3(pin.exp3(rng.normal(size=3)), rng.normal(size=3))
        v = rng.normal(size=6)
        t.set_target(M0)
        t.move(v, frame=frame)
        if frame == "world":
            R = pin.exp3(v[3:]) @ M0.rotation
            expected = pin.SE3(R, M0.translation + v[:3])
        else:
            expected = M0 * pin.exp6(pin.Motion(v))
        assert np.abs(t.target.homogeneous - expected.homogeneous).max() < 1e-12
    with pytest.raises(Exception, match="world or tool"):
        t.move(np.zeros(6), frame="view")


@pytest.mark.spec("002", "A19")
def test_dexterity_is_the_condition_number_of_the_augmented_jacobian(planar):
    """The dexterity of Flückiger 1998, Fig. 6-8: report.dexterity = σmax/σmin of the
    stacked loop and command rows (consistent units), rebuilt here from Pinocchio."""
    s = planar
    q = s.q0.copy()
    tool = FrameTarget(s, "tool", mode="position")
    tool.set_target(tool.target.translation + [0.01, 0.02, 0])
    _, report = prioritized.solve(s, q, tool)
    data = s.model.createData()
    pin.computeJointJacobians(s.model, data, q)
    pin.updateFramePlacements(s.model, data)
    Ja = pin.getFrameJacobian(s.model, data, s.frame_id("cut"), pin.LOCAL)
    Jb = pin.getFrameJacobian(s.model, data, s.frame_id("coupler_end_link"), pin.LOCAL)
    M = data.oMf[s.frame_id("coupler_end_link")].actInv(data.oMf[s.frame_id("cut")])
    Jloop = pin.Jlog6(M) @ (Ja - M.inverse().action @ Jb)
    Jloop[3:] *= s.length_scale
    Jtool = pin.getFrameJacobian(s.model, data, s.frame_id("tool"), pin.LOCAL_WORLD_ALIGNED)[:3]
    sv = np.linalg.svd(np.vstack([Jloop, Jtool]), compute_uv=False)
    sv = sv[sv > 1e-9 * sv[0]]
    assert report.sigma[report.sigma > 1e-9 * report.sigma[0]] == pytest.approx(sv, rel=1e-9)
    # the planar weld has 3 dependent rows: the full J_aug is singular
    assert report.dexterity == np.inf or report.dexterity > 1e12


@pytest.mark.spec("002", "A20")
def test_joint_speeds_are_the_step_over_the_cycle(planar):
    """The joint-speed spheres of Flückiger 1998, Fig. 6-9: radii ∝ |q̇_i| = |Δq_i| / dt."""
    s = planar
    q = s.q0.copy()
    tool = FrameTarget(s, "tool", mode="position")
    tool.set_target(tool.target.translation + [0.01, -0.02, 0])
    q1, report = prioritized.solve(s, q, tool)
    dt = 0.04
    assert report.joint_speeds(dt) == pytest.approx(np.abs(pin.difference(s.model, q, q1)) / dt, abs=1e-12)
    assert report.joint_speeds(dt).max() > 0


@pytest.mark.spec("002", "A17")
def test_joint_limits_are_saturated_and_the_loop_keeps_priority(tmp_path):
    """The joint-limit enforcement policy (docs/kinematics.md; the thesis does not give one): a
    command pushing j6 past its limit leaves j6 at the limit, the loop closed and the other joints
    still moving the tool."""
    s = load_structure(write_parallelogram(tmp_path, extra="limits: {absolute: {j6: [-1.05, 1.0]}}"))
    q = s.q0.copy()
    tool = FrameTarget(s, "tool", mode="position")
    start = tool.target.translation.copy()
    tool.set_target(start + [-0.08, 0.0, 0])  # unlimited, j6 would go to -1.34 rad
    i6 = s.joint_index("j6")[0]
    hit = False
    for _ in range(20):
        q, report = prioritized.solve(s, q, tool)
        assert -1.05 - 1e-12 <= q[i6] <= 1.0 + 1e-12
        assert np.linalg.norm(_loop_error(s, q)) < 1e-6
        hit |= "j6" in report.saturated
    assert hit  # j6 was held at its limit on the way
    assert np.linalg.norm(tool.error(q, s.compute(q))) < 1e-6  # the other joints still reach it
    q_svd, _ = svd.solve(s, s.q0, tool, clamp=True)
    assert -1.05 - 1e-12 <= q_svd[i6] <= 1.0 + 1e-12


def test_both_solvers_share_the_interface(planar):
    for name, solve in SOLVERS.items():
        q, report = solve(planar, planar.q0, FrameTarget(planar, "tool"))
        assert q.shape == (planar.model.nq,) and report.dq.shape == (planar.model.nv,)
        assert report.solver == name and set(report.errors) == {"loop", "tool"}
        assert report.residual == pytest.approx(0.0, abs=1e-12)


class _ShiftedCom(ComTask):
    """A task with its own ``evaluate``: the solver evaluates it in Python."""

    def evaluate(self, q, data):
        e, J = super().evaluate(q, data)
        return e + 0.01, J


def test_prioritized_rows_are_each_tasks_evaluate():
    """The rows the prioritized solver writes in its compiled call (welds, ball, frame targets of
    every mode, CoM, joint and posture tasks) and those of a task it evaluates in Python equal each
    task's own ``evaluate`` (the Pinocchio-checked formulas, test_kin_frame_rows.py and
    test_kin_jacobians.py), scaled by row scale, weight and column scale, on HRP-2 moved away from
    its initial configuration (so that every error is nonzero)."""
    s = load_structure("hrp2")
    rng = np.random.default_rng(11)
    v = rng.uniform(-0.1, 0.1, s.model.nv)
    q = pin.integrate(s.model, s.q0, v)
    q[s.lim_q] = np.clip(q[s.lim_q], s.lower, s.upper)
    goal = pin.SE3(pin.exp3(rng.normal(size=3) * 0.3), rng.normal(size=3) * 0.2)
    tasks = [
        FrameTarget(s, "r_hand", goal * s.placement(s.q0, "r_hand"), mode="pose", weight=2.0),
        FrameTarget(s, "l_hand", goal * s.placement(s.q0, "l_hand"), mode="position"),
        FrameTarget(s, "RARM_LINK3", goal * s.placement(s.q0, "RARM_LINK3"), mode="orientation", level=3),
        Ball(s, "ball", "LARM_LINK3", "RARM_LINK3"),
        ComTask(s, target=[0.05, -0.02]),
        _ShiftedCom(s, name="shifted com", level=2),
        JointTask(s, {"RARM_JOINT0": 0.3, "LLEG_JOINT3": 0.5}, weight=0.5),
        PostureTask(s, weight=1.5),
    ]
    _, report = prioritized.solve(s, q, *tasks)
    data = s.compute(q, s.model.createData(), com=True)
    seen = set()
    for lev in report._rows():
        a = 0
        for t in lev.tasks:
            e, J = t.evaluate(q, data)
            assert np.linalg.norm(e) > 1e-3, t.name
            assert np.abs(report.errors[t.name] - e).max() < 1e-12, t.name
            scaled = (t.row_scale * t.weight)[:, None] * J * s.col_scale
            assert np.abs(lev.J[a : a + t.dim] - scaled).max() < 1e-12, t.name
            a += t.dim
            seen.add(t.name)
    assert seen == {t.name for t in tasks} | set(s.closures)


def test_several_structures_share_one_scene():
    """Several robots in one scene (Flückiger 1998, §4.1.2): two hybrid robots loaded from the
    same sidecar and the MacDac, solved cycle by cycle in alternation with their own targets, end
    exactly where they end when each runs its cycles alone, one after the other (each structure
    owns its model, data and cached plan; nothing is shared but the code)."""
    kin = urdf_dir() / "kinematics"

    def run(names, interleave):
        structures = [load_structure(kin / f"{n}.kin.yaml") for n in names]
        targets, qs = [], []
        for k, s in enumerate(structures):
            frame = next(iter(s.sources))
            t = FrameTarget(s, frame, mode="position")
            t.set_target(t.target.translation + [0.02 * (k + 1), -0.01, 0.0])
            targets.append(t)
            qs.append(s.q0.copy())
        order = [(c, k) for c in range(8) for k in range(len(names))]
        if not interleave:
            order.sort(key=lambda x: x[1])
        for _, k in order:
            qs[k], _ = prioritized.solve(structures[k], qs[k], targets[k])
        return qs

    names = ["hybrid_planar", "hybrid_planar", "macdac"]
    together, alone = run(names, interleave=True), run(names, interleave=False)
    assert all(np.array_equal(a, b) for a, b in zip(together, alone))
    assert np.abs(together[0] - together[1]).max() > 1e-3  # the two hybrids followed their own targets
