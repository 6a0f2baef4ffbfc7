"""The phase sequence of the BIP gait (Chessé 2002, §III.3.2.8): its phases (`GaitProblem`), their
optimal solves (`solve_gait_sequence`, and `solve_cyclic_gait_sequence` with n cyclic steps),
a-posteriori checks, the GAIT.json export, other step lengths by continuation and `plan_walk` (a
walk to a distance).

Sequence of the whole walk (the thesis's start step, cyclic step, pre-stop DS and stop step):
  start SS (0.45 s) -> cyclic DS (0.17 s) -> cyclic SS (0.5 s) -> pre-stop DS (0.186 s, u4f = 0.65)
  -> stop SS (0.5 s).
Legs: the start step stands on the left foot; the physical leg of each tree's root side follows.
World frame: x forward from the start-step stance heel, z up (the thesis's Y0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from humanoid_model.formats.trajectory import gait_document, gait_phase, trajectory_samples
from humanoid_model.validation import integer
from humanoid_planner.bounds import MAX_CYCLIC_STEPS, MAX_PHASE_DURATION, MIN_PHASE_DURATION
from humanoid_planner.exceptions import PlanningError

from . import boundary as bd
from .cost import Weights
from .direct import Phase, PhaseSolution, contact_forces, joint_power, solve_direct
from .model import ds_model, ss_model
from .params import BipParams, get_params

PHASE_CHOICES = ("start", "cyclic", "ds", "ss", "stop", "walk")
# default grids (chosen): ~5 ms in DS, 10 ms in SS
DEFAULT_N = {"ds": 34, "ss": 50}


@dataclass
class GaitProblem:
    params: BipParams
    gait: bd.GaitData = field(default_factory=bd.GaitData)
    # default: the thesis's penalised problem plus the contact extension (friction cones and
    # rear-toe unilaterality as NLP constraints); enforce_contacts=False is the
    # thesis-faithful mode (checked a posteriori only)
    weights: Weights = field(default_factory=lambda: Weights(enforce_contacts=True))
    t_start: float = bd.T_START
    t_prestop: float = bd.T_PRESTOP_DS
    t_stop: float = bd.T_STOP
    prestop_u4f: float = bd.PRESTOP_U4F
    # start/stop "legs together, feet flat" posture (the thesis gives no numbers for it; defaults and
    # the energies' sensitivity to them in docs/gait.md)
    rest_hip_height: float = bd.REST_HIP_HEIGHT
    rest_hip_dx: float = bd.REST_HIP_DX
    rest_hip_dx_stop: float = bd.REST_HIP_DX_STOP
    # "hand": the hand-written planar models (model.py); "generated": the same trees from the
    # robot's URDF through the generated CasADi dynamics (generated_model.py), with the params'
    # armature by role (hip, knee, ankle)
    model: str = "hand"
    robot: str = "bip"

    def __post_init__(self):
        if self.model == "generated":
            from .generated_model import generated_tree, sagittal_roles

            arm = {j: self.params.armature[role] for j, role in sagittal_roles(self.robot).items()}
            self.ds = generated_tree(self.robot, "ds", armature=arm, g=self.params.g)
            self.ss = generated_tree(self.robot, "ss", armature=arm, g=self.params.g)
        elif self.model == "hand":
            self.ds = ds_model(self.params)
            self.ss = ss_model(self.params)
        else:
            raise PlanningError(f"gait: field 'model' has unknown value {self.model!r}; expected 'hand' or 'generated'")

    def tree(self, kind):
        return self.ds if kind == "ds" else self.ss

    # ---- phases ------------------------------------------------------------------------------
    def phases(self, which: str):
        """List of :class:`Phase` for ``which`` in PHASE_CHOICES."""
        if which not in PHASE_CHOICES:
            raise PlanningError(
                f"gait: field 'phase' has unknown value {which!r}; expected one of {list(PHASE_CHOICES)}"
            )
        p, g = self.params, self.gait
        lp, LP = p.foot.l_pied, g.step_length
        (q0, v0), (q1, v1) = bd.ds_boundary_states(p, g)
        ss0 = bd.ds_to_ss(p, q1, v1)
        ss1 = bd.ds_to_ss_inverse(p, q0, v0)
        rest = bd.rest_state_ss(p, hip_height=self.rest_hip_height, hip_dx=self.rest_hip_dx)
        rest_stop = bd.rest_state_ss(p, hip_height=self.rest_hip_height, hip_dx=self.rest_hip_dx_stop)
        g_stop = g.with_(hipv1=(self.prestop_u4f, g.hipv1[1]))
        (pq0, pv0), (pq1, pv1) = bd.ds_boundary_states(p, g_stop)
        stop_ss_start = bd.ds_to_ss(p, pq1, pv1)

        def ds(name, dur, a, b, origin, leg):
            return Phase(name, "ds", dur, a[0], a[1], b[0], b[1], LP, leg, origin)

        def ss(name, dur, a, b, origin, leg):
            return Phase(name, "ss", dur, a[0], a[1], b[0], b[1], LP, leg, origin)

        if which == "ds":
            return [ds("cyclic_ds", g.t_ds, (q0, v0), (q1, v1), 0.0, "l")]
        if which == "ss":
            return [ss("cyclic_ss", g.t_ss, ss0, ss1, LP - lp, "r")]
        if which == "cyclic":
            return [
                ds("cyclic_ds", g.t_ds, (q0, v0), (q1, v1), 0.0, "l"),
                ss("cyclic_ss", g.t_ss, ss0, ss1, LP - lp, "r"),
            ]
        if which == "start":
            return [ss("start_ss", self.t_start, rest, ss1, 0.0, "l")]
        if which == "stop":
            return [
                ds("prestop_ds", self.t_prestop, (pq0, pv0), (pq1, pv1), 0.0, "l"),
                ss("stop_ss", self.t_stop, stop_ss_start, rest_stop, LP - lp, "r"),
            ]
        return [
            ss("start_ss", self.t_start, rest, ss1, 0.0, "l"),
            ds("cyclic_ds", g.t_ds, (q0, v0), (q1, v1), lp, "l"),
            ss("cyclic_ss", g.t_ss, ss0, ss1, LP, "r"),
            ds("prestop_ds", self.t_prestop, (pq0, pv0), (pq1, pv1), LP + lp, "r"),
            ss("stop_ss", self.t_stop, stop_ss_start, rest_stop, 2 * LP, "l"),
        ]

    def solve_phase(self, phase: Phase, N=None, verbose=False, init=None, weights=None):
        w = weights or self.weights
        sol = solve_direct(
            self.tree(phase.kind), self.params, phase, w, N=N or DEFAULT_N[phase.kind], verbose=verbose, init=init
        )
        sol.checks = self.check(sol, w)
        return sol

    # ---- a-posteriori checks -------------------------------------------------------------------
    def check(self, sol: PhaseSolution, w: Weights | None = None) -> dict:
        """Closure residual, unilaterality, friction ratios, energy J_e and power (the thesis's
        a-posteriori checks, Chessé 2002, §II.4.6 and §III.3.2.6-8), computed on the solution nodes."""
        w = w or self.weights
        ph = sol.phase
        tree = self.tree(ph.kind)
        K = len(sol.t)
        F = contact_forces(tree, self.params, sol)
        tau = sol.u[:, : tree.n_tau]
        power, energy = joint_power(tree, sol)
        out = {
            "energy": energy,
            "duration": ph.duration,
            "mean_power": energy / ph.duration,
            "peak_power": float(power.max()),
            "cost": sol.cost,
            "success": sol.success,
            "status": sol.status,
            "iterations": sol.iterations,
            "solve_time": sol.solve_time,
            "max_abs_torque": np.abs(tau).max(axis=0).tolist(),
        }
        builder = getattr(sol, "builder", None)
        if builder is not None:
            # largest violation of the penalised state constraints (joint ranges, joint speeds,
            # anti-collision), in units of their scales s_k (0.01 rad, 0.1 rad/s, 0.01 m)
            H = np.array([np.array(builder.f_h(sol.q[k], sol.v[k])).ravel() for k in range(K)])
            out["constraint_violation_max"] = float(max(H.max(), 0.0))
        if ph.kind == "ds":
            res = np.array([np.linalg.norm(np.array(sol.builder.f_closure(q)).ravel()) for q in sol.q])
            delta = sol.q[:, 5] + math.pi - self.params.foot.beta_p
            Nf = sol.u[:, 6] + sol.u[:, 7]
            loaded = Nf > 1.0
            out.update(
                {
                    "closure_residual_max": float(res.max()),
                    "flattening_residual_max_after_t0": float(np.abs(delta[1:-1]).max()) if K > 2 else 0.0,
                    "front_heel_normal_min": float(sol.u[:, 6].min()),
                    "front_toe_normal_min": float(sol.u[:, 7].min()),
                    "front_friction_ratio_max": float(np.max(np.abs(sol.u[loaded, 8]) / Nf[loaded]))
                    if loaded.any()
                    else 0.0,
                    "rear_toe_normal_min": float(F[:, 0].min()),
                    # ratios where the normal force exceeds 1 N; a negative normal force shows in
                    # rear_toe_normal_min / unilateral_ok instead
                    "rear_toe_friction_ratio_max": float(np.max(np.abs(F[F[:, 0] > 1.0, 1]) / F[F[:, 0] > 1.0, 0]))
                    if np.any(F[:, 0] > 1.0)
                    else 0.0,
                }
            )
            forces = {
                "FB1_front_heel_normal": sol.u[:, 6],
                "FB2_front_toe_normal": sol.u[:, 7],
                "FB12_front_heel_tangential": sol.u[:, 8],
                "NA2_rear_toe_normal": F[:, 0],
                "TA2_rear_toe_tangential": F[:, 1],
            }
        else:
            Nt = F[:, 0] + F[:, 1]
            out.update(
                {
                    "closure_residual_max": 0.0,
                    "stance_heel_normal_min": float(F[:, 0].min()),
                    "stance_toe_normal_min": float(F[:, 1].min()),
                    "stance_friction_ratio_max": float(np.max(np.abs(F[Nt > 1.0, 2]) / Nt[Nt > 1.0]))
                    if np.any(Nt > 1.0)
                    else 0.0,
                    "peak_normal_force": float(Nt.max()),
                    "swing_clearance_max": float(max(tree.point("swing_toe", q)[1] for q in sol.q)),
                    "swing_penetration_max": float(
                        max(
                            0.0, -min(min(tree.point("swing_toe", q)[1], tree.point("swing_heel", q)[1]) for q in sol.q)
                        )
                    ),
                }
            )
            forces = {
                "NB1_stance_heel_normal": F[:, 0],
                "NB2_stance_toe_normal": F[:, 1],
                "T_stance_tangential": F[:, 2],
            }
        sol.forces = forces
        sol.power = power
        fr = max(
            out.get("front_friction_ratio_max", 0.0),
            out.get("rear_toe_friction_ratio_max", 0.0),
            out.get("stance_friction_ratio_max", 0.0),
        )
        nmin = min(
            out.get(k, np.inf)
            for k in ("front_heel_normal_min", "rear_toe_normal_min", "stance_heel_normal_min", "stance_toe_normal_min")
        )
        out["friction_ratio_max"] = fr
        out["unilateral_ok"] = bool(nmin >= -1e-6)
        out["friction_ok"] = bool(fr < w.friction_check)
        return out

    # ---- world trajectories ------------------------------------------------------------------
    def world_points(self, sol: PhaseSolution, name: str) -> np.ndarray:
        tree = self.tree(sol.phase.kind)
        pts = np.array([tree.point(name, q) for q in sol.q])
        pts[:, 0] += sol.phase.origin_x
        return pts

    def urdf_samples(self, sol: PhaseSolution):
        """(joint dict list, base pose list [x, y, z, qx, qy, qz, qw]) per node."""
        ph = sol.phase
        tree = self.tree(ph.kind)
        joints, bases = [], []
        for q in sol.q:
            ja, pitch = bd.urdf_joint_angles(self.params, ph.kind, q, ph.root_leg)
            hip = tree.point("hip", q)
            joints.append(ja)
            bases.append([hip[0] + ph.origin_x, 0.0, hip[1], 0.0, math.sin(pitch / 2), 0.0, math.cos(pitch / 2)])
        return joints, bases


def solve_gait_sequence(problem: GaitProblem, which: str = "walk", verbose=False, progress=None):
    """Solve the phases of ``which`` in order; returns the list of solutions."""
    sols = []
    for ph in problem.phases(which):
        if progress:
            progress(f"solving {ph.name} ({ph.kind.upper()}, {ph.duration:.3f} s) ...")
        s = problem.solve_phase(ph, verbose=verbose)
        if progress:
            c = s.checks
            progress(
                f"  {ph.name}: {s.status} in {s.iterations} it, {s.solve_time:.1f} s, "
                f"energy {c['energy']:.1f} J, closure {1e3 * c['closure_residual_max']:.3f} mm"
            )
        sols.append(s)
    return sols


def gait_json(problem: GaitProblem, sols, method: str = "direct") -> dict:
    """GAIT.json content (`humanoid_model.formats.trajectory.gait_document`): phases with t, q, qd,
    tau, contact_forces, energy, duration, closure_residual_max; total_energy; joint_names of the
    BIP URDF and the base pose over time (concatenated samples, absolute time) for the 3-D replay."""
    names = [f"{leg}_{j}" for leg in ("l", "r") for j in bd.URDF_LEG_JOINTS]
    phases, T0 = [], 0.0
    all_t, all_pos, all_base = [], [], []
    for k, s in enumerate(sols):
        ph = s.phase
        tree = problem.tree(ph.kind)
        joints, bases = problem.urdf_samples(s)
        ts = s.t + T0
        start = 1 if k > 0 else 0  # the first node of a phase repeats the previous last node
        all_t += ts[start:].tolist()
        all_pos += [[j[n] for n in names] for j in joints[start:]]
        all_base += bases[start:]
        phases.append(phase_entry(tree, s, method, T0))
        T0 += ph.duration
    return gait_document(
        robot="bip",
        params=problem.params.name,
        method=method,
        phases=phases,
        total_energy=float(sum(s.checks["energy"] for s in sols)),
        joint_names=names,
        trajectory=trajectory_samples(all_t, all_pos, all_base),
    )


def phase_entry(tree, sol: PhaseSolution, method: str, t_start: float) -> dict:
    """The GAIT.json ``phases[]`` entry of one solved phase on ``tree`` starting at ``t_start`` [s]
    (`humanoid_model.formats.trajectory.gait_phase`), for BIP and the other mechanisms alike."""
    ph = sol.phase
    return gait_phase(
        name=ph.name,
        kind=ph.kind,
        method=method,
        duration=ph.duration,
        t_start=t_start,
        t=sol.t,
        coordinates=tree.coordinate_names,
        q=sol.q,
        qd=sol.v,
        tau_names=tree.control_names[: tree.n_tau],
        tau=sol.u[:, : tree.n_tau],
        contact_forces=sol.forces,
        energy=sol.checks["energy"],
        closure_residual_max=sol.checks["closure_residual_max"],
        root_leg=ph.root_leg,
        origin_x=ph.origin_x,
        checks=sol.checks,
        converged=sol.success,
    )


def make_problem(params="thesis", step_length=None, t_ds=None, t_ss=None, weights=None, enforce_contacts=True):
    p = get_params(params)
    g = bd.GaitData()
    kw = {}
    if step_length is not None:
        kw["step_length"] = float(step_length)
    if t_ds is not None:
        kw["t_ds"] = float(t_ds)
    if t_ss is not None:
        kw["t_ss"] = float(t_ss)
    for k, v in kw.items():
        if not (np.isfinite(v) and v > 0):
            raise PlanningError(f"gait: field '{k}' must be a positive number, got {v}")
        if k != "step_length" and not MIN_PHASE_DURATION <= v <= MAX_PHASE_DURATION:  # humanoid_planner.bounds
            raise PlanningError(
                f"gait: field '{k}' must be a duration from {MIN_PHASE_DURATION:g} to "
                f"{MAX_PHASE_DURATION:g} s, got {v:g}"
            )
    extra = {}
    if "step_length" in kw:
        # the thesis's hip data are for 0.5 m: another step length scales them (GaitData.scaled_to),
        # and the pre-stop DS's final hip speed with them (the same rule: horizontal speeds x L / 0.5;
        # unscaled, the 0.3 m walk's pre-stop DS accelerates from 0.45 to 0.65 m/s and diverges)
        L = kw.pop("step_length")
        g = g.scaled_to(L, p.foot.l_pied)
        extra["prestop_u4f"] = bd.PRESTOP_U4F * L / bd.GaitData().step_length
    return GaitProblem(p, g.with_(**kw), weights or Weights(enforce_contacts=enforce_contacts), **extra)


STEP_LENGTH_INCREMENT = 0.1  # [m] largest step-length change per continuation step (chosen)


def continue_step_length(
    step_length: float, which: str = "cyclic", params="thesis", weights=None, reference=None, progress=None
):
    """Solve the phases ``which`` at ``step_length`` [m] by continuation from the thesis's 0.5 m
    step (Chessé 2002, §III.3.2.8): the step length moves in increments of at most
    `STEP_LENGTH_INCREMENT`, each problem (`make_problem`, hip data scaled by
    `GaitData.scaled_to`) initialised from the previous solutions. ``reference``: the solved 0.5 m
    phases (solved here if None). Returns (problem, solutions, [(length, solutions), ...])."""
    L0 = bd.GaitData().step_length
    if not (isinstance(step_length, (int, float)) and math.isfinite(step_length) and step_length > 0):
        raise PlanningError(f"gait: field 'step_length' must be a positive number, got {step_length}")
    problem = make_problem(params, L0, weights=weights)
    sols = reference if reference is not None else solve_gait_sequence(problem, which, progress=progress)
    path = [(L0, sols)]
    k = math.ceil(round(abs(step_length - L0) / STEP_LENGTH_INCREMENT, 9))
    for L in np.linspace(L0, step_length, k + 1)[1:]:
        problem = make_problem(params, float(L), weights=weights)
        prev = {s.phase.name: s for s in sols}
        sols = []
        for ph in problem.phases(which):
            if progress:
                progress(f"continuation to {L:.3f} m: solving {ph.name} ...")
            sols.append(problem.solve_phase(ph, init=prev.get(ph.name)))
        path.append((float(L), sols))
    return problem, sols, path


def walk_phases_for_cyclic_steps(problem: GaitProblem, n_cyclic: int):
    """Phases of a walk from rest to rest with ``n_cyclic`` >= 1 cyclic steps (DS + SS): the feet
    advance by (n_cyclic + 1) step lengths.  The cyclic steps are periodic, so repeated steps
    reuse one DS and one SS solution (only the origin and the leg labels change)."""
    n_cyclic = integer(n_cyclic, "gait", "n_cyclic", minimum=1, maximum=MAX_CYCLIC_STEPS, error=PlanningError)
    base = {ph.name: ph for ph in problem.phases("walk")}
    LP, lp = problem.gait.step_length, problem.params.foot.l_pied
    other = {"l": "r", "r": "l"}
    out = [base["start_ss"]]
    for i in range(n_cyclic):
        rear = "l" if i % 2 == 0 else "r"
        out.append(replace(base["cyclic_ds"], origin_x=lp + i * LP, root_leg=rear))
        out.append(replace(base["cyclic_ss"], origin_x=(i + 1) * LP, root_leg=other[rear]))
    rear = "l" if n_cyclic % 2 == 0 else "r"
    out.append(replace(base["prestop_ds"], origin_x=n_cyclic * LP + lp, root_leg=rear))
    out.append(replace(base["stop_ss"], origin_x=(n_cyclic + 1) * LP, root_leg=other[rear]))
    return out


def solve_cyclic_gait_sequence(problem: GaitProblem, n_cyclic: int, progress=None):
    """Solve a walk with ``n_cyclic`` cyclic steps; each distinct phase is solved once."""
    import copy

    cache, sols = {}, []
    for ph in walk_phases_for_cyclic_steps(problem, n_cyclic):
        if ph.name not in cache:
            if progress:
                progress(f"solving {ph.name} ({ph.kind.upper()}, {ph.duration:.3f} s) ...")
            cache[ph.name] = problem.solve_phase(ph)
        s = copy.copy(cache[ph.name])
        s.phase = ph
        sols.append(s)
    return sols


# a converged solve is refused when its penalised state constraints are violated by more than one
# scale unit (0.01 rad, 0.1 rad/s, 0.01 m; measured on the 0.5 m walk: <= 0.001) or its closure
# residual exceeds 1 mm (the closure bound of acceptance test 003 A9, over the thesis's 0.3 mm): the
# penalties, not the physics, decided (chosen)
VIOLATION_MAX = 1.0
CLOSURE_MAX = 1e-3  # [m]


def _require_converged(sols, who: str) -> None:
    """`PlanningError` naming the phases whose solve did not converge, or converged with the
    penalised constraints violated beyond `VIOLATION_MAX` / `CLOSURE_MAX` (``who`` starts the
    message)."""
    bad = sorted({s.phase.name for s in sols if not s.success})
    if bad:
        raise PlanningError(f"{who}: the solver did not converge for phase(s) {bad}")
    viol = {}
    for s in sols:
        c = getattr(s, "checks", {}) or {}
        v, r = c.get("constraint_violation_max", 0.0), c.get("closure_residual_max", 0.0)
        if v > VIOLATION_MAX or r > CLOSURE_MAX:
            viol[s.phase.name] = f"{v:.3g} scale units, closure {1e3 * r:.3g} mm"
    if viol:
        raise PlanningError(
            f"{who}: phase(s) {sorted(viol)} violate the joint/speed/clearance limits or the closure "
            f"(limits {VIOLATION_MAX} scale unit, {1e3 * CLOSURE_MAX} mm): "
            + "; ".join(f"{k}: {viol[k]}" for k in sorted(viol))
        )


def generate_gait(
    phase: str = "walk",
    params="thesis",
    step_length: float | None = None,
    t_ds: float | None = None,
    t_ss: float | None = None,
    enforce_contacts: bool = True,
    progress=None,
) -> dict:
    """Solve ``phase`` (start | cyclic | stop | walk | ds | ss) of the problem `make_problem` builds
    from the settings (None: the thesis's cyclic step, Chessé 2002, §III.3.2.8) and
    return its GAIT.json data (`gait_json`). ``progress`` receives one line per solve.
    Raises `PlanningError` when a solve does not converge."""
    problem = make_problem(params, step_length, t_ds, t_ss, enforce_contacts=enforce_contacts)
    sols = solve_gait_sequence(problem, phase, progress=progress)
    _require_converged(sols, "gait")
    return gait_json(problem, sols)


MAX_CYCLIC = MAX_CYCLIC_STEPS  # longest walk in cyclic steps (`humanoid_planner.bounds`)
# step lengths plan_walk chooses from when none is given [m]: the range solved and tested by
# continuation from the thesis's 0.5 m step (test_gait_step_length.py)
STEP_RANGE = (0.3, 0.6)


def _choose_step(distance: float) -> float:
    """The step length of `STEP_RANGE` nearest the thesis's 0.5 m whose (n + 1) steps cover
    `distance` exactly (n >= 1 cyclic steps), or the thesis's 0.5 m when none does."""
    L0, (lo, hi) = bd.GaitData().step_length, STEP_RANGE
    if not (math.isfinite(distance) and distance > 0):
        return L0
    counts = range(max(2, math.ceil(round(distance / hi, 9))), math.floor(round(distance / lo, 9)) + 1)
    steps = [distance / k for k in counts if k <= MAX_CYCLIC + 1]
    return min(steps, key=lambda L: (abs(L - L0), -L)) if steps else L0


def plan_walk(
    distance: float,
    tolerance: float | None = None,
    params="thesis",
    step_length: float | None = None,
    t_ds: float | None = None,
    t_ss: float | None = None,
    enforce_contacts: bool = True,
    progress=None,
    field: str = "distance",
) -> dict:
    """A walk from rest to rest covering ``distance`` [m]: start step, n cyclic steps (DS + SS),
    pre-stop DS and stop step, whose feet advance (n + 1) step lengths, n = round(distance /
    step_length) - 1 with 1 <= n <= `MAX_CYCLIC`, within ``tolerance`` [m] (None: half a step).
    Without a ``step_length`` the step length varies too: the one of `STEP_RANGE` nearest the
    thesis's 0.5 m that covers the distance exactly (2.3 m: 5 steps of 0.46 m), else 0.5 m.
    The periodic cyclic step is solved once and repeated (`solve_cyclic_gait_sequence`).

    ``params``, ``step_length`` [m], ``t_ds`` [s], ``t_ss`` [s], ``enforce_contacts`` are the problem
    settings of `make_problem` (None: the thesis's cyclic step, Chessé 2002, §III.3.2.8);
    ``progress`` receives one line per solve; ``field`` names where the distance came from in the
    message.
    Returns the GAIT.json data (`gait_json`) with ``"distance"`` = the distance walked [m].
    Raises `PlanningError` when no such walk covers the distance, or when a solve does not converge.
    """
    step = _choose_step(distance) if step_length is None else step_length
    if not (isinstance(step, (int, float)) and math.isfinite(step) and step > 0):
        raise PlanningError(f"gait: field 'step_length' must be a positive number, got {step}")
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise PlanningError(f"plan_walk: field 'tolerance' must be a finite number >= 0 [m], got {tolerance}")
    tol = step / 2 if tolerance is None else tolerance
    n_cyclic = int(round(distance / step)) - 1 if math.isfinite(distance) else 0
    achieved = (n_cyclic + 1) * step
    if n_cyclic < 1 or n_cyclic > MAX_CYCLIC or abs(achieved - distance) > tol:
        raise PlanningError(
            f"plan_walk: field '{field}' gives a distance of {distance:.3f} m; a "
            f"walk from rest to rest with n >= 1 cyclic steps of {step} m covers "
            f"(n + 1) x {step} m (at most {(MAX_CYCLIC + 1) * step:.1f} m), tolerance "
            f"{tol:.3f} m"
        )
    problem = make_problem(params, step, t_ds, t_ss, enforce_contacts=enforce_contacts)
    sols = solve_cyclic_gait_sequence(problem, n_cyclic, progress=progress)
    _require_converged(sols, "plan_walk")
    data = gait_json(problem, sols)
    data["distance"] = achieved
    return data
