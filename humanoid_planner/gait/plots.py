"""PNG plots of a solved gait: joint angles, torques and contact forces per phase, stick diagram."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from humanoid_model.files import write_bytes
from humanoid_planner.exceptions import PlanningError


def check_plot_dir(out_dir) -> Path:
    """``out_dir`` when the plots can go there: a folder, or a new one in an existing folder;
    `PlanningError` otherwise (an existing file, a missing parent)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise PlanningError(f"{out}: not a folder: cannot write the plots into it")
    parent = out.parent if str(out.parent) else Path(".")
    if not out.exists() and not parent.is_dir():
        raise PlanningError(f"{out}: folder {parent} does not exist: cannot create the plot folder (create it first)")
    return out


def _save(fig, path: Path) -> Path:
    """The figure as PNG at ``path``, written atomically (`humanoid_model.files.write_bytes`)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return write_bytes(path, buffer.getvalue(), "plot", PlanningError)


def write_plots(problem, sols, out_dir) -> list:
    """Write the PNG files into ``out_dir`` (created if missing, in an existing folder:
    `check_plot_dir`); returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = check_plot_dir(out_dir)
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise PlanningError(f"{out}: cannot create the plot folder: {exc.strerror or exc}") from None
    files = []
    for s in sols:
        ph = s.phase
        tree = problem.tree(ph.kind)
        joints, _ = problem.urdf_samples(s)
        names = sorted(joints[0])
        fig, axes = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
        for n in names:
            axes[0].plot(s.t, np.degrees([j[n] for j in joints]), label=n)
        axes[0].set_ylabel("joint angle [deg]")
        axes[0].legend(fontsize=7, ncol=3)
        for i, n in enumerate(tree.control_names[: tree.n_tau]):
            axes[1].plot(s.t, s.u[:, i], label=n)
        axes[1].set_ylabel("torque [N m]")
        axes[1].legend(fontsize=7, ncol=3)
        for n, f in s.forces.items():
            axes[2].plot(s.t, f, label=n)
        axes[2].set_ylabel("contact force [N]")
        axes[2].set_xlabel("t [s]")
        axes[2].legend(fontsize=7, ncol=2)
        fig.suptitle(
            f"{ph.name}: energy {s.checks['energy']:.1f} J, closure {1e3 * s.checks['closure_residual_max']:.3f} mm"
        )
        fig.tight_layout()
        f = _save(fig, out / f"{ph.name}.png")
        plt.close(fig)
        files.append(f)
    # stick diagram of all phases
    fig, ax = plt.subplots(figsize=(12, 4))
    for s in sols:
        tree = problem.tree(s.phase.kind)
        chain = (
            ["rear_toe", "rear_ankle", "rear_knee", "hip", "front_knee", "front_ankle", "heel", "toe", "front_ankle"]
            if s.phase.kind == "ds"
            else [
                "stance_ankle",
                "stance_knee",
                "hip",
                "swing_knee",
                "swing_ankle",
                "swing_toe",
                "swing_heel",
                "swing_ankle",
            ]
        )
        step = max(1, len(s.t) // 8)
        for k in range(0, len(s.t), step):
            pts = np.array([tree.point(n, s.q[k]) for n in chain])
            pts[:, 0] += s.phase.origin_x
            hip = tree.point("hip", s.q[k])
            head = tree.point("head", s.q[k])
            ax.plot(pts[:, 0], pts[:, 1], "-", lw=0.8, color="tab:blue" if s.phase.kind == "ds" else "tab:orange")
            ax.plot(
                [hip[0] + s.phase.origin_x, head[0] + s.phase.origin_x], [hip[1], head[1]], "-", lw=0.8, color="gray"
            )
    ax.axhline(0.0, color="k", lw=0.5)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title("stick diagram (blue: double support, orange: single support)")
    fig.tight_layout()
    f = _save(fig, out / "stick_diagram.png")
    plt.close(fig)
    files.append(f)
    return files
