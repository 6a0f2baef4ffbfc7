"""A sagittal gait (GAIT.json: BIP's optimal gait, Chessé 2002) walked in 3-D on the ground by the
whole-body controller: where the robot starts, a stance before and after the gait, the lateral
sway that balances it and the swing feet's lift.

The gait is planar: its CoM stays in the sagittal plane (y = 0) while each foot is at its hip's y
(BIP: ±0.11 m), so in single support the CoM would be 0.11 m beside the stance foot and the robot
would fall sideways. The controller walks it with a lateral CoM reference y(t) whose ZMP stays in
the stance foot in single support and moves from one foot to the other in double support: the
cart-table model's preview control (Kajita et al., ICRA 2003;
`humanoid_planner.walking_pattern.preview`, as HRP-2's walking pattern) of the ZMP reference
`zmp_reference` made from the contact schedule. The CoM's sagittal reference, the joints' and the
feet's stay the gait's; the joints the gait does not move (hip roll and yaw, ankle roll, the
trunk) keep their posture reference 0 at the posture task's low weight and move as the CoM task
needs.

    scene = gait_start_scene(scene, doc)             # the robot placed at the gait's first sample
    ref = lateral_balance(reference, controller)     # stances, lateral sway, lifted swing feet

`lateral_balance` makes the walk go from rest to rest on both feet:

- before the gait, a stance of `LEAD` seconds in its first configuration on both soles: the foot
  that swings first is unloaded over the stance's last `RAMP` seconds while the CoM moves over the
  other foot (the planar gait lifts it at once, from rest);
- after it, a stance of `TAIL` seconds in its last configuration: the foot that lands last (flat,
  beside the other, as the gait's stop step ends) becomes a contact, loaded over `RAMP`, and the
  CoM returns between the feet;
- the swing feet's frame references are lifted by `LIFT` (`lift_swing_feet`): the gait's swing
  foot grazes the ground.

The reference keeps the file's times: the stance before the gait runs from −`LEAD` to 0.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_model.formats.detect import document_kind
from humanoid_planner.walking_pattern.preview import PreviewController

__all__ = [
    "GaitSettings",
    "is_gait",
    "gait_start_scene",
    "lateral_balance",
    "zmp_reference",
    "lift_swing_feet",
    "LEAD",
    "TAIL",
    "RAMP",
    "LIFT",
    "LIFT_RAMP",
]

LEAD = 1.5  # [s] (chosen) the stance before the gait: the preview moves the CoM over a foot in ~1 s
TAIL = 1.5  # [s] (chosen) the stance after it: the CoM back between the feet (within 1 mm, 3 mm/s)
RAMP = 0.5  # [s] (chosen: the motion sources' longest ramp) a foot unloaded before the gait, loaded after it
PERIOD = 0.005  # [s] the preview's period and the stances' sampling (the walking pattern's, Kajita 2003)
LIFT = 0.02  # [m] (chosen) the swing foot's lift: BIP's swing sole then clears the ground by 19 mm
LIFT_RAMP = 0.1  # [s] (chosen: a fifth of BIP's single support) the lift grows and vanishes over this


@dataclass
class GaitSettings:
    """How a gait is walked in 3-D (module docstring): ``sway`` the lateral CoM reference (False:
    the gait's own, y constant: BIP falls in its second cyclic step,
    test/execution/test_execute_gait.py); ``lead``, ``tail`` [s] the stances before and after the
    gait; ``lift`` [m] the swing feet's lift (0: none)."""

    sway: bool = True
    lead: float = LEAD
    tail: float = TAIL
    lift: float = LIFT


def is_gait(doc) -> bool:
    """Whether a decoded motion document is a GAIT.json (a trajectory with gait phases)."""
    return isinstance(doc, dict) and document_kind(doc) == "trajectory" and isinstance(doc.get("phases"), list)


def gait_start_scene(scene, doc: dict, src: str = "motion"):
    """``scene`` with its robot placed at the gait's first sample (base pose and joint angles): a
    gait starts from its own rest posture on the scene's ground, wherever the scene puts its
    robot. A scene without a robot is returned as it is."""
    if scene.robot is None:
        return scene
    from humanoid_model.scene_geometry import Pose

    tr = doc.get("trajectory")
    try:
        base = np.asarray(tr["base_pose"][0], float)
        names = tr.get("joint_names", doc.get("joint_names"))
        joints = dict(zip(names, (float(x) for x in tr["joint_positions"][0]), strict=True))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise ControlError(
            f"{src}: a gait needs its first base pose and joint angles (trajectory, joint_names)"
        ) from None
    if base.shape != (7,) or not np.all(np.isfinite(base)) or not np.all(np.isfinite(list(joints.values()))):
        raise ControlError(f"{src}: the gait's first base pose and joint angles must be finite (7 + n values)")
    spec = dataclasses.replace(
        scene.robot, posture=None, joints=joints, base=Pose(base[:3], base[3:]), placement=Pose()
    )
    return dataclasses.replace(scene, robot=spec)


def _feet(reference, controller) -> dict:
    """{foot link: its contact phases by start} of the reference's phases."""
    feet: dict = {}
    for ph in reference.phases:
        feet.setdefault(controller.link(ph.location), []).append(ph)
    return {link: sorted(phs, key=lambda ph: ph.start) for link, phs in feet.items()}


def _foot_load(phases, t: np.ndarray) -> np.ndarray:
    """A foot's load fraction at times t: its phases joined where one ends as the next begins (the
    heel handing over to the sole), each run loaded and unloaded by its first and last ramps."""
    runs: list[ContactPhase] = []
    for ph in phases:
        if runs and abs(runs[-1].end - ph.start) < 1e-9:
            runs[-1] = dataclasses.replace(runs[-1], end=ph.end, ramp_out=ph.ramp_out)
        else:
            runs.append(dataclasses.replace(ph))
    out = np.zeros(len(t))
    for run in runs:
        out = np.maximum(out, [run.load(x) for x in t])
    return out


def zmp_reference(reference, controller, t: np.ndarray) -> np.ndarray:
    """The lateral ZMP reference (len(t),) [m]: the feet's planned y weighted by their load
    fractions (`_foot_load`): the stance foot's y in single support, from one foot to the other over
    a double support's ramps; where no foot is loaded, the last value."""
    weights, ys = [], []
    for phases in _feet(reference, controller).values():
        weights.append(_foot_load(phases, t))
        ys.append(np.mean([ph.placement.translation[1] for ph in phases]))
    W, Y = np.array(weights), np.array(ys)
    total = W.sum(axis=0)
    held = total > 1e-9
    if not held.any():
        raise ControlError(f"{reference.source}: no foot holds the robot: no lateral ZMP reference")
    p = np.zeros(len(t))
    p[held] = (Y @ W[:, held]) / total[held]
    last = np.maximum.accumulate(np.where(held, np.arange(len(t)), -1))  # the last held sample
    return p[np.where(last >= 0, last, int(np.argmax(held)))]


def _stances(reference, controller, lead: float, tail: float) -> MotionReference:
    """The reference with a stance before and after it (module docstring): its first and last
    configurations held, sampled every `PERIOD`, the first swing foot's sole held until the gait
    starts and the last landing foot's from its end."""
    t, q = reference.t, reference.q
    before = np.arange(t[0] - lead, t[0] - 0.5 * PERIOD, PERIOD)
    after = np.arange(t[-1] + PERIOD, t[-1] + tail + 0.5 * PERIOD, PERIOD)
    t_new = np.concatenate([before, t, after])
    q_new = np.vstack([np.repeat(q[:1], len(before), axis=0), q, np.repeat(q[-1:], len(after), axis=0)])
    phases = [dataclasses.replace(ph) for ph in reference.phases]
    for phs in _feet(reference, controller).values():
        sole = next((ph.location for ph in phs if ph.location.endswith("_sole")), phs[0].location)
        if lead > 0 and all(ph.start > t[0] for ph in phs):  # free when the gait starts: stands until then
            phases.append(ContactPhase(sole, -np.inf, float(t[0]), 0.0, min(RAMP, lead)))
        if tail > 0 and all(ph.end < t[-1] for ph in phs):  # free when the gait ends: it lands there
            phases.append(ContactPhase(sole, float(t[-1]), np.inf, min(RAMP, tail), 0.0))
    frames = {name: fid for name, (_, fid) in controller.locations.items()}
    return MotionReference(reference.model, t_new, q_new, phases, frames, reference.base_frame, reference.source)


def _smoothstep(x):
    """(s, s', s'') of the quintic step 10x³ − 15x⁴ + 6x⁵ on [0, 1] (0 before, 1 after): its speed
    and acceleration are continuous, zero at both ends."""
    x = np.clip(x, 0.0, 1.0)
    return x**3 * (10 - 15 * x + 6 * x**2), 30 * x**2 * (1 - x) ** 2, 60 * x * (1 - x) * (1 - 2 * x)


def lift_swing_feet(reference, controller, height: float = LIFT, ramp: float = LIFT_RAMP) -> None:
    """Lift each swinging foot's frame references by ``height`` [m], in place. The optimal gait's
    swing clearance is a penalty (Chessé 2002, eq. (II.14)): its swing toe skims the ground after
    lift-off and its heel before landing (within 2 mm over most of BIP's single support). The lift
    grows smoothly over ``ramp`` [s] after lift-off and vanishes over ``ramp`` before landing
    (`_smoothstep`: positions, speeds and accelerations alike, continuous)."""
    if height <= 0:
        return
    t = reference.t
    for link, phases in _feet(reference, controller).items():
        spans = sorted((ph.start, ph.end) for ph in phases)
        lift, rate, accel = np.zeros(len(t)), np.zeros(len(t)), np.zeros(len(t))
        for (_, a), (b, _) in zip(spans[:-1], spans[1:], strict=True):  # a: lift-off, b: landing
            if b <= a:
                continue
            r = min(ramp, 0.5 * (b - a))
            (u, du, ddu), (d, dd, ddd) = _smoothstep((t - a) / r), _smoothstep((b - t) / r)
            swing = (t > a) & (t < b)
            lift += np.where(swing, height * u * d, 0.0)
            rate += np.where(swing, height * (du * d - u * dd) / r, 0.0)
            accel += np.where(swing, height * (ddu * d - 2 * du * dd + u * ddd) / r**2, 0.0)
        for name in reference.locations:
            if controller.link(name) == link:
                _, p, vel, acc = reference.frames[name]
                p[:, 2] += lift
                vel[:, 2] += rate
                acc[:, 2] += accel


def lateral_balance(reference, controller, settings: GaitSettings | None = None) -> MotionReference:
    """The gait ``reference`` (`humanoid_control.wbc.sources.gait.gait_reference`) of
    ``controller`` (a `WholeBodyController`) made a 3-D walk (module docstring): the stances
    before and after it, the swing feet lifted and the lateral CoM reference of the preview control
    of `zmp_reference`. The reference's ``nominal_duration`` includes the stances."""
    s = settings or GaitSettings()
    ref = _stances(reference, controller, float(s.lead), float(s.tail))
    lift_swing_feet(ref, controller, float(s.lift))
    if s.sway:
        grid = np.arange(ref.start, ref.end + 0.5 * PERIOD, PERIOD)
        ground = float(np.mean([ph.placement.translation[2] for ph in ref.phases]))
        preview = PreviewController(float(np.mean(ref.com[:, 2])) - ground, dt=PERIOD)
        states, _ = preview.run(zmp_reference(ref, controller, grid), x0=ref.com[0, 1])
        for column, rows in zip(states.T, (ref.com, ref.com_v, ref.com_a), strict=True):
            rows[:, 1] = np.interp(ref.t, grid, column)
    return ref
