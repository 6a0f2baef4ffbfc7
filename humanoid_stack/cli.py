"""`humanoid-stack` command: a thin dispatcher over `humanoid_stack.commands.<name>` modules."""

from __future__ import annotations

import argparse
import importlib
import sys

from humanoid_model.exceptions import HumanoidStackError
from humanoid_stack.compile_notice import announce_compilation

#: exit status of a command interrupted by Ctrl-C (SIGINT): 128 + 2, as a shell reports a process SIGINT ended.
#: The serving commands (view, pilot, up, demo) run until Ctrl-C: it is their normal end, exit 0.
EXIT_INTERRUPTED = 130

# Subcommand name -> module in humanoid_stack.commands. Order is the order shown in --help.
COMMANDS = [
    "info",
    "view",
    "demo",
    "simulate",
    "plan",
    "gait",
    "walk",
    "lift",
    "box-lift",
    "execute",
    "sweep",
    "dynmodel",
    "pilot",
    "mad2urdf",
    "up",
    "lifecycle",
    "ros",
]


def _load(name):
    module = f"humanoid_stack.commands.{name.replace('-', '_')}"  # box-lift: commands/box_lift.py
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None  # not implemented in this version
        raise


def available_commands() -> list[str]:
    """The subcommands this version provides, in --help order: the names in `COMMANDS` whose
    module `humanoid_stack.commands.<name>` exists (the parser's subcommands)."""
    return [name for name in COMMANDS if _load(name) is not None]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="humanoid-stack",
        description="Humanoid robotics stack: models, simulator, planners, viewer. "
        "Run 'humanoid-stack COMMAND --help' for the options of each command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in available_commands():
        mod = _load(name)
        p = sub.add_parser(
            name,
            help=mod.HELP,
            description=getattr(mod, "DESCRIPTION", mod.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    if getattr(_load(args.command), "COMPILES", True):  # a command that runs no kernel says COMPILES = False
        announce_compilation()  # at a terminal: one line when numba kernels compile on first use
    try:
        return int(args._run(args) or 0)
    except HumanoidStackError as exc:
        print(f"humanoid-stack {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C (SIGINT) before the command finished: no result, as a shell reports it
        what = getattr(_load(args.command), "INTERRUPTED", "stopped before the end")  # what is left on disk
        print(f"humanoid-stack {args.command}: interrupted (Ctrl-C): {what}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into `head` & co.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
