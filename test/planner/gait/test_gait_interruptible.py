"""`humanoid_planner.gait.interruptible`: a SIGINT that the code inside swallows (as CasADi does
with the KeyboardInterrupt it raises to stop IPOPT) still stops the program once the block ends;
Python's own handler is back afterwards. The real solve: test_gait_cli.py (Ctrl-C on `gait`)."""

import os
import signal
import time

import pytest

from humanoid_planner.gait.interruptible import interruptible


def test_a_swallowed_sigint_is_raised_after_the_block_and_the_handler_restored():
    swallowed = []
    with pytest.raises(KeyboardInterrupt), interruptible():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)  # the handler runs here and raises
        except KeyboardInterrupt:
            swallowed.append(True)  # what CasADi does: the solve returns its last iterate
    assert swallowed == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with interruptible():  # no signal: nothing raised
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
