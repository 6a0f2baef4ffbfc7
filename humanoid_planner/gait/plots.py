"""PNG plots of a solved gait: joint angles, torques and contact forces per phase, stick diagram."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_plots(problem, sols, out_dir) -> list:
    """Write the PNG files into ``out_dir`` (created); returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
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
        f = out / f"{ph.name}.png"
        fig.savefig(f, dpi=90)
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
    f = out / "stick_diagram.png"
    fig.savefig(f, dpi=90)
    plt.close(fig)
    files.append(f)
    return files
