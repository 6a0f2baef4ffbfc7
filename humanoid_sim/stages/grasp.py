"""Grasps: a stiff spring-damper between a point of one body and a point of another, the model of a
hand holding an object (`humanoid_sim.World.grasp`; docs/lifting.md, "The box lift played").

The thesis does not describe how its robot holds the box of the dynamic lift (Chardonnet 2009,
§5.2.1); this coupling is our model of a grasp. It is the haptic ``attach`` law (eq. (3.63),
`humanoid_sim.stages.haptics`) between two bodies instead of a body and a pointer. With x_a, x_b the
grasp point on body a (the hand) and on body b (the object), world frame, and their velocities:

    f_b = k (x_a − x_b) + c (ẋ_a − ẋ_b),   c = √(2 m k),   f_a = −f_b

both applied at x_b (a force on body a at a point of its rigid extension), so the pair's wrenches
are equal and opposite about every point (Newton's third law: the coupling changes neither the
linear nor the angular momentum of the two bodies together). The rotational half, when
``angular_stiffness`` k_r > 0, is the same law on the relative rotation: τ_b = k_r log(R_b* R_bᵀ) +
c_r (ω_a − ω_b), c_r = √(2 I k_r), τ_a = −τ_b, with R_b* = R_a R_rest the orientation body b had
relative to body a when grasped. k_r = 0 is a point (3-D) grasp: no moment at the grasp point.

m is the reduced mass m_a m_b / (m_a + m_b) of the two bodies' effective masses at the grasp point
(`haptics.effective_inertia`, the lightest direction of Λ, computed once at the grasp), I likewise.
The rest offset is zero: body b's grasp point is where body a's is at the grasp unless given. The
coupling is explicit (the state at the start of the step, like any external wrench): a stiffness
with √(k/m)·dt above `haptics.MAX_OMEGA_DT` is refused (too stiff a coupling diverges).

A world's grasps are part of its saved state (`World.get_state`: `Grasps.memory`, one dict per
grasp; `World.set_state`: `Grasps.restored`), so a run saved while a hand holds a body replays bit
for bit in a world that never grasped it.

Units: SI, world frame; ``wrench`` of a `Grasp` is (force, torque) on body b at ``point`` (world).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, finite_rows, finite_vector, message
from humanoid_sim.exceptions import CommandError
from humanoid_sim.stages.haptics import MAX_OMEGA_DT, effective_inertia

__all__ = ["Grasp", "Grasps"]

SOURCE = "world: grasp"


@dataclass
class Grasp:
    """One coupling (module docstring): bodies ``a`` (the hand) and ``b`` (the object), their
    frame ids, parent joints, trees and support masks; the grasp points in each body's frame [m];
    gains k [N/m], c [N·s/m], k_r [N·m/rad], c_r [N·m·s/rad]; after each step ``wrench`` (6,) the
    (force [N], torque [N·m]) on body b at the world ``point`` [m] (body a gets the opposite)."""

    a: str
    b: str
    frames: tuple
    joints: tuple
    trees: tuple
    masks: tuple
    point_a: np.ndarray
    point_b: np.ndarray
    R_rest: np.ndarray
    gains: tuple
    wrench: np.ndarray = field(default_factory=lambda: np.zeros(6))
    point: np.ndarray = field(default_factory=lambda: np.zeros(3))


class Grasps:
    """The grasps of one world (`World.grasp`, `World.release`); called by the actuators stage."""

    def __init__(self, world):
        self.world = world
        self.model = world.model
        self.data = world.model.createData()  # scratch for the effective masses
        self.couplings: dict[tuple[str, str], Grasp] = {}

    def _body(self, name, field_name, source=SOURCE, error=CommandError):
        model = self.model
        if not isinstance(name, str) or model.getFrameId(name) >= len(model.frames):
            raise error(message(source, field_name, "a free body or robot link name", name))
        fid = model.getFrameId(name)
        return fid, model.frames[fid].parentJoint

    def add(self, a: str, b: str, point=(0, 0, 0), point_b=None, stiffness: float = 1e4, angular_stiffness=0.0):
        """Grasp body ``b`` with body ``a`` (module docstring): ``point`` on a (its frame [m]),
        ``point_b`` on b (None: where a's point is now). `CommandError`, nothing changed, for an
        unknown body, a and b the same, a bad point or gain, or a stiffness too high for dt."""
        fa, ja = self._body(a, "link")
        fb, jb = self._body(b, "body")
        if ja == jb:
            raise CommandError(message(SOURCE, "body", f"a body that does not move with {a!r}", b))
        src = f"{SOURCE}({a!r}, {b!r})"
        kw = dict(source=src, error=CommandError)
        pa = finite_vector(point, 3, field="point", **kw)
        k = finite_number(stiffness, field="stiffness", minimum=0.0, strict=True, unit="N/m", **kw)
        kr = finite_number(angular_stiffness, field="angular_stiffness", minimum=0.0, unit="N m/rad", **kw)
        world, model, data = self.world, self.model, self.data
        pin.forwardKinematics(model, data, world.q)
        oMa = data.oMi[ja] * model.frames[fa].placement
        oMb = data.oMi[jb] * model.frames[fb].placement
        x = oMa.act(pa)
        pb = oMb.actInv(x) if point_b is None else finite_vector(point_b, 3, field="point_b", **kw)
        masses = []
        for j in (ja, jb):
            masses.append(effective_inertia(model, data, world.q, j, x, world.masks[j]))
        m = masses[0][0] * masses[1][0] / (masses[0][0] + masses[1][0])
        inertia = masses[0][1] * masses[1][1] / (masses[0][1] + masses[1][1])
        for name, gain, mass in (("stiffness", k, m), ("angular_stiffness", kr, inertia)):
            if gain > 0 and np.sqrt(gain / mass) * world.dt > MAX_OMEGA_DT:
                limit = MAX_OMEGA_DT**2 * mass / world.dt**2
                raise CommandError(
                    message(src, name, f"at most {limit:.6g} for m = {mass:.6g} and dt = {world.dt:g} s", gain)
                )
        gains = (k, np.sqrt(2.0 * m * k), kr, np.sqrt(2.0 * inertia * kr))
        trees = (world.wrenches.tree_of(a), world.wrenches.tree_of(b))
        g = Grasp(a, b, (fa, fb), (ja, jb), trees, (world.masks[ja], world.masks[jb]), pa, pb,
                  oMa.rotation.T @ oMb.rotation, gains)  # fmt: skip
        self.couplings[(a, b)] = g
        return g

    def memory(self) -> list[dict]:
        """What the next steps depend on (copies), one dict per grasp in the order they act:
        ``link`` and ``body`` (names of bodies a and b), ``point_a`` and ``point_b`` (each body's
        frame [m]), ``R_rest`` (3, 3), ``gains`` (k, c, k_r, c_r) and the last step's ``wrench``
        and ``point`` (`Grasp`)."""
        return [
            {
                "link": g.a,
                "body": g.b,
                "point_a": g.point_a.copy(),
                "point_b": g.point_b.copy(),
                "R_rest": g.R_rest.copy(),
                "gains": tuple(float(x) for x in g.gains),
                "wrench": np.array(g.wrench, float),
                "point": np.array(g.point, float),
            }
            for g in self.couplings.values()
        ]

    @classmethod
    def restored(cls, world, memory) -> Grasps | None:
        """The grasps of a `memory` rebuilt on ``world`` (None for None: a snapshot without
        grasps). `ConfigError`, nothing built, for a memory that is not a list of such dicts or
        names a body ``world`` does not have."""
        if memory is None:
            return None
        src = "world: set_state"
        if not isinstance(memory, (list, tuple)):
            raise ConfigError(message(src, "grasps", "a list of grasps (Grasps.memory)", memory))
        grasps = cls(world)
        keys = ("link", "body", "point_a", "point_b", "R_rest", "gains", "wrench", "point")
        for i, m in enumerate(memory):
            name = f"grasps[{i}]"
            if not isinstance(m, dict) or set(m) != set(keys):
                raise ConfigError(message(src, name, f"a dict of {', '.join(keys)}", m))
            kw = dict(source=src, error=ConfigError)
            fa, ja = grasps._body(m["link"], f"{name}.link", **kw)
            fb, jb = grasps._body(m["body"], f"{name}.body", **kw)
            if ja == jb:
                raise ConfigError(
                    message(src, f"{name}.body", f"a body that does not move with {m['link']!r}", m["body"])
                )
            gains = finite_vector(m["gains"], 4, field=f"{name}.gains", **kw)
            if np.any(gains < 0) or gains[0] <= 0:
                raise ConfigError(
                    message(src, f"{name}.gains", "(k, c, k_r, c_r) with k > 0 and none negative", m["gains"])
                )
            a, b = m["link"], m["body"]
            g = Grasp(
                a,
                b,
                (fa, fb),
                (ja, jb),
                (world.wrenches.tree_of(a), world.wrenches.tree_of(b)),
                (world.masks[ja], world.masks[jb]),
                finite_vector(m["point_a"], 3, field=f"{name}.point_a", **kw),
                finite_vector(m["point_b"], 3, field=f"{name}.point_b", **kw),
                finite_rows(m["R_rest"], 3, rows=3, field=f"{name}.R_rest", **kw),
                tuple(float(x) for x in gains),
                finite_vector(m["wrench"], 6, field=f"{name}.wrench", **kw),
                finite_vector(m["point"], 3, field=f"{name}.point", **kw),
            )
            grasps.couplings[(a, b)] = g
        return grasps

    def release(self, a: str | None = None, b: str | None = None):
        """Remove the grasps of body ``a`` (None: every one), on body ``b`` only if given.
        `CommandError` if none matches a given ``a``."""
        keys = [key for key in self.couplings if (a is None or key[0] == a) and (b is None or key[1] == b)]
        if a is not None and not keys:
            raise CommandError(message(f"{SOURCE}: release", "link", "a body that grasps", a))
        for key in keys:
            del self.couplings[key]

    @property
    def trees(self) -> set[int]:
        """The mobile trees the grasps push (excluded from the momentum projection)."""
        return {t for g in self.couplings.values() for t in g.trees}

    def __call__(self, data, v) -> np.ndarray | None:
        """Generalised forces (nv,) of the grasps at the step's start (``data`` after
        ``pin.computeJointJacobians``), or None without a grasp; sets each grasp's ``wrench``."""
        if not self.couplings:
            return None
        model = self.model
        tau = np.zeros(model.nv)
        for g in self.couplings.values():
            k, c, kr, cr = g.gains
            (fa, fb), (ja, jb) = g.frames, g.joints
            oMa = data.oMi[ja] * model.frames[fa].placement
            oMb = data.oMi[jb] * model.frames[fb].placement
            xa, xb = oMa.act(g.point_a), oMb.act(g.point_b)
            Ja, Jb = data.J * g.masks[0], data.J * g.masks[1]
            Va, Vb = Ja @ v, Jb @ v  # spatial velocities at the world origin
            va, vb = Va[:3] + np.cross(Va[3:], xa), Vb[:3] + np.cross(Vb[3:], xb)
            f = k * (xa - xb) + c * (va - vb)
            t = np.zeros(3)
            if kr > 0:
                t = kr * pin.log3(oMa.rotation @ g.R_rest @ oMb.rotation.T) + cr * (Va[3:] - Vb[3:])
            g.wrench, g.point = np.concatenate([f, t]), xb
            w = np.concatenate([f, t + np.cross(xb, f)])  # about the world origin
            tau += Jb.T @ w - Ja.T @ w
        return tau
