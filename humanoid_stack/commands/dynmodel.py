"""`humanoid-stack dynmodel URDF`: generate the inverse-dynamics model of a robot as code."""

HELP = "generate readable dynamic-model code (inverse dynamics, mass matrix, regressor...) from a URDF"
COMPILES = False  # runs no numba kernel: the compilation notice (cli.main) would only import numba
DESCRIPTION = """Generate the inverse dynamic model tau = f(q, qd, qdd, f_ext) of a robot as
straight-line world-frame Newton-Euler code, one block per joint and link, named after the URDF,
or (--model) its mass matrix, nonlinear effects or inertial-parameter regressor.

URDF is a path to a URDF file, a shipped robot (hrp2, bip) or a bundled example
(2r: the report's planar 2R robot, human36: the 36-DoF human body 3P33R).

models (--model):
  inverse_dynamics  tau(q, qd, qdd, f_ext) (default)
  mass_matrix       M(q), symbolic composite-rigid-body algorithm
  nle               h(q, qd) = C(q, qd) qd + g(q), Newton-Euler at qdd = 0
  regressor         Y(q, qd, qdd), tau = Y pi, 10 parameters per link
                    [m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about the link origin, link axes
  base_regressor    Y_b, tau = Y_b beta: base parameters by numerical QR on random states
  --friction adds URDF <dynamics damping friction> (viscous, Coulomb); --armature adds the robot
  YAML armature (rotor inertia); both are off by default.

languages:
  python   a module with inverse_dynamics(q, qd, qdd, f_ext=None) -> tau and quantities(...)
  c        a .c file and a .h header (with --out FILE.c the header goes to FILE.h); links with -lm
  latex    the equations, as a LaTeX document
  casadi   a module building casadi.Function objects from SX symbols: inverse_dynamics(q, qd, qdd, f_ext) and
           link_frames(q) (world origin and orientation of each link); other models: NAME(q[, qd[, qdd]])
  sympy    inverse_dynamics: Lagrange closed forms M(q), C(q, qd) qd, g(q) in LaTeX (small robots only,
           see --max-dof); other models: a SymPy script that builds the closed forms
  snippet  the input-naming snippet (gv_position_<joint>, gv_velocity_<joint>, gv_acceleration_<joint>)

examples:
  humanoid-stack dynmodel 2r --gravity 0 -9.81 0 --out robot_2r.py
  humanoid-stack dynmodel hrp2 --lang c --out hrp2_dynmodel.c
  humanoid-stack dynmodel bip --floating-base --lang latex --out bip.tex
  humanoid-stack dynmodel 2r --lang sympy --gravity 0 -9.81 0
  humanoid-stack dynmodel hrp2 --model mass_matrix --lang c --out hrp2_mass_matrix.c
  humanoid-stack dynmodel bip --model nle --lang casadi --out bip_nle_casadi.py
  humanoid-stack dynmodel bip --model base_regressor --friction --armature --out bip_base.py
"""
EXAMPLES = {"2r": "robot_2R.urdf", "human36": "human36.urdf"}


#: (chosen) the largest --max-dof: symbolic Lagrange on BIP's 15 DoF takes 16 s on a test machine, on the
#: 36 DoF of human36 more than 2 min: 20 keeps `--lang sympy` within minutes
MAX_SYMPY_DOF = 20


def add_arguments(parser):
    parser.add_argument("urdf", help="URDF file, shipped robot name (hrp2, bip) or bundled example (2r, human36)")
    parser.add_argument(
        "--lang",
        default="python",
        choices=["python", "c", "latex", "casadi", "sympy", "snippet"],
        help="output language (default: python)",
    )
    parser.add_argument(
        "--gravity",
        nargs=3,
        type=float,
        default=[0.0, 0.0, -9.81],
        metavar=("X", "Y", "Z"),
        help="gravity vector in world axes [m/s^2] (default: 0 0 -9.81)",
    )
    parser.add_argument(
        "--out", default=None, help="output file (default: standard output); missing parent folders are created"
    )
    parser.add_argument(
        "--floating-base",
        action="store_true",
        help="add a 3P+3R floating base (root_x ... root_roll) above the root link",
    )
    parser.add_argument(
        "--model",
        default="inverse_dynamics",
        choices=["inverse_dynamics", "mass_matrix", "nle", "regressor", "base_regressor"],
        help="what to generate (default: inverse_dynamics)",
    )
    parser.add_argument(
        "--friction",
        action="store_true",
        help="add joint friction from the URDF <dynamics damping friction>: fv qd + fc sign(qd) (default: off)",
    )
    parser.add_argument(
        "--armature",
        action="store_true",
        help="add rotor inertia Ia qdd from the robot YAML 'armature:' beside the URDF (default: off)",
    )
    parser.add_argument(
        "--max-dof",
        type=int,
        default=6,
        help=f"largest DoF accepted by --lang sympy, at most {MAX_SYMPY_DOF} (default: 6; the time grows fast)",
    )


def resolve_urdf(name):
    """Path of a URDF file, a shipped robot or a bundled example (rule of
    `humanoid_model.paths.resolve`; example names in any case)."""
    from pathlib import Path

    import humanoid_model
    from humanoid_model.exceptions import UnknownRobotError
    from humanoid_model.paths import resolve, shipped_files, urdf_dir

    data = Path(humanoid_model.__file__).resolve().parent / "dynmodel" / "data"
    shipped = {**shipped_files(urdf_dir(), ".urdf"), **{k: data / f for k, f in EXAMPLES.items()}}
    text = str(name)
    if text.lower() in EXAMPLES and not Path(text).is_file():
        text = text.lower()
    return resolve(text, shipped, "robot or example", (".urdf",), UnknownRobotError, file_kind="URDF file")


def _write(path, text):
    """Write an output file (parent folders created, as --out documents), atomically
    (`humanoid_model.files.write_text`); an OS error becomes a clear ConfigError."""
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import write_text

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {path}: cannot write the file ({exc.strerror or exc})") from None
    write_text(path, text, "--out file", ConfigError)


def run(args):
    import math
    from pathlib import Path

    from humanoid_model import dynmodel
    from humanoid_model.exceptions import ConfigError

    if not all(math.isfinite(g) for g in args.gravity):
        raise ConfigError(f"--gravity {args.gravity}: the three components must be finite numbers")
    if not 1 <= args.max_dof <= MAX_SYMPY_DOF:
        raise ConfigError(f"--max-dof {args.max_dof}: must be >= 1 and <= {MAX_SYMPY_DOF}")
    from humanoid_model.dynmodel.joint_terms import joint_terms

    path = resolve_urdf(args.urdf)
    model = dynmodel.parse_urdf(path, floating_base=args.floating_base)
    kind = getattr(args, "model", "inverse_dynamics")
    terms = joint_terms(model, path, getattr(args, "friction", False), getattr(args, "armature", False))
    if kind == "inverse_dynamics" and args.lang == "sympy" and model.nv > args.max_dof:
        raise ConfigError(
            f"--lang sympy: robot '{model.name}' has {model.nv} DoF, more than --max-dof "
            f"{args.max_dof}; symbolic Lagrange is for small robots (use --lang latex)"
        )
    out = Path(args.out) if args.out else None
    if args.lang == "c":
        header_name = out.with_suffix(".h").name if out else None
        if kind != "inverse_dynamics":
            from humanoid_model.dynmodel.function_printers import function_to_c

            h, c = function_to_c(dynmodel.build_function(model, kind, args.gravity, terms), header_name=header_name)
        else:
            from humanoid_model.dynmodel.models import inverse_dynamics

            h, c = dynmodel.to_c(inverse_dynamics(model, args.gravity, terms), header_name=header_name)
        if out:
            _write(out.with_suffix(".h"), h)
            _write(out, c)
            print(f"wrote {out.with_suffix('.h')} and {out}")
        else:
            print(h)
            print(c)
        return 0
    text = dynmodel.generate(model, args.lang, gravity=args.gravity, model=kind, terms=terms)
    if out:
        _write(out, text)
        print(f"wrote {out} ({kind}, {args.lang}, {model.nv} DoF, joints: {', '.join(model.joint_names)})")
    else:
        print(text, end="")
    return 0
