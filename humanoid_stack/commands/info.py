"""`humanoid-stack info ROBOT`: joints, limits, mass, height and contact locations as tables."""

from pathlib import Path

HELP = "print a robot's joints, limits, mass, height and contact locations"
COMPILES = False  # runs no numba kernel: the compilation notice (cli.main) would only import numba
DESCRIPTION = """Print a robot model summary.

ROBOT is a shipped robot name (hrp2, bip) or a path to any URDF file.

examples:
  humanoid-stack info hrp2
  humanoid-stack info bip --planar
  humanoid-stack info /path/to/talos_reduced.urdf
"""


def add_arguments(parser):
    parser.add_argument("robot", help="shipped robot name (hrp2, bip) or path to a URDF file")
    parser.add_argument(
        "--planar", action="store_true", help="the sagittal (planar) reduction, where the robot has one"
    )
    parser.add_argument("--posture", default=None, help="posture used for the height (default: the robot's default)")


def _table(headers, rows):
    rows = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def format_info(robot, posture=None) -> str:
    import numpy as np
    import pinocchio as pin

    n = len(robot.dof_names)  # a ball joint's three axes count three (docs/avatar.md)
    out = [
        f"pinocchio  {pin.__version__} ({Path(pin.__file__).parent})",
        f"robot      {robot.name}{' (planar)' if robot.planar else ''}",
        f"urdf       {robot.urdf_path}",
        f"mass       {robot.mass:.3f} kg",
        f"height     {robot.height(posture):.3f} m (posture '{posture or robot.default_posture}')",
        f"DOF        {n} actuated + 6 (free-flyer root): nq = {robot.nq}, nv = {robot.nv}",
        f"postures   {', '.join(robot.postures)} (default: {robot.default_posture})",
        "",
    ]
    deg = 180.0 / np.pi
    rows = [
        [name, f"{lo * deg:8.1f}", f"{hi * deg:8.1f}", f"{v:6.2f}", f"{e:7.1f}"]
        for name, lo, hi, v, e in zip(robot.dof_names, robot.q_lower, robot.q_upper, robot.v_max, robot.effort_max)
    ]
    out.append(_table(["joint", "min [deg]", "max [deg]", "vmax [rad/s]", "effort [N m]"], rows))
    out.append("")
    rows = [
        [c.name, c.kind, c.body, np.round(c.point, 4).tolist(), np.round(c.normal, 3).tolist(), len(c.hull)]
        for c in robot.contact_locations.values()
    ]
    out.append(_table(["contact", "kind", "body", "point [m]", "inward normal", "hull pts"], rows))
    return "\n".join(out)


def run(args):
    from humanoid_model.robot import load_robot

    robot = load_robot(args.robot, planar=args.planar)
    print(format_info(robot, args.posture))
    return 0
