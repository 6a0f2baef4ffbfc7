"""Small planar test structures for the kinematic solver tests (URDF + sidecar written to a folder).

``parallelogram``: ground A=(0,0), B=(D,0); crank 1 (joint j1 at A, length L) carries the coupler
(joint j2, length D); crank 2 (joint j3 at B, length L) carries a stub (joint j4) whose frame
``cut`` must coincide with the coupler's end frame ``coupler_end`` (a weld: 6 rows for a planar
loop, over-constrained as the thesis's Hitachi-HPR, Flückiger 1998, §6.3.2). On the coupler a 2R arm
(j5, j6, lengths 0.3, 0.2) carries the ``tool`` frame. All axes are z: 6 joints, 1 loop, 3 DOF.
"""

from __future__ import annotations

import math
from pathlib import Path

D, L = 0.5, 0.4  # [m] ground/coupler length, crank length


def _joint(name, parent, child, xyz, lower=-3.0, upper=3.0, kind="revolute"):
    x, y, z = xyz
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{x} {y} {z}" rpy="0 0 0"/><axis xyz="0 0 1"/>'
        f'<limit lower="{lower}" upper="{upper}" effort="10" velocity="10"/></joint>'
    )


def _link(name):
    return (
        f'<link name="{name}"><inertial><mass value="1"/><origin xyz="0 0 0"/>'
        f'<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
    )


def parallelogram_urdf(z_error: float = 0.0) -> str:
    """URDF text; ``z_error`` [m] lifts the coupler's end frame out of the plane (the HPR's
    deliberate planarity error)."""
    links = ["base", "crank1", "coupler", "crank2", "stub", "arm1", "arm2"]
    joints = [
        _joint("j1", "base", "crank1", (0, 0, 0)),
        _joint("j2", "crank1", "coupler", (L, 0, 0)),
        _joint("j3", "base", "crank2", (D, 0, 0)),
        _joint("j4", "crank2", "stub", (L, 0, 0)),
        _joint("j5", "coupler", "arm1", (D / 2, 0, 0)),
        _joint("j6", "arm1", "arm2", (0.3, 0, 0)),
    ]
    fixed = (
        '<link name="coupler_end_link"/><joint name="coupler_end_joint" type="fixed"><parent link="coupler"/>'
        f'<child link="coupler_end_link"/><origin xyz="{D} 0 {z_error}" rpy="0 0 0"/></joint>'
    )
    body = "".join(_link(n) for n in links) + "".join(joints) + fixed
    return f'<?xml version="1.0"?><robot name="planar">{body}</robot>'


def write_parallelogram(folder: Path, crank: float = 0.6, z_error: float = 0.0, extra: str = "") -> Path:
    """Write ``planar.urdf`` and ``planar.kin.yaml`` (loop closed at crank angle ``crank`` [rad],
    arm at (0.5, -1.0) rad); returns the sidecar path."""
    folder = Path(folder)
    (folder / "planar.urdf").write_text(parallelogram_urdf(z_error))
    side = f"""urdf: planar.urdf
floating: false
frames:
  - {{name: cut, parent: stub}}
  - {{name: tool, parent: arm2, xyz: [0.2, 0, 0]}}
closures:
  - {{name: loop, type: weld, frame_a: cut, frame_b: coupler_end_link}}
sources:
  tool: [mouse, none]
initial: {{j1: {crank}, j2: {-crank}, j3: {crank}, j4: {-crank}, j5: 0.5, j6: -1.0}}
{extra}"""
    path = folder / "planar.kin.yaml"
    path.write_text(side)
    return path


def chain_urdf(n: int = 5, length: float = 0.3) -> str:
    """A planar serial chain of ``n`` revolute z joints, links ``length`` apart, frame ``tip`` at the end."""
    links = [f"l{i}" for i in range(n + 1)]
    joints = [_joint(f"q{i + 1}", links[i], links[i + 1], (0 if i == 0 else length, 0, 0)) for i in range(n)]
    tip = (
        f'<link name="tip"/><joint name="tip_joint" type="fixed"><parent link="{links[-1]}"/>'
        f'<child link="tip"/><origin xyz="{length} 0 0" rpy="0 0 0"/></joint>'
    )
    return f'<?xml version="1.0"?><robot name="chain">{"".join(_link(x) for x in links)}{"".join(joints)}{tip}</robot>'


def write_chain(folder: Path, n: int = 5) -> Path:
    folder = Path(folder)
    (folder / "chain.urdf").write_text(chain_urdf(n))
    init = ", ".join(f"q{i + 1}: {0.3 * (-1) ** i}" for i in range(n))
    path = folder / "chain.kin.yaml"
    path.write_text(f"urdf: chain.urdf\ninitial: {{{init}}}\n")
    return path


__all__ = ["write_parallelogram", "write_chain", "parallelogram_urdf", "chain_urdf", "D", "L", "math"]
