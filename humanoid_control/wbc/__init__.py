"""The whole-body controller: task-space inverse dynamics as one QP per control cycle
(docs/execution.md)."""
