"""One module per `humanoid-stack` subcommand.

Each module defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
`humanoid_stack.cli` lists them in ``COMMANDS``; heavy imports go inside ``run``.
"""
