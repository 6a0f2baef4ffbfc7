"""Where a plan's contact is unloaded: the unload ramp placed where the other contacts can carry
the robot.

A contact plan releases a contact at the end of a transition that moves the robot's weight onto
the other contacts (Escande 2008, §5.3.1.3: the stance after the release holds the witness); the
weight arrives there only near the transition's end. An unload ramp that begins earlier asks the
whole-body QP for a support the other contacts cannot give yet, and the robot falls. So the ramp
of a released contact begins at the earliest sample from which, up to the release, the contacts
held besides it can make the wrench the motion needs (`humanoid_control.wbc.support`, with the
controller's margins), and lasts at most its planned length; a contact that only the last sample
frees gets `MIN_RAMP`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from humanoid_control.wbc.support import Support

__all__ = ["fit_unload_ramps", "MIN_RAMP"]

MIN_RAMP = 0.02  # [s] (chosen) the shortest unload ramp: 20 control periods at 1 kHz


def fit_unload_ramps(reference, controller):
    """``reference`` with each released contact's unload ramp moved to where the others hold
    the robot (module docstring); the phases are replaced in place and the reference returned."""
    support = Support(reference, controller)
    t = reference.t
    phases = []
    for ph in reference.phases:
        if not (np.isfinite(ph.end) and ph.ramp_out > 0):
            phases.append(ph)
            continue
        k_end = int(np.searchsorted(t, ph.end, side="right")) - 1
        k_first = int(np.searchsorted(t, ph.end - ph.ramp_out, side="left"))
        k = k_end
        while k >= max(k_first, 0):
            others = [n for n, f in reference.active(float(t[k])).items() if f > 0 and n != ph.location]
            if not others or not support.test(others, k)(1.0):
                break
            k -= 1
        start = t[k + 1] if k + 1 <= k_end else ph.end
        phases.append(replace(ph, ramp_out=max(float(ph.end - start), MIN_RAMP)))
    reference.phases = phases
    return reference
