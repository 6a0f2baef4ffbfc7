"""External wrenches of a world: the scene's timed wrenches, the user's (`World.apply_wrench`,
optionally for a duration) and a scripted push schedule (`PushSchedule`, the simulator node's
``push.*`` parameters).

A wrench acts on a body (free body or robot link): a world-frame force [N] at a point given in
the body frame [m] and a world-frame torque [N·m]. Its generalised force is Jᵀ w with J the
world-frame Jacobian of the body's joint (`Wrenches.generalized_forces`). A user wrench given
a duration ends at the first step that starts at or after its end time (within half a step).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.scene_fields import MAX_FORCE, MAX_TORQUE  # one bound for scenes and users
from humanoid_model.validation import finite_number, finite_vector, message

__all__ = ["Wrenches", "PushSchedule", "MAX_FORCE", "MAX_TORQUE", "check_bounds"]


def check_bounds(force, torque, source: str, error=ConfigError, fields=("force", "torque")) -> None:
    """``error`` in the shared wording unless |force| ≤ MAX_FORCE [N] and |torque| ≤ MAX_TORQUE
    [N·m] (finite 3-vectors); ``fields`` name them in the message."""
    for field, x, bound, unit in ((fields[0], force, MAX_FORCE, "N"), (fields[1], torque, MAX_TORQUE, "N m")):
        if np.linalg.norm(x) > bound:
            raise error(message(source, field, f"of magnitude <= {bound:g} [{unit}]", x))


class Wrenches:
    """The wrenches of one world. model: the combined Pinocchio model; scene_wrenches: the scene's
    timed `humanoid_model.scene.Wrench` list; tree_cols: velocity indices of each mobile tree.

    ``user`` maps a body to its (force, torque, point) and ``until`` a body to the simulated
    time [s] its wrench ends (bodies without an end act until changed or cleared)."""

    def __init__(self, model, scene_wrenches, tree_cols):
        self.model = model
        self.scene = list(scene_wrenches)
        self.tree_cols = tree_cols
        self.user: dict[str, tuple] = {}
        self.until: dict[str, float] = {}

    def apply(self, body: str, force, torque, point, t: float, duration: float | None = None):
        """Apply a wrench on ``body`` from time t [s] on, for ``duration`` [s] (None: until
        changed or cleared). Every argument is checked before anything changes: a bad one raises
        `ConfigError` naming the argument and the value."""
        source = f"world: apply_wrench({body!r})"
        if not isinstance(body, str) or self.model.getFrameId(body) >= len(self.model.frames):
            raise ConfigError(message("world: apply_wrench", "body", "a free body or robot link name", body))
        vals = tuple(
            finite_vector(x, 3, source=source, field=name)
            for name, x in (("force", force), ("torque", torque), ("point", point))
        )
        check_bounds(vals[0], vals[1], source)
        end = None
        if duration is not None:
            end = t + finite_number(duration, source=source, field="duration", minimum=0.0, unit="s")
        self.user[body] = vals
        if end is None:
            self.until.pop(body, None)
        else:
            self.until[body] = end

    def clear(self):
        """Remove every user wrench."""
        self.user = {}
        self.until = {}

    def expire(self, t: float, dt: float):
        """Remove the user wrenches whose end time is reached at t [s] (within dt/2)."""
        if self.until:
            for body, end in list(self.until.items()):
                if t >= end - 0.5 * dt:
                    self.user.pop(body, None)
                    del self.until[body]

    def active(self, t: float) -> list[tuple]:
        """(body, force, torque, point) of every wrench acting at t [s]."""
        if not self.scene and not self.user:
            return []
        out = [(w.body, w.force, w.torque, w.point) for w in self.scene if w.active(t)]
        return out + [(b, f, tq, p) for b, (f, tq, p) in self.user.items()]

    def generalized_forces(self, data, masks, t: float):
        """Σ Jᵀ w of the wrenches acting at t (nv,) [N, N·m], or None when none acts. ``data``:
        after ``pin.computeJointJacobians``; masks: `humanoid_sim.stages.contacts.support_masks`."""
        if not self.scene and not self.user:
            return None
        tau = None
        model = self.model
        for body, force, torque, point in self.active(t):
            fid = model.getFrameId(body)
            if fid >= len(model.frames):
                continue
            fr = model.frames[fid]
            oMf = data.oMi[fr.parentJoint] * fr.placement
            p = oMf.act(np.asarray(point, float))
            force = np.asarray(force, float)
            wrench = np.concatenate([force, np.asarray(torque, float) + np.cross(p, force)])
            Jw = data.J * masks[fr.parentJoint]
            g = Jw.T @ wrench
            tau = g if tau is None else tau + g
        return tau

    def tree_of(self, body: str) -> int:
        """Index of the mobile tree that ``body`` belongs to (−1 if none)."""
        model = self.model
        j = model.frames[model.getFrameId(body)].parentJoint
        for t, cols in enumerate(self.tree_cols):
            if cols[0] <= model.joints[j].idx_v <= cols[-1]:
                return t
        return -1

    def pushed_trees(self, t: float) -> set[int]:
        """The mobile trees on which a wrench acts at t [s]."""
        return {self.tree_of(w[0]) for w in self.active(t)}


class PushSchedule:
    """A scripted push: from simulated time ``start`` [s] a world-frame ``force`` [N] and
    ``torque`` [N·m] at the origin of ``link`` for ``duration`` [s], repeated every ``period`` [s]
    when > 0 (else once). `apply_due` is called before each step."""

    def __init__(self, link: str, force, torque, start: float, duration: float, period: float = 0.0):
        self.link = link
        self.force, self.torque = np.asarray(force, float), np.asarray(torque, float)
        self.duration, self.period = float(duration), float(period)
        self.next = float(start)

    def apply_due(self, world) -> bool:
        """Apply the push on ``world`` if it is due at ``world.t`` (within half a step), ending at
        its scheduled end; returns whether it did."""
        if world.t < self.next - 0.5 * world.dt:
            return False
        end = self.next + self.duration
        world.apply_wrench(self.link, self.force, self.torque, duration=max(end - world.t, 0.0))
        self.next = self.next + self.period if self.period > 0 else np.inf
        return True
