"""Dynamic-model generator: readable inverse-dynamics code generated from a URDF.

After Canovas's URDF2DynamicModel (a world-frame recursive Newton-Euler, Canovas, §2.2 and §3.3), with
the errors of the report's printed equations and listing corrected (docs/dynmodel.md). No ROS imports.

    from humanoid_model import dynmodel
    model = dynmodel.parse_urdf("robot.urdf")                  # or the XML text
    src = dynmodel.generate(model, "python", gravity=(0, -9.81, 0))
    mod = dynmodel.load_python(src)
    tau = mod.inverse_dynamics(q, qd, qdd)                     # order: mod.JOINT_NAMES
    values = mod.quantities(q, qd, qdd)                        # per-joint / per-link vectors

Models (``generate(..., model=...)``, `MODELS`): ``inverse_dynamics`` (default), ``mass_matrix``
M(q) (symbolic CRBA, `models`), ``nle`` h(q, qd) = C qd + g, ``regressor`` Y(q, qd, qdd) with
tau = Y pi (`regressor`), ``base_regressor`` (numerical QR, `base_parameters`); joint friction and
armature (`joint_terms`) are optional in each.

Languages: ``python`` (module text), ``c`` (header + source, see `printers.to_c`), ``latex``
(document), ``casadi`` (a module building ``casadi.Function`` objects from SX symbols,
`casadi_printer`), ``sympy`` (Lagrange closed forms M(q), C(q, qd) qd, g(q) as LaTeX; small robots),
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
    "MODELS",
    "build_function",
]

LANGUAGES = ("python", "c", "latex", "casadi", "sympy", "snippet")
MODELS = ("inverse_dynamics", "mass_matrix", "nle", "regressor", "base_regressor")


def _model(urdf_or_model, floating_base=False) -> TreeModel:
    if isinstance(urdf_or_model, TreeModel):
        return urdf_or_model
    return parse_urdf(urdf_or_model, floating_base=floating_base)


def build_function(model: TreeModel, kind: str, gravity=(0.0, 0.0, -9.81), terms=None):
    """The `Function` of a model other than inverse dynamics (`MODELS`)."""
    from .base_parameters import base_regressor
    from .models import mass_matrix, nonlinear_effects
    from .regressor import regressor

    if kind == "mass_matrix":
        return mass_matrix(model, terms)
    if kind == "nle":
        return nonlinear_effects(model, gravity, terms)
    if kind == "regressor":
        return regressor(model, gravity, terms)
    if kind == "base_regressor":
        return base_regressor(model, gravity, terms)[0]
    raise ValueError(f"unknown model {kind!r}; choose one of {MODELS}")


def generate(
    urdf_or_model,
    lang: str = "python",
    gravity=(0.0, 0.0, -9.81),
    floating_base=False,
    model="inverse_dynamics",
    terms=None,
):
    """Generated text for `lang`; for ``c`` a tuple (header, source).

    `model` is one of `MODELS`; `terms` a `joint_terms.JointTerms` (friction, armature; default none).
    For the models other than inverse dynamics, ``sympy`` is a SymPy script of the closed forms."""
    kind = model
    model = _model(urdf_or_model, floating_base)
    if kind != "inverse_dynamics":
        from .function_printers import print_function

        if lang == "snippet":
            return input_snippet(model)
        return print_function(build_function(model, kind, gravity, terms), lang)
    if terms is not None and not terms.empty:
        from .models import inverse_dynamics

        if lang in ("sympy", "snippet"):
            from humanoid_model.exceptions import ConfigError

            raise ConfigError(
                f"--lang {lang}: the inverse dynamics with joint friction/armature is printed in python, c and latex"
            )
        from .casadi_printer import to_casadi

        P = inverse_dynamics(model, gravity, terms)
        return {"python": to_python, "c": to_c, "latex": to_latex, "casadi": to_casadi}[lang](P)
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
    if lang == "casadi":
        from .casadi_printer import to_casadi

        return to_casadi(P)
    raise ValueError(f"unknown language {lang!r}; choose one of {LANGUAGES}")


def load_python(source: str, name: str = "generated_dynmodel") -> types.ModuleType:
    """Execute generated Python text as a module object."""
    mod = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def input_snippet(model: TreeModel) -> str:
    """The report's input-naming snippet (Canovas, §3.3): one named variable per joint
    position, velocity and acceleration, packed into q, qd, qdd in the generated code's order."""
    from .urdf import identifier
    from .wrap import wrap_text

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
        lines += wrap_text(f"{vec} = np.array([" + ", ".join(f"gv_{kind}_{i}" for i in ids) + "])", "    ")
    return "\n".join(lines) + "\n"
