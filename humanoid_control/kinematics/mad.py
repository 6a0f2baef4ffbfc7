"""MAD importer: the thesis's robot descriptions (Flückiger 1998) as URDF + kinematic sidecar.

``convert(mad_path) -> (urdf_text, sidecar)`` and ``write_converted(mad_path, out_dir)``. The syntax
is read by `humanoid_control.kinematics.mad_parser`; this module applies the conversion rules of
`docs/kinematics_mad.md` (Flückiger 1998, ch. 4 and Appendices A-B):

- a MAD link j becomes URDF joint ``joint<j>`` (revolute for ``type 2``, prismatic for ``type 1``,
  Flückiger 1998, §4.1.2.3) from its ``pred``'s link to link ``link<j>``, axis z. Its origin is the
  Khalil-Kleinfinger transform ``Rz(γ)·Tz(ε)·Rx(α)·Tx(d)·Rz(θ)·Tz(r)`` (Flückiger 1998, §3.2.2.3,
  closed form eq. (3.9) with its sign typo corrected, see `kk_transform`) without the joint
  variable: for a revolute joint ``Rz(γ)Tz(ε)Rx(α)Tx(d)Tz(r)`` and q = θ, for a prismatic one
  ``Rz(γ)Tz(ε)Rx(α)Tx(d)Rz(θ)`` and q = r (Rz(θ) and Tz(r) commute). The file's θ (or r) is the
  initial value (§4.1.2.3), written to ``initial``;
- a MAD frame (référentiel, §4.1.2.4) becomes a fixed joint ``frame<k>_joint`` to an empty link
  ``frame<k>``, placed by ``pos`` and ``ori`` with R = Rx(a)·Ry(b)·Rz(c) (the thesis does not state
  the convention; chosen: the only order with which the example files' loops close, see `euler_xyz`);
- lengths are multiplied by ``length_unit`` (default 0.001: the examples are in mm), angles are
  degrees (§4.1.2.3);
- ``limits {lo hi}`` are absolute URDF limits; ``range {lo hi}`` are relative to the initial value
  (§4.1.2.3): the URDF gets ``initial + range`` and the sidecar's ``limits.relative`` keeps the
  range itself;
- ``constraint {A B}`` between links/frames is a ``weld`` closure (§4.1.2.6, Table 4-1),
  ``balljoint {A B}`` a ``ball`` one (the "rotule" block of Appendix A, whose syntax the thesis
  does not print); ``constraint {A sensor (ids)}`` lists A's input sources (sensor 0 = ``none``,
  §4.1.2.6), in the file's order.

Passive joints are ordinary joints (a MAD file does not say which joints are actuated).
"""

from __future__ import annotations

import heapq
import math
from pathlib import Path

import numpy as np

from humanoid_control.exceptions import MadError
from humanoid_control.kinematics.mad_parser import Link, MadFile, MadRobot, read_mad
from humanoid_model.files import write_text

__all__ = [
    "kk_transform",
    "kk_joint_origin",
    "euler_xyz",
    "matrix_to_rpy",
    "source_names",
    "convert",
    "convert_mad",
    "write_converted",
    "SIDECAR_SUFFIX",
]

SIDECAR_SUFFIX = ".kin.yaml"
MAX_LENGTH_UNIT = 1000.0  #: [m] largest length unit (chosen: a file in km; with the parser's MAX_NUMBER, 1e12 m)
DIGITS = 12  #: decimals written for metres and radians (deterministic text, 1e-12 m)
#: sensor ``type`` -> source name in the sidecar (the pilot's input names; others: ``sensor<N>``)
SOURCE_OF_TYPE = {"spaceball": "mouse", "panel": "panel"}


# -- elementary transforms ------------------------------------------------------------------------
def _cs(deg: float) -> tuple[float, float]:
    """(cos, sin) of an angle in degrees, exact at multiples of 90° (so 90° leaves no 6e-17)."""
    q, rem = divmod(float(deg), 90.0)
    if rem == 0.0:
        return [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][int(q) % 4]
    a = math.radians(deg)
    return math.cos(a), math.sin(a)


def _rx(deg):
    c, s = _cs(deg)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _ry(deg):
    c, s = _cs(deg)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rz(deg):
    c, s = _cs(deg)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def kk_transform(gamma=0.0, epsilon=0.0, alpha=0.0, d=0.0, theta=0.0, r=0.0) -> np.ndarray:
    """The 4x4 transform from the parent frame i to link frame j, in closed form (angles in degrees,
    lengths in any unit): ``iTj = Rz(γ)·Tz(ε)·Rx(α)·Tx(d)·Rz(θ)·Tz(r)`` (Flückiger 1998, §3.2.2.3),
    with the y translation ``d·sinγ − r·cosγ·sinα``: the thesis's closed form, eq. (3.9), prints
    ``+ r·cosγ·sinα``, a sign typo (the product of the six elementary transforms gives ``−``)."""
    cg, sg = _cs(gamma)
    ca, sa = _cs(alpha)
    ct, st = _cs(theta)
    return np.array(
        [
            [cg * ct - sg * ca * st, -cg * st - sg * ca * ct, sg * sa, d * cg + r * sg * sa],
            [sg * ct + cg * ca * st, -sg * st + cg * ca * ct, -cg * sa, d * sg - r * cg * sa],
            [sa * st, sa * ct, ca, r * ca + epsilon],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


def kk_joint_origin(params: dict, joint_type: int) -> tuple[np.ndarray, float]:
    """(fixed part F of the KK transform, initial joint value) of a MAD link, file units and degrees.

    Revolute (type 2): ``iTj = F·Rz(θ)``, ``F = kk_transform(γ, ε, α, d, 0, r)``, q0 = θ.
    Prismatic (type 1): ``iTj = F·Tz(r)``, ``F = kk_transform(γ, ε, α, d, θ, 0)``, q0 = r
    (Rz(θ) and Tz(r) commute)."""
    g, e = params.get("gamma", 0.0), params.get("epsil", 0.0)
    a, d, t, r = params["alpha"], params["d"], params["theta"], params["r"]
    if joint_type == 2:
        return kk_transform(g, e, a, d, 0.0, r), t
    return kk_transform(g, e, a, d, t, 0.0), r


def euler_xyz(ori_deg) -> np.ndarray:
    """Rotation of a MAD ``ori {a b c}`` (degrees): R = Rx(a)·Ry(b)·Rz(c). The thesis does not state
    the convention (Flückiger 1998, §4.1.2.4); chosen: the hybrid robot's frame 8 ``ori {0 0 60}``
    closes its loop only if the third angle is about z, the Cross-Delta's frames ``ori {±90 0 0}``
    only if the first is about x."""
    a, b, c = ori_deg
    return _rx(a) @ _ry(b) @ _rz(c)


def matrix_to_rpy(R) -> tuple[float, float, float]:
    """URDF (roll, pitch, yaw) of a rotation matrix: R = Rz(yaw)·Ry(pitch)·Rx(roll)."""
    R = np.where(np.abs(R) < 1e-15, 0.0, np.asarray(R, dtype=float))  # no -0.0 / 1e-17 sign flips
    pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
    if math.hypot(R[0, 0], R[1, 0]) > 1e-12:
        roll = math.atan2(R[2, 1], R[2, 2])
        yaw = math.atan2(R[1, 0], R[0, 0])
    else:  # gimbal lock: pitch = ±90°, only roll ∓ yaw is defined; take yaw = 0
        roll = math.atan2(-R[1, 2], R[1, 1])  # R[1,2] = -sin(roll ∓ yaw), R[1,1] = cos(...)
        yaw = 0.0
    return roll, pitch, yaw


# -- text ------------------------------------------------------------------------------------------
def _num(x: float) -> str:
    """A number with at most DIGITS decimals, no trailing zeros, no '-0'; `MadError` for a
    non-finite one (the parser's bounds keep every value finite: never written as 'inf' or 'nan')."""
    if not math.isfinite(x):
        raise MadError(f"a converted value is not finite ({x}): not written")
    text = f"{round(float(x), DIGITS):.{DIGITS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _vec(values) -> str:
    return " ".join(_num(v) for v in values)


def _rounded(x: float) -> float:
    return float(_num(x))


def source_names(mad: MadFile) -> dict[int, str]:
    """Sidecar source name of each declared sensor id: 0 -> ``none`` (the null sensor,
    Flückiger 1998, §4.1.2.6), a ``spaceball`` -> ``mouse`` (the 6-DOF mouse, geometry_msgs/Twist), a
    ``panel`` -> ``panel``, any other -> ``sensor<N>``; a repeated name gets the sensor id appended."""
    out = {0: "none"}
    for sid in sorted(mad.sensors):
        if sid == 0:
            continue
        base = SOURCE_OF_TYPE.get((mad.sensors[sid].type or "").lower(), f"sensor{sid}")
        out[sid] = base if base not in out.values() else f"{base}{sid}"
    return out


# -- conversion ------------------------------------------------------------------------------------
def _names(robot: MadRobot, prefix: str):
    link = {0: f"{prefix}base"}
    for i in robot.links:
        link[i] = f"{prefix}link{i}"
    for i in robot.frames:
        link[i] = f"{prefix}frame{i}"
    return link


def _origin(T: np.ndarray, unit: float) -> str:
    return f'<origin xyz="{_vec(T[:3, 3] * unit)}" rpy="{_vec(matrix_to_rpy(T[:3, :3]))}"/>'


def _parents_first(robot: MadRobot, src: str) -> list:
    """The links and frames in file order, except that an element waits for its pred (a pred may
    be declared later in the file): at each step the earliest declared element whose pred is
    placed. A heap of the ready elements keeps it n log n."""
    declared = sorted([*robot.links.values(), *robot.frames.values()], key=lambda el: el.line)  # stable
    children: dict[int, list] = {}
    for rank, el in enumerate(declared):
        children.setdefault(el.pred, []).append((rank, el))
    ready = list(children.get(0, []))
    heapq.heapify(ready)
    order = []
    while ready:
        _, el = heapq.heappop(ready)
        order.append(el)
        for item in children.get(el.id, []):
            heapq.heappush(ready, item)
    if len(order) != len(robot.links) + len(robot.frames):  # cannot happen: the parser checked the chains
        placed = {el.id for el in order}
        el = next(e for e in [*robot.links.values(), *robot.frames.values()] if e.id not in placed)
        raise MadError(f"{src}:{el.pred_line}: unreachable pred; found '{el.pred}'")
    return order


def _robot_urdf(
    robot: MadRobot, mad: MadFile, unit: float, prefix: str, sidecar: dict, out: list[str], parent: str | None
):
    names = _names(robot, prefix)
    src = mad.source
    b = robot.base
    if parent is not None or any(b.pos) or any(b.ori):
        root = parent or f"{prefix}base_mount"
        if parent is None:
            out.append(f'  <link name="{root}"/>')
        T = np.eye(4)
        T[:3, :3] = euler_xyz(b.ori)
        T[:3, 3] = b.pos
        out += [
            f'  <link name="{names[0]}"/>',
            f'  <joint name="{prefix}base_joint" type="fixed">',
            f'    <parent link="{root}"/>',
            f'    <child link="{names[0]}"/>',
            f"    {_origin(T, unit)}",
            "  </joint>",
        ]
    else:
        out.append(f'  <link name="{names[0]}"/>')
    for el in _parents_first(robot, src):
        if isinstance(el, Link):
            F, q0_file = kk_joint_origin(el.params, el.type)
            revolute = el.type == 2
            q0 = math.radians(q0_file) if revolute else q0_file * unit
            jname = f"{prefix}joint{el.id}"
            conv = math.radians if revolute else (lambda v: v * unit)
            lim = None
            if el.limits is not None:
                lim = (conv(el.limits[0]), conv(el.limits[1]))
            elif el.range is not None:
                lim = (q0 + conv(el.range[0]), q0 + conv(el.range[1]))
                sidecar["limits"]["relative"][jname] = [_rounded(conv(el.range[0])), _rounded(conv(el.range[1]))]
            if lim is not None and not (lim[0] - 1e-9 <= q0 <= lim[1] + 1e-9):
                kw = "limits" if el.limits is not None else "range"
                given = el.limits or el.range
                raise MadError(
                    f"{src}:{el.line}: link {el.id}: initial value {q0_file:g} outside its {kw} "
                    f"{{{given[0]:g} {given[1]:g}}}; found '{q0_file:g}'"
                )
            jtype = ("revolute" if lim is not None else "continuous") if revolute else "prismatic"
            out += [
                f'  <link name="{names[el.id]}"/>',
                f'  <joint name="{jname}" type="{jtype}">',
                f'    <parent link="{names[el.pred]}"/>',
                f'    <child link="{names[el.id]}"/>',
                f"    {_origin(F, unit)}",
                '    <axis xyz="0 0 1"/>',
            ]
            if lim is None and not revolute:
                lim = (-1e3, 1e3)  # a prismatic URDF joint needs limits; MAD gave none: ±1 km
            if lim is not None:
                out.append(f'    <limit lower="{_num(lim[0])}" upper="{_num(lim[1])}" effort="0" velocity="0"/>')
            out.append("  </joint>")
            sidecar["initial"][jname] = _rounded(q0)
        else:
            T = np.eye(4)
            T[:3, :3] = euler_xyz(el.ori)
            T[:3, 3] = el.pos
            out += [
                f'  <link name="{names[el.id]}"/>',
                f'  <joint name="{names[el.id]}_joint" type="fixed">',
                f'    <parent link="{names[el.pred]}"/>',
                f'    <child link="{names[el.id]}"/>',
                f"    {_origin(T, unit)}",
                "  </joint>",
            ]
    sources = source_names(mad)
    for c in robot.constraints:
        elems = [e for e in c.elems if e[0] != "sensor"]
        sensor = [e for e in c.elems if e[0] == "sensor"]
        if sensor:
            (_, ref, _), (_, ids, _) = elems[0], sensor[0]
            entry = sidecar["sources"].setdefault(names[ref], [])
            entry += [sources[s] for s in ids if sources[s] not in entry]
        else:
            k = len(sidecar["closures"]) + 1
            sidecar["closures"].append(
                {
                    "name": f"{prefix}loop{k}",
                    "type": "weld" if c.kind == "constraint" else "ball",
                    "frame_a": names[elems[0][1]],
                    "frame_b": names[elems[1][1]],
                }
            )


def convert_mad(mad: MadFile, urdf_name: str, length_unit: float = 0.001) -> tuple[str, dict]:
    """(URDF text, sidecar dict) of a parsed MAD file; ``urdf_name`` is the sidecar's ``urdf``."""
    if not (math.isfinite(length_unit) and 0 < length_unit <= MAX_LENGTH_UNIT):
        raise MadError(
            f"{mad.source}: length_unit must be a number > 0 and <= {MAX_LENGTH_UNIT:g} [m per file unit]; "
            f"value {length_unit!r}"
        )
    sidecar = {
        "urdf": urdf_name,
        "floating": False,
        "frames": [],
        "closures": [],
        "sources": {},
        "limits": {"absolute": {}, "relative": {}},
        "initial": {},
    }
    several = len(mad.robots) > 1
    name = mad.scene if several else mad.robots[0].name
    source_file = Path(mad.source).name
    out = [
        '<?xml version="1.0"?>',
        f"<!-- Generated from {source_file} by humanoid_control.kinematics.mad (humanoid-stack mad2urdf):",
        "     do not edit, convert again. Kinematics only (no inertia, no geometry); lengths in m,",
        "     angles in rad; loop closures, input sources, relative limits and the initial",
        "     configuration are in the .kin.yaml sidecar. Conversion rules: docs/kinematics_mad.md -->",
        f'<robot name="{name}">',
    ]
    if several:
        out.append('  <link name="scene"/>')
    for robot in mad.robots:
        prefix = f"{robot.name}_" if several else ""
        _robot_urdf(robot, mad, length_unit, prefix, sidecar, out, "scene" if several else None)
    out.append("</robot>")
    return "\n".join(out) + "\n", sidecar


def convert(mad_path, length_unit: float = 0.001) -> tuple[str, dict]:
    """(URDF text, sidecar dict) of a MAD file. The sidecar's ``urdf`` is ``<stem>.urdf`` (the file
    `write_converted` writes next to it). `MadError` names the file, the line and the token."""
    mad = read_mad(mad_path)
    return convert_mad(mad, f"{_stem(mad_path)}.urdf", length_unit)


def _stem(path) -> str:
    name = Path(path).name
    return name[: -len(".mad")] if name.lower().endswith(".mad") else Path(name).stem


def sidecar_text(sidecar: dict, source_name: str) -> str:
    """The sidecar as YAML text (a header comment, then the keys in the contract's order)."""
    import yaml

    body = yaml.safe_dump(sidecar, sort_keys=False, default_flow_style=None, width=100, allow_unicode=True)
    return (
        f"# Generated from {source_name} by humanoid_control.kinematics.mad (humanoid-stack mad2urdf):\n"
        "# do not edit, convert again. Format: humanoid_control/kinematics/sidecar.py; rules: docs/kinematics_mad.md\n"
        + body
    )


def write_converted(mad_path, out_dir, length_unit: float = 0.001) -> tuple[Path, Path]:
    """Convert a MAD file and write ``<out_dir>/<stem>.urdf`` and ``<out_dir>/<stem>.kin.yaml``
    (the folder ``out_dir`` created if missing, in an existing folder: it is the command's output
    folder, and no other folder is made on the user's behalf); each file is written
    atomically (`humanoid_model.files.write_text`: a failed write leaves no partial file). Returns
    the two paths."""
    urdf_text, sidecar = convert(mad_path, length_unit)
    out = Path(out_dir)
    stem = _stem(mad_path)
    urdf_path, side_path = out / f"{stem}.urdf", out / f"{stem}{SIDECAR_SUFFIX}"
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise MadError(f"{out}: cannot create the output folder ({exc.strerror or exc})") from None
    write_text(urdf_path, urdf_text, "URDF", MadError)
    write_text(side_path, sidecar_text(sidecar, Path(mad_path).name), "kinematic sidecar", MadError)
    return urdf_path, side_path
