"""Joint friction and rotor inertia (armature): the per-joint terms added to the rigid-body model.

    tau_j += Ia_j qdd_j + fv_j qd_j + fc_j sign(qd_j)

* ``fv`` viscous friction [N m s/rad] or [N s/m]: URDF ``<joint><dynamics damping>``;
* ``fc`` Coulomb friction [N m] or [N]: URDF ``<joint><dynamics friction>``; sign(0) = 0 (no
  stiction model: at rest the friction term is zero);
* ``Ia`` rotor inertia reflected at the joint [kg m^2] or [kg]: the robot YAML ``armature:``
  (``NAME.yaml`` beside ``NAME.urdf``, `humanoid_model.urdf_description.Sidecar`), the value
  Pinocchio puts in ``model.armature`` (it adds to the mass-matrix diagonal).

Both are optional in every output and off by default (`JointTerms.none`). Joints created by the
expansion of floating/planar joints get no terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from humanoid_model.exceptions import ModelError
from humanoid_model.urdf_description import read_sidecar

from .urdf import TreeModel

__all__ = ["JointTerms", "joint_terms"]


@dataclass(frozen=True)
class JointTerms:
    """Per joint name: armature ``Ia``, viscous ``fv`` and Coulomb ``fc`` (absent names: 0)."""

    armature: dict = field(default_factory=dict)
    viscous: dict = field(default_factory=dict)
    coulomb: dict = field(default_factory=dict)

    @classmethod
    def none(cls) -> JointTerms:
        return cls()

    @property
    def empty(self) -> bool:
        return not (self.armature or self.viscous or self.coulomb)

    def effort(self, name, qd, qdd, accelerations=True) -> sp.Expr:
        """Ia qdd + fv qd + fc sign(qd) for joint `name` (numbers folded; zero terms dropped)."""
        from .ne import num

        out = sp.S.Zero
        if accelerations and self.armature.get(name, 0.0):
            out += num(self.armature[name]) * qdd
        if self.viscous.get(name, 0.0):
            out += num(self.viscous[name]) * qd
        if self.coulomb.get(name, 0.0):
            out += num(self.coulomb[name]) * sp.sign(qd)
        return out


def joint_terms(model: TreeModel, urdf_path=None, friction: bool = False, armature: bool = False) -> JointTerms:
    """The terms selected: ``friction`` from the URDF ``<dynamics>`` of each joint (kept in
    `model`), ``armature`` from the YAML sidecar of `urdf_path` (`ModelError` when it is missing,
    names an unknown joint or gives a value that is not a finite number >= 0)."""
    vis = {j.name: j.damping for j in model.joints if friction and j.damping}
    cou = {j.name: j.friction for j in model.joints if friction and j.friction}
    arm = {}
    if armature:
        if urdf_path is None or not Path(str(urdf_path)).is_file():
            raise ModelError(f"{urdf_path}: --armature needs a URDF file with a NAME.yaml beside it")
        sidecar = read_sidecar(Path(urdf_path))
        if sidecar is None:
            raise ModelError(f"{Path(urdf_path).with_suffix('.yaml')}: no robot YAML beside the URDF (armature:)")
        names = set(model.joint_names)
        for name, value in sidecar.armature.items():
            if name not in names:
                raise ModelError(f"{sidecar.path}: armature: unknown joint '{name}'")
            try:
                v = float(value)
            except (TypeError, ValueError):
                v = math.nan
            if not (math.isfinite(v) and v >= 0):
                raise ModelError(f"{sidecar.path}: armature.{name} = {value!r}: must be a finite number >= 0 [kg m^2]")
            if v:
                arm[name] = v
    return JointTerms(arm, vis, cou)
