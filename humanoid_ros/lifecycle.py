"""What the lifecycle (managed) nodes share: their transitions driven in this process, the release
of what a configure created, and the outcome of a transition with its reason (docs/ros.md,
"Lifecycle").

    TRANSITIONS                      configure, activate, deactivate, cleanup, shutdown
    is_lifecycle(node)               an rclpy.lifecycle node?
    state_of(node)                   "unconfigured", "inactive", "active", "finalized", ...
    bring_to(node, "active")         configure, then activate, in this process; ConfigError with the
                                     node's reason when a transition fails
    created = Created(node) ... created.release()   destroy what the node made since (configure -> cleanup)
    transition(node, name, work)     run a transition's work: SUCCESS, or FAILURE with the reason
                                     logged and kept in ``node.transition_error``

A managed node (`rclpy.lifecycle.LifecycleNode`) has the lifecycle services ``~/change_state``,
``~/get_state``, ``~/get_available_states``, ``~/get_available_transitions`` and
``~/get_transition_graph`` (lifecycle_msgs); `humanoid-stack lifecycle NODE TRANSITION` calls them
from another process, and `humanoid-stack up` drives its nodes with `bring_to`.
"""

from __future__ import annotations

from rclpy.lifecycle import LifecycleNodeMixin, TransitionCallbackReturn

from humanoid_model.exceptions import ConfigError, HumanoidStackError

__all__ = ["TRANSITIONS", "STATES", "Created", "bring_to", "is_lifecycle", "state_of", "transition"]

TRANSITIONS = ("configure", "activate", "deactivate", "cleanup", "shutdown")
"""The transitions a user asks for (lifecycle_msgs/Transition labels)."""

STATES = ("unconfigured", "inactive", "active")
"""The primary states `humanoid-stack up` may leave a node in (``--lifecycle``)."""

_PATH = {"unconfigured": (), "inactive": ("configure",), "active": ("configure", "activate")}

_ENTITIES = (
    ("publishers", "destroy_publisher"),
    ("subscriptions", "destroy_subscription"),
    ("services", "destroy_service"),
    ("clients", "destroy_client"),
    ("timers", "destroy_timer"),
)


def is_lifecycle(node) -> bool:
    """Whether ``node`` is a managed (lifecycle) node."""
    return isinstance(node, LifecycleNodeMixin)


def state_of(node) -> str:
    """The label of the lifecycle state ``node`` is in ("active" for a node that is not managed:
    it runs from its start)."""
    if not is_lifecycle(node):
        return "active"
    return node._state_machine.current_state[1]  # rclpy exposes the state machine only so


def bring_to(node, target: str) -> None:
    """Take an unconfigured ``node`` to ``target`` (one of `STATES`) in this process (configure,
    then activate). A node that is not managed is left alone. `ConfigError` naming the node, the
    transition and the node's reason (``transition_error``) when one fails."""
    if target not in STATES:
        raise ConfigError(f"lifecycle state must be one of {', '.join(STATES)}; value {target!r}")
    if not is_lifecycle(node):
        return
    for name in _PATH[target]:
        result = getattr(node, f"trigger_{name}")()
        if result != TransitionCallbackReturn.SUCCESS:
            reason = getattr(node, "transition_error", "") or f"state {state_of(node)}"
            text = reason if reason.startswith(f"node '{node.get_name()}'") else f"node '{node.get_name()}': {reason}"
            raise ConfigError(f"{text} ({name} failed)")


def transition(node, name: str, work) -> TransitionCallbackReturn:
    """Run ``work()`` for transition ``name`` of ``node``: SUCCESS, or FAILURE when it raises (the
    node stays in its state; the reason is logged and kept in ``node.transition_error``)."""
    node.transition_error = ""
    try:
        work()
    except Exception as exc:  # noqa: BLE001 - a failed transition, never a crash of the service
        text = str(exc) if isinstance(exc, HumanoidStackError) else repr(exc)
        node.transition_error = text
        node.get_logger().error(f"{name} failed: {text}")
        return TransitionCallbackReturn.FAILURE
    return TransitionCallbackReturn.SUCCESS


class Created:
    """What ``node`` creates from now on (publishers, subscriptions, services, clients, timers,
    action servers and clients): `release` destroys it (a cleanup undoes a configure)."""

    def __init__(self, node):
        self.node = node
        self.before = {kind: list(getattr(node, kind)) for kind, _ in _ENTITIES}
        self.waitables = list(node.waitables)

    def release(self) -> None:
        node = self.node
        for waitable in [w for w in node.waitables if not any(w is b for b in self.waitables)]:
            destroy = getattr(waitable, "destroy", None)  # action servers and clients
            if callable(destroy):
                destroy()
        for kind, destroy in _ENTITIES:
            for entity in [e for e in getattr(node, kind) if not any(e is b for b in self.before[kind])]:
                getattr(node, destroy)(entity)
