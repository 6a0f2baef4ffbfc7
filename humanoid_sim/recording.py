"""Headless-run recordings (format in ``docs/recording.md``).

rec = Recorder(world, every=10)
for _ in range(n):
    world.step()
    rec.maybe_record()
rec.save("run.json")
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ConfigError

__all__ = ["Recorder", "FORMAT"]

FORMAT = "humanoid_stack.sim_recording/1"


def _r(x, nd=9):
    return np.round(np.asarray(x, float), nd).tolist()


class Recorder:
    """Samples a `World` every ``every`` steps (and at t = 0)."""

    def __init__(self, world, every: int = 1, contacts: bool = True):
        if int(every) < 1:
            raise ConfigError(f"recording: field 'record_every' must be >= 1; value {every!r}")
        self.world, self.every, self.with_contacts = world, int(every), contacts
        self.t = []
        self.bodies = {}
        self.joints = {"names": [], "positions": [], "velocities": [], "torques": []}
        self.contacts = []
        self.record()

    def maybe_record(self):
        """Record when the world's step count is a multiple of ``every``."""
        if self.world.steps % self.every == 0:
            self.record()

    def record(self):
        """Append one sample of the world's state (and contacts)."""
        w = self.world
        st = w.state
        self.t.append(round(float(st.t), 12))
        for name, b in st.bodies.items():
            d = self.bodies.setdefault(
                name, {"position": [], "quaternion": [], "linear_velocity": [], "angular_velocity": []}
            )
            d["position"].append(_r(b.position))
            d["quaternion"].append(_r(b.quaternion, 12))
            d["linear_velocity"].append(_r(b.linear_velocity))
            d["angular_velocity"].append(_r(b.angular_velocity))
        if st.joint_names:
            self.joints["names"] = st.joint_names
            self.joints["positions"].append(_r(st.joint_positions))
            self.joints["velocities"].append(_r(st.joint_velocities))
            self.joints["torques"].append(_r(st.joint_torques, 6))
        if self.with_contacts:
            self.contacts.append(
                [
                    {
                        k: (_r(v) if isinstance(v, list) else (round(v, 12) if isinstance(v, float) else v))
                        for k, v in c.items()
                    }
                    for c in w.contact_list()
                ]
            )

    def document(self) -> dict:
        """The recording as a JSON-ready dict (docs/recording.md)."""
        w = self.world
        s = w.stats()
        stats = {
            "steps": s["steps"],
            "dt": w.dt,
            "solver": s["solver"],
            "median_step_time": s["median_step_time"],
            "max_step_time": s["max_step_time"],
            "mean_step_time": s["mean_step_time"],
            "stage_time": s["stage_time"],
            "solver_iterations": {
                "total": s["iterations_total"],
                "max": s["iterations_max"],
                "mean": s["iterations_total"] / max(s["steps"], 1),
            },
            "unconverged_solves": s["unconverged_solves"],
            "impacts": s["impacts"],
            "max_residuals": s["max_residuals"],
        }
        src = getattr(w.scene, "source", None)
        doc = {
            "format": FORMAT,
            "scene": str(src) if src is not None else w.scene.name,
            "scene_name": w.scene.name,
            "robot": w.robot.name if w.robot is not None else None,
            "t": self.t,
            "bodies": self.bodies,
        }
        if self.joints["names"]:
            doc["joints"] = self.joints
        doc["contacts"] = self.contacts
        doc["stats"] = stats
        return doc

    def save(self, path):
        """Write the document to ``path`` (parents created); ConfigError when it cannot."""
        p = Path(path)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(json.dumps(self.document(), allow_nan=False))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"recording: cannot write field 'output' = {str(p)!r}: {exc}") from None
        return p
