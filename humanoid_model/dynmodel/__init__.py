"""Dynamic-model generator: readable inverse-dynamics code generated from a URDF.

Spec: ``../shared/spec/004_canovas.md`` (§2.5 formulation, §5 acceptance tests). No ROS imports.

    from humanoid_model import dynmodel
    model = dynmodel.parse_urdf("robot.urdf")                  # or the XML text
    src = dynmodel.generate(model, "python", gravity=(0, -9.81, 0))
    mod = dynmodel.load_python(src)
    tau = mod.inverse_dynamics(q, qd, qdd)                     # order: mod.JOINT_NAMES
    values = mod.quantities(q, qd, qdd)                        # per-joint / per-link vectors

Languages: ``python`` (module text), ``c`` (header + source, see `printers.to_c`), ``latex``
(document), ``sympy`` (Lagrange closed forms M(q), C(q, qd) qd, g(q) as LaTeX; small robots),
``snippet`` (the report's input-naming snippet, ``gv_position_<joint>`` ...).
"""

from __future__ import annotations

import types

from .ne import Program, build_program
from .printers import c_prefix, to_c, to_latex, to_python
from .urdf import Body, Joint, TreeModel, parse_urdf

__all__ = [
    "Body",
    "Joint",
    "TreeModel",
    "Program",
    "parse_urdf",
    "build_program",
    "generate",
    "to_python",
    "to_c",
    "to_latex",
    "load_python",
    "input_snippet",
    "c_prefix",
    "LANGUAGES",
]

LANGUAGES = ("python", "c", "latex", "sympy", "snippet")


def _model(urdf_or_model, floating_base=False) -> TreeModel:
    if isinstance(urdf_or_model, TreeModel):
        return urdf_or_model
    return parse_urdf(urdf_or_model, floating_base=floating_base)


def generate(urdf_or_model, lang: str = "python", gravity=(0.0, 0.0, -9.81), floating_base=False):
    """Generated text for `lang`; for ``c`` a tuple (header, source)."""
    model = _model(urdf_or_model, floating_base)
    if lang == "sympy":
        from .lagrange import lagrange
        from .lagrange import to_latex as lagrange_latex

        return lagrange_latex(lagrange(model, gravity))
    if lang == "snippet":
        return input_snippet(model)
    P = build_program(model, gravity)
    if lang == "python":
        return to_python(P)
    if lang == "c":
        return to_c(P)
    if lang == "latex":
        return to_latex(P)
    raise ValueError(f"unknown language {lang!r}; choose one of {LANGUAGES}")


def load_python(source: str, name: str = "generated_dynmodel") -> types.ModuleType:
    """Execute generated Python text as a module object."""
    mod = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def input_snippet(model: TreeModel) -> str:
    """The report's input-naming snippet (spec §2.8, L728-742): one named variable per joint
    position, velocity and acceleration, packed into q, qd, qdd in the generated code's order."""
    from .urdf import identifier

    lines = [
        f"# Inputs of the generated inverse dynamics of '{model.name}' (fill in, then call",
        "# inverse_dynamics(q, qd, qdd)). Units: rad, rad/s, rad/s^2 (revolute); m, m/s, m/s^2 (prismatic).",
        "import numpy as np",
        "",
    ]
    for j in model.joints:
        i = identifier(j.name)
        lines.append(f"gv_position_{i} = 0.0\ngv_velocity_{i} = 0.0\ngv_acceleration_{i} = 0.0")
    ids = [identifier(j.name) for j in model.joints]
    for vec, kind in (("q", "position"), ("qd", "velocity"), ("qdd", "acceleration")):
        lines.append(f"{vec} = np.array([" + ", ".join(f"gv_{kind}_{i}" for i in ids) + "])")
    return "\n".join(lines) + "\n"
