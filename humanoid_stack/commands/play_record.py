"""The ``--record`` options of the commands that play a motion in the simulator after planning it
(``box-lift --play``, ``lift --play``): the simulated run written as a recording that ``view --replay``
plays (a rosbag2 bag with MCAP storage, or JSON Lines; `humanoid_sim.runtime.recording`,
docs/recording.md), the free bodies (the box) included."""

from __future__ import annotations

__all__ = ["add_record_arguments", "recorder"]

#: the recording's default step: every 10th simulator step, 10 ms (as ``simulate`` and ``execute``)
RECORD_EVERY = 10


def add_record_arguments(parser):
    parser.add_argument(
        "--record",
        default=None,
        metavar="RUN",
        help="with --play: record the simulated run, a bag folder (mcap) or RUN.jsonl (jsonl); "
        "'humanoid-stack view --replay RUN' plays it",
    )
    parser.add_argument(
        "--record-format",
        choices=("mcap", "jsonl"),
        default=None,
        help="recording format (default: jsonl when RUN ends in .jsonl or .json, else mcap; docs/recording.md)",
    )
    parser.add_argument(
        "--record-every",
        type=int,
        default=RECORD_EVERY,
        metavar="N",
        help=f"record every N simulator steps (default {RECORD_EVERY})",
    )


def recorder(args, command: str):
    """The ``record`` argument of a playback (a function of the world returning its
    `humanoid_sim.runtime.recording.Recorder`), or None without ``--record``. `ConfigError` in one
    line, before anything runs, for ``--record`` without ``--play``, a bad ``--record-every`` or an
    output that cannot be written (`check_recording_output`)."""
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.validation import integer, message
    from humanoid_sim.runtime.recording import Recorder, check_recording_output

    every = integer(args.record_every, command, "--record-every", minimum=1, maximum=1000)
    if args.record is None:
        return None
    if not args.play:
        raise ConfigError(message(command, "--record", "given with --play (it records the simulated run)", args.record))
    fmt = check_recording_output(args.record, args.record_format)
    return lambda world: Recorder(world, args.record, every=every, format=fmt)
