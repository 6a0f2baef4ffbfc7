"""`humanoid-stack mad2urdf FILE.mad --output-dir DIR`: convert a thesis MAD file to URDF + sidecar."""

HELP = "convert a MAD robot description (Fluckiger 1998) to URDF + kinematic sidecar (.kin.yaml)"
DESCRIPTION = """Convert a MAD file (the robot description format of Fluckiger's CINEGEN thesis:
Khalil-Kleinfinger link parameters, extra frames, loop-closure and sensor constraints) into
DIR/NAME.urdf and DIR/NAME.kin.yaml (NAME: the MAD file's name without .mad).

Each MAD link becomes a revolute (type 2) or prismatic (type 1) joint about z, its origin built
from the KK parameters; frames become fixed joints; constraints between links/frames become
weld closures in the sidecar, constraints with sensors its input sources; `range` limits are
relative to the initial value, `limits` absolute. Lengths are converted with --length-unit
(default 0.001: mm to m), angles from degrees to radians. Rules: docs/kinematics_mad.md.

A malformed file is one line on standard error, FILE:LINE: what; found 'TOKEN', exit status 2.
Bounds (docs/kinematics_mad.md): a file of at most 16 MiB, at most 10,000 links and frames (and as
many constraints), numbers within +-1e9 (finite), ids of at most 9 digits, --length-unit up to
1000; a regular file only (a FIFO or a device is refused at once).

examples:
  humanoid-stack mad2urdf urdf/kinematics/hybrid_planar.mad --output-dir /tmp/hybrid
  humanoid-stack mad2urdf robot.mad --output-dir out --length-unit 1   # file already in metres
"""


def add_arguments(parser):
    parser.add_argument("mad", metavar="FILE.mad", help="MAD file to convert")
    parser.add_argument(
        "--output-dir",
        "-o",
        required=True,
        metavar="DIR",
        help="folder for NAME.urdf and NAME.kin.yaml (created in an existing folder)",
    )
    parser.add_argument(
        "--length-unit",
        type=float,
        default=0.001,
        metavar="M",
        help="metres per length unit of the file (default: 0.001, the thesis's files are in mm)",
    )


def run(args) -> int:
    from humanoid_control.kinematics.mad import write_converted

    urdf_path, sidecar_path = write_converted(args.mad, args.output_dir, args.length_unit)
    print(urdf_path)
    print(sidecar_path)
    return 0
