"""The human avatar (Chardonnet 2009, §3.3; docs/avatar.md): ball joints as native quaternion joints, PD on their
three axes, de Leva segments.

- The model: Pinocchio ``JointModelSpherical`` at the shoulders, wrists, hips and ankles (the thesis's, §3.3.3),
  merged from the URDF's revolute triples (`humanoid_model.spherical_joints`). The merged model and
  the URDF's own (three revolute joints with massless links) are the same mechanism: every link
  frame at the same place, the same kinetic energy for the same motion (the merged velocity from
  central differences of the configuration map). Its mass is the de Leva table's, as the
  dynamic-model generator's human body built from the same table.
- A ball joint's PD (`humanoid_sim.stages.actuators.PDActuator`, ``balls``) on an isotropic body hung
  from an isotropic base by a ball joint at both centres of mass, gravity off: the relative
  rotation stays about one axis and its angle follows the one-axis oscillator
  I θ̈ + k_v θ̇ + k_p θ = 0 with the reduced inertia, from a start orientation that is not the
  identity (a position error taken in the wrong frame turns the axis); the quaternions stay unit
  (pin.integrate on SO(3)).
- The avatar stands (`avatar_standing`), and reaches and pushes a box (`avatar_push`).
"""

import math

import numpy as np
import pinocchio as pin
import pytest
from support import REPO

from humanoid_model import load_robot
from humanoid_model.dynmodel.data.make_human36 import M_SUBJ
from humanoid_model.exceptions import ModelError
from humanoid_sim.exceptions import CommandError
from humanoid_sim.world import World

BALLS = {f"{s}_{j}" for s in "RL" for j in ("SHOULDER", "WRIST", "HIP", "ANKLE")}


@pytest.fixture(scope="module")
def avatar():
    return load_robot("avatar")


def test_ball_joints_are_quaternion_joints_and_the_mass_is_de_levas(avatar):
    m = avatar.model
    kinds = {n: m.joints[m.getJointId(n)].shortname() for n in avatar.joint_names}
    assert {n for n, k in kinds.items() if k == "JointModelSpherical"} == BALLS
    assert {n for n, k in kinds.items() if k != "JointModelSpherical"} == {"R_ELBOW", "L_ELBOW", "R_KNEE", "L_KNEE"}
    assert (m.nq, m.nv) == (7 + 4 * 8 + 4, 6 + 3 * 8 + 4)
    assert avatar.dof_names[:4] == [f"{avatar.joint_names[0]}[{a}]" for a in "xyz"] + [avatar.joint_names[1]]
    human36 = pin.buildModelFromUrdf(
        str(__import__("humanoid_model.dynmodel.data", fromlist=["x"]).__path__[0] + "/human36.urdf")
    )
    assert avatar.mass == pytest.approx(pin.computeTotalMass(human36), rel=1e-9)
    assert avatar.mass == pytest.approx(M_SUBJ, rel=1e-8)  # the HuMoD subject's 57.3 kg (Canovas, §3.3)


def test_merged_model_is_the_urdf_mechanism(avatar):
    """Same link placements and kinetic energy as the URDF model (three revolute joints each)."""
    merge = avatar.spherical
    mu, mm = merge.urdf_model, merge.model
    du, dm = mu.createData(), mm.createData()
    rng = np.random.default_rng(3)
    links = [
        f.name for f in mu.frames if f.type == pin.FrameType.BODY and not f.name.endswith(("_PITCH_LINK", "_ROLL_LINK"))
    ]
    for _ in range(5):
        qu = pin.neutral(mu)
        qu[:7] = [*rng.normal(size=3), *pin.Quaternion(pin.exp3(rng.normal(size=3))).coeffs()]
        qu[7:] = rng.uniform(-1.2, 1.2, mu.nq - 7)
        vu = rng.normal(size=mu.nv)
        qm = merge.configuration(qu)
        pin.framesForwardKinematics(mu, du, qu)
        pin.framesForwardKinematics(mm, dm, qm)
        for name in links:
            a, b = du.oMf[mu.getFrameId(name)], dm.oMf[mm.getFrameId(name)]
            assert np.abs(a.homogeneous - b.homogeneous).max() < 1e-12, name
        h = 1e-6
        ahead, behind = (merge.configuration(pin.integrate(mu, qu, s * h * vu)) for s in (1, -1))
        vm = pin.difference(mm, behind, ahead) / (2 * h)
        eu = pin.computeKineticEnergy(mu, du, qu, vu)
        em = pin.computeKineticEnergy(mm, dm, qm, vm)
        assert em == pytest.approx(eu, rel=1e-7)  # central differences: O(h²) and rounding ~1e-10
        back = merge.angles(qm)
        assert np.abs(back[7:] - qu[7:]).max() < 1e-10  # the Euler angles of each ball (|pitch| < π/2 here)


def test_a_bad_ball_joint_section_is_refused(tmp_path):
    from humanoid_model.spherical_joints import merge_spherical, read_spherical

    with pytest.raises(ModelError, match="three joint names"):
        read_spherical({"X": ["a", "b"]}, "avatar.yaml")
    m = load_robot("avatar").spherical.urdf_model
    with pytest.raises(ModelError, match="not the child"):
        merge_spherical(m, read_spherical({"X": ["R_HIP_PITCH", "R_HIP_YAW", "R_HIP_ROLL"]}, "s"), "s")
    with pytest.raises(ModelError, match="first joint.s origin"):
        merge_spherical(m, read_spherical({"X": ["R_HIP_ROLL", "R_HIP_YAW", "R_KNEE"]}, "s"), "s")


# ----------------------------------------------------------------------------- PD on a ball joint
I_BASE, I_BODY = 1.0, 0.01  # [kg m²] isotropic inertias about the ball's centre (chosen)
KP, ZETA = 1.0, 0.5  # [N m/rad], damping ratio (chosen: ω_n ≈ 10 rad/s, an overshoot and 98 % settled in 0.8 s)
THETA0 = 2.0  # [rad] start error: large, so a small-angle law would fail
AXIS = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])  # error axis in the child frame (chosen)


def _ball_robot(tmp_path):
    def link(name, mass, inertia):
        i = f'<inertia ixx="{inertia}" iyy="{inertia}" izz="{inertia}" ixy="0" ixz="0" iyz="0"/>'
        return f'<link name="{name}"><inertial><mass value="{mass}"/>{i}</inertial></link>'

    joints = "".join(
        f'<joint name="B_{n}" type="revolute"><parent link="{p}"/><child link="{c}"/><axis xyz="{a}"/>'
        f'<limit lower="-4" upper="4" effort="100" velocity="100"/></joint>'
        for n, p, c, a in (("P", "base", "m1", "0 1 0"), ("R", "m1", "m2", "1 0 0"), ("Y", "m2", "body", "0 0 1"))
    )
    (tmp_path / "ball.urdf").write_text(
        f'<robot name="ball">{link("base", 10.0, I_BASE)}<link name="m1"/><link name="m2"/>'
        f"{link('body', 1.0, I_BODY)}{joints}</robot>"
    )
    (tmp_path / "ball.yaml").write_text(
        "spherical: {BALL: [B_P, B_R, B_Y]}\n"
        "postures: {start: {base: [0, 0, 1, 0, 0, 0, 1], joints: {B_P: 0.7, B_R: -0.4, B_Y: 1.1}}}\n"
        "default_posture: start\n"
    )
    (tmp_path / "scene.yaml").write_text("gravity: [0, 0, 0]\nground: null\nrobot: {name: ball.urdf}\n")
    return tmp_path / "scene.yaml"


def test_ball_joint_pd_is_the_one_axis_oscillator_and_quaternions_stay_unit(tmp_path):
    i_red = I_BASE * I_BODY / (I_BASE + I_BODY)  # torques about the common centre: relative dynamics
    kv = 2 * ZETA * math.sqrt(KP * i_red)
    w = World.from_scene(_ball_robot(tmp_path), gains=(np.full(3, KP), np.full(3, kv)))
    assert w.actuator.names == ["BALL[x]", "BALL[y]", "BALL[z]"]
    q0 = w.q[7:11]
    R0 = pin.Quaternion(q0[3], *q0[:3]).toRotationMatrix()
    Rd = R0 @ pin.exp3(THETA0 * AXIS)  # the error log(R0ᵀ Rd) = θ0 u in the child frame
    w.actuator.set_position(pin.Quaternion(Rd).coeffs())
    wn, dt = math.sqrt(KP / i_red), w.dt
    wd = wn * math.sqrt(1 - ZETA**2)
    worst_angle = worst_axis = worst_norm = 0.0
    for k in range(1, 801):
        w.step()
        qb = w.q[7:11]
        worst_norm = max(worst_norm, abs(np.linalg.norm(qb) - 1.0))
        err = pin.log3(pin.Quaternion(qb[3], *qb[:3]).toRotationMatrix().T @ Rd)
        t = k * dt
        theta = THETA0 * math.exp(-ZETA * wn * t) * (math.cos(wd * t) + ZETA * wn / wd * math.sin(wd * t))
        worst_angle = max(worst_angle, abs(err @ AXIS - theta))
        worst_axis = max(worst_axis, np.linalg.norm(err - (err @ AXIS) * AXIS))
    # first-order scheme (semi-implicit Euler, implicit damping): measured 3.2e-3 rad of 2 rad over 0.8 s
    assert worst_angle < 0.01 * THETA0
    assert np.linalg.norm(err) < 0.03 * THETA0  # settling on the target orientation: 0.0417 rad (analytic 0.0410)
    assert worst_axis < 1e-9  # measured 3e-15: the error keeps its axis (a parent-frame error turns it)
    assert worst_norm < 1e-12  # unit quaternion on SO(3) (an explicit q += dt q̇ drifts by ~(ω dt)²/8 a step)


# ----------------------------------------------------------------------------- the scenes
def _sole_xy(w):
    d = w.model.createData()
    pin.framesForwardKinematics(w.model, d, w.q)
    return np.array([d.oMf[w.model.getFrameId(f)].translation[:2] for f in ("R_SOLE", "L_SOLE")])


def test_the_avatar_stands(avatar):
    """avatar_standing, 0.3 s: knees bent 0.3 rad, so every leg joint's PD holds part of the weight
    and the body sags onto its gains (the base moves 5.5 mm, then sways and settles: 3.6 mm at
    1.8 s, measured); the feet carry the weight and do not slip; the quaternions stay unit."""
    w = World.from_scene("avatar_standing")
    feet0, base0 = _sole_xy(w), w.q[:3].copy()
    w.step(300)
    assert w.stats()["unconverged_solves"] == 0
    mg = w.robot.mass * np.linalg.norm(w.scene.gravity)
    assert w.last.forces_world()[:, 2].sum() == pytest.approx(mg, rel=1e-2)  # the sag's dynamics: 9e-4 measured
    assert np.abs(_sole_xy(w) - feet0).max() < 1e-4  # no slip (the HRP-2 standing test's 0.1 mm; 2e-8 measured)
    assert np.abs(w.q[:3] - base0).max() < 0.01  # a sag, not a fall
    assert max(abs(np.linalg.norm(w.q[7 + i : 11 + i]) - 1) for i, _ in avatar.ball_joints) < 1e-12


@pytest.fixture(scope="module")
def pushed():
    """avatar_push with a quicker motion than the scene's (reach at 0.3 s, push at 0.7 s; chosen for the
    suite's time), 0.8 s: the steps in which the right hand touches the box, and the end state."""
    w = World.from_scene("avatar_push", overrides={"motion.reach": 0.3, "motion.push": 0.7})
    box0, base0, feet0 = w.body_state("box").position.copy(), w.q[:3].copy(), _sole_xy(w)
    touching = []  # every 10 ms
    for _ in range(80):
        w.step(10)
        touching.append(any(c["body_a"] == "R_HAND" and c["body_b"] == "box" for c in w.contact_list()))
    return w, box0, base0, feet0, np.array(touching)


def test_the_avatar_reaches_and_pushes_the_box(pushed):
    """The fingertips' set-point goes from 0.40 to 0.55 m ahead (the 'reach' and 'push' postures),
    past the box's near face at 0.45 m: the right hand touches the box only during the push and
    pushes it about 10 cm along the counter (measured 11.2 cm: the box slides on after the hand
    stops), while the avatar stands on its feet. The PD arm sags about 7 cm under gravity
    (urdf/avatar_generate.py TIP_HEIGHT). (60 of the 800 solves end on the sweep budget with the
    feet's complementarity residual at 5e-6 N m/s, the 1e-6 threshold: docs/avatar.md.)"""
    w, box0, base0, feet0, touching = pushed
    box = w.body_state("box").position
    first = int(np.argmax(touching))
    assert touching.any() and 0.3 <= 0.01 * (first + 1) <= 0.7  # the reach stops short of the box; the push meets it
    assert box[0] - box0[0] > 0.08
    assert abs(box[1] - box0[1]) < 0.025 and abs(box[2] - box0[2]) < 1e-3  # along the counter, on it
    assert abs(w.q[2] - base0[2]) < 2e-3 and np.abs(_sole_xy(w) - feet0).max() < 1e-3  # stands, feet stay


def test_a_recording_of_the_avatar_replays_its_configurations(tmp_path, avatar):
    """`humanoid-stack simulate`'s recording holds a ball joint's quaternion in the joint positions
    (docs/recording.md); the viewer's replay puts it back into the configuration."""
    from humanoid_sim.runtime.recording import record_run
    from humanoid_sim.runtime.session import SimulationSession
    from humanoid_viewer.replay import load_recording

    w = World.from_scene("avatar_push")
    path = record_run(w, 20, tmp_path / "run.jsonl", every=10)
    rec = load_recording(path, avatar)
    assert np.abs(rec.q[-1] - w.q[: avatar.model.nq]).max() < 1e-8  # the recording rounds to 1e-9 / 1e-12
    # /joint_states: the URDF's joints, a ball joint as its triple's three angles (positions only)
    session = SimulationSession.load("avatar_standing")
    session.step()
    names, positions, velocities, _ = session.state_output().joint_state
    urdf = avatar.spherical.urdf_model
    assert names == list(urdf.names[2:]) and len(velocities) == 0
    q = avatar.spherical.configuration(np.r_[session.world.q[:7], positions])
    assert np.abs(q - session.world.q[: avatar.model.nq]).max() < 1e-12
    with pytest.raises(CommandError, match="ball joints"):
        session.command_positions(np.zeros(len(avatar.joint_names)))


@pytest.mark.parametrize(
    ("motion", "match"),
    [
        ("[{t: 0.5, posture: standing}, {t: 0.5, posture: reach}]", "times must increase"),
        ("[{t: 0, posture: dance}]", "no such posture"),
        ("[{t: -1, posture: standing}]", "robot.motion\\[0\\].t"),
        ("{t: 0, posture: standing}", "list of keyframes"),
    ],
)
def test_a_bad_motion_is_refused_with_its_field(tmp_path, motion, match):
    from humanoid_model.exceptions import SceneError
    from humanoid_model.scene import load_scene

    p = tmp_path / "s.yaml"
    p.write_text(f"robot: {{name: avatar, motion: {motion}}}\n")
    with pytest.raises(SceneError, match=match):
        load_scene(p)


def test_generated_files_are_up_to_date():
    """avatar.urdf / avatar.yaml are outputs of urdf/avatar_generate.py."""
    import importlib.util

    urdf = REPO / "urdf"
    spec = importlib.util.spec_from_file_location("avatar_generate", urdf / "avatar_generate.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (urdf / "avatar.urdf").read_text() == gen.urdf_text()
    assert (urdf / "avatar.yaml").read_text() == gen.yaml_text()


def test_a_bag_of_the_avatar_replays_its_ball_joints(tmp_path, avatar):
    """A bag's /joint_states holds a ball joint as the URDF's revolute triple (as the simulator
    node publishes it, docs/recording.md); the bag replay turns the triple back into the ball
    joint's quaternion, naming no joint unknown."""
    from humanoid_sim.runtime.recording import record_run
    from humanoid_viewer.bag_replay import load_bag_recording

    w = World.from_scene("avatar_push")
    path = record_run(w, 20, tmp_path / "run", every=10, format="mcap")
    notes = []
    rec = load_bag_recording(path, avatar, notes.append)
    q = rec.frame(len(rec) - 1)[0]
    assert notes == [] and len(rec) == 3
    for jid in range(1, avatar.model.njoints):  # a quaternion and its negative are the same rotation
        j = avatar.model.joints[jid]
        got, want = q[j.idx_q : j.idx_q + j.nq], w.q[j.idx_q : j.idx_q + j.nq]
        if j.shortname() == "JointModelSpherical":
            assert min(np.abs(got - want).max(), np.abs(got + want).max()) < 1e-9
        else:
            assert np.abs(got - want).max() < 1e-9
