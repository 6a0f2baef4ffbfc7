"""Motion sources: the reference and contact schedule (`humanoid_control.wbc.reference`) of each
file the stack writes, for the whole-body controller.

- `plan`: PLAN.json, a contact plan (`humanoid-stack plan`);
- `walk`: WALK.json, a walking pattern (`humanoid-stack walk`);
- `gait`: GAIT.json, an optimal gait of the sagittal BIP biped (`humanoid-stack gait`).

    ref = load_motion("PLAN.json", robot, controller, scene)   # the file's kind is detected
"""

from __future__ import annotations

from pathlib import Path

from humanoid_control.exceptions import ControlError
from humanoid_model.formats.detect import document_kind, read_format_file
from humanoid_model.formats.plan import parse_contact_plan
from humanoid_model.formats.trajectory import parse_trajectory, unconverged_phases

__all__ = ["load_motion", "motion_reference", "KINDS"]

KINDS = ("PLAN.json", "WALK.json", "GAIT.json")


def motion_reference(
    doc, src: str, robot, controller, scene=None, allow_unconverged: bool = False, balance_retiming: bool = True
):
    """The `MotionReference` of a decoded motion document ``doc`` (read from ``src``) for
    ``robot`` and ``controller``; ``scene`` the scene it runs in (its surfaces clip a plan's
    contacts). A contact plan's motion, statically stable, is slowed where its dynamics would need
    more than the support gives (``balance_retiming``, `humanoid_control.wbc.retime`), and its
    contacts are unloaded where the others can carry the robot (`humanoid_control.wbc.ramps`);
    the reference's ``nominal_duration`` is the file's. `ControlError` with one line for a document
    that is none of `KINDS`, a motion of another robot, a missing stance, a contact on a surface
    the scene does not have, non-finite values."""
    from humanoid_control.wbc.ramps import fit_unload_ramps
    from humanoid_control.wbc.retime import balance_rates, retime
    from humanoid_control.wbc.sources.gait import gait_reference
    from humanoid_control.wbc.sources.plan import plan_reference
    from humanoid_control.wbc.sources.walk import walk_reference

    kind = document_kind(doc)
    if kind == "plan":
        ref = plan_reference(parse_contact_plan(doc, src, ControlError), src, robot, controller, scene)
        if balance_retiming:
            ref = retime(ref, balance_rates(ref, controller))
        return fit_unload_ramps(ref, controller)
    if kind == "trajectory" and isinstance(doc.get("walking"), dict):
        return walk_reference(doc, parse_trajectory(doc, src, ControlError), src, robot, controller)
    if kind == "trajectory" and isinstance(doc.get("phases"), list):
        bad = unconverged_phases(doc, src, ControlError)
        if bad and not allow_unconverged:
            names = ", ".join(name for _, name in bad)
            raise ControlError(f"{src}: the gait solver did not converge on {names}: solve the gait again")
        return gait_reference(doc, parse_trajectory(doc, src, ControlError), src, robot, controller)
    raise ControlError(f"{src}: not a motion the whole-body controller executes (one of {', '.join(KINDS)})")


def load_motion(path, robot, controller, scene=None, allow_unconverged: bool = False):
    """`motion_reference` of the motion file ``path`` (read with the stack's bounded reader)."""
    src = str(Path(path))
    doc, stream = read_format_file(path, "motion file", ControlError)
    if stream is not None or not isinstance(doc, dict):
        raise ControlError(f"{src}: not a motion the whole-body controller executes (one of {', '.join(KINDS)})")
    return motion_reference(doc, src, robot, controller, scene, allow_unconverged)
