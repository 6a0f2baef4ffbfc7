"""Ctrl-C during an IPOPT solve stops the program, as anywhere else.

CasADi checks Python's signals while IPOPT iterates, and Ctrl-C (SIGINT) then ends the solve, but
CasADi catches the KeyboardInterrupt: the solve returns its last iterate with the status
``NonIpopt_Exception_Thrown`` and the program goes on to the next phase, so ``humanoid-stack gait``
could not be stopped, and its file held a phase that was never solved. `interruptible` records a
SIGINT that arrives during the block and raises KeyboardInterrupt once CasADi has returned.

    with interruptible():
        res = solver(x0=...)
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["interruptible"]


@contextlib.contextmanager
def interruptible():
    """Run the block with a SIGINT handler that notes the signal and raises KeyboardInterrupt (so
    that CasADi's check stops IPOPT at once); after the block, KeyboardInterrupt if a SIGINT came.
    Outside the main thread, or when SIGINT has another handler than Python's default (a ROS node's
    own, an ignored SIGINT), the block runs as it is: signals are the main thread's business."""
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    received = []

    def handler(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if received:
        raise KeyboardInterrupt
