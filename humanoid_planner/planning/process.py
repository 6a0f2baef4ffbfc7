"""A planning run in a child process: `plan_in_process` plans a `PlanRequest` (what `problem_for`
and `run` need, by name and value) in a freshly spawned Python process and returns the run's
PLAN.json document (`plan_document`).

Why: `humanoid-stack up` runs every node of a node set in one process, and its simulator steps
at 1 kHz in a thread of that process. A plan in a thread there shares the interpreter's lock with
the simulator: the stairs plan of `make demo` took 173 s beside the simulator on a 2-core machine
against 79-97 s alone. In a process of its own it has a core of its own.

The child reports the search's `Progress` through a pipe; ``progress`` is called with it in the
caller's thread, and when it raises (a client's cancel) the child is terminated and the exception
is raised here. An error in the child comes back as a
`PlanningError` with its message. The child is spawned (not forked: the parent runs DDS threads)
and imports the stack once, about 2-5 s before the search starts (measured on a 2-core machine).
No ROS imports.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass

from humanoid_planner.contact.search import Progress
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.motion import MotionSettings

POLL = 0.1  # [s] (chosen) how often the caller checks the child's pipe and liveness
CANCEL_GRACE = 10.0  # [s] (chosen) longest wait for a terminated child to end


@dataclass(frozen=True)
class PlanRequest:
    """One plan: the scene (name or file, as `load_scene` takes it), the robot's name, the goal point
    (None: the scene's), the start configuration (None: the scene's), the goal region's half-width
    (None: the scene's), `PlannerSettings` overrides and the motion's settings."""

    scene: str
    robot: str
    goal: tuple | None = None
    start_q: object = None
    goal_radius: float | None = None
    overrides: dict | None = None
    motion: MotionSettings | None = None


def plan_request(request: PlanRequest, progress=None, scene=None, robot=None) -> dict:
    """The PLAN.json document of ``request``, planned in this process (``progress``: as `run`'s);
    ``scene``, ``robot``: the request's, already loaded (default: loaded here by name)."""
    from humanoid_model.robot import load_robot
    from humanoid_model.scene import load_scene

    from .plan_file import plan_document
    from .problem import problem_for
    from .run import run

    problem = problem_for(
        scene if scene is not None else load_scene(request.scene),
        robot if robot is not None else load_robot(request.robot),
        request.goal,
        start_q=request.start_q,
        goal_radius=request.goal_radius,
        **(request.overrides or {}),
    )
    return plan_document(run(problem, request.motion, progress))


def _child(conn, request: PlanRequest) -> None:
    """The child's side: plan, sending ("progress", Progress) messages, then ("done", document) or
    ("error", message)."""

    def progress(pr):
        conn.send(("progress", Progress(pr.generated, pr.expanded, float(pr.best), float(pr.elapsed))))

    try:
        conn.send(("done", plan_request(request, progress)))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
        from humanoid_model.exceptions import HumanoidStackError

        stack = isinstance(exc, HumanoidStackError)
        conn.send(("error", str(exc) if stack else f"internal error in the planning process: {exc!r}"))
    finally:
        conn.close()


def plan_in_process(request: PlanRequest, progress=None) -> dict:
    """The PLAN.json document of ``request``, planned in a spawned child process (module docstring);
    ``progress``: called with each `Progress` the child reports, in this thread; what it raises
    terminates the child and is raised here. Raises `PlanningError` with the child's error."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_child, args=(child, request), name="humanoid-planner", daemon=True)
    proc.start()
    child.close()
    try:
        while True:
            if not parent.poll(POLL) and proc.is_alive():
                continue
            try:  # a child that ended without a message leaves the pipe at its end: EOFError
                kind, value = parent.recv()
            except EOFError:
                proc.join(CANCEL_GRACE)
                raise PlanningError(
                    f"the planning process ended without a result (exit code {proc.exitcode})"
                ) from None
            if kind == "done":
                return value
            if kind == "error":
                raise PlanningError(value)
            if progress is not None:
                progress(value)  # what it raises (a cancel) ends the child below
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(CANCEL_GRACE)
        parent.close()
