"""A dynamic centroidal trajectory through a contact plan's stances: the CoM, the angular momentum
about it and the contact forces, with the stances' durations as variables, optimised for time and
effort (IPOPT through CasADi).

The contact planner's motion is quasi-static (Escande 2008, §7.1: the witnesses statically
stable, 10 deg/s): 85 s for a 0.8 m walk. The simulator thesis played planner output at robot
speed through a dynamically stable CoM trajectory (Chardonnet 2009, §4.18: a 4-step walk of
10.8 s). This module gives that trajectory for any stance sequence (feet, hands, thighs).

**Phases.** One per stance of the plan (`phases_from_plan`), in order; phase j lasts T_j, a
variable in [t_min_j, t_max_j]. A location held in stance j - 1 and j + 1 but not in j swings
during phase j: its t_min is the swing's (`CentroidalSettings.min_swing`, and its travel over
``max_swing_speed``); a phase where nothing swings lasts at least ``min_phase``.

**Model** (the centroidal dynamics of a robot of mass m; Orin, Goswami and Lee 2013): state x =
(c, v, L), the CoM [m], its velocity [m/s] and the angular momentum about the CoM [N m s]; inputs
the forces f_i [N] at the corners p_i of every contact held (the placed hull of its location: a
sole's four corners), constant over each of the ``knots`` intervals of a phase (h = T_j / knots):

    a = Σ f_i / m + g
    c⁺ = c + h v + h² a / 2,   v⁺ = v + h a                      (exact for a constant force)
    L⁺ = L + h Σ (p_i - c̄) x f_i,   c̄ = c + h v / 2 + h² a / 6    (c̄ the interval's mean CoM: exact)

so the discrete trajectory is the continuous one of its piecewise-constant forces, not an
approximation of it (`dynamics_residual` integrates them apart and measures the difference).

**Constraints.** Each corner force in the inner pyramid of its surface's friction cone (n.f >= 0,
|t_k.f| <= mu / sqrt(2) n.f): corner forces then keep each contact's centre of pressure inside its
hull and its wrench inside the contact wrench cone (Caron, Pham and Nakamura 2015), as the
whole-body controller's contacts (docs/execution.md). The CoM starts at the first witness's CoM at
rest with L = 0 and ends at rest (v = 0, L = 0) over the last stance at the last witness's CoM.
Kinematic reach, which the centroidal model does not see: the CoM stays within ``com_box`` [m]
horizontally of the box of the phase's contact corners, within ``com_height`` [m] of the range
of the witness CoMs' heights (or standing heights, `phases_from_plan`) of the phase and its
neighbours, and within ``reach`` times the start's largest CoM
distance from a contact's centre of every contact held and of every sole swinging (its centre
along its swing path at the knot's share of the phase, without the lift: the path does not depend
on the phase's duration) (a proxy: a stretched leg; the whole-body motion that follows it checks
reach itself).

**Objective.** Σ T_j (time) + ``effort`` Σ h ‖f / (m g)‖² (effort) + ``smoothness`` Σ ‖Δf / (m g)‖²
(between consecutive intervals: no bang-bang forces) + ``momentum`` Σ h ‖L / (m · 1 m²/s)‖²
+ ``bounce`` Σ h (c̈_z / g)² (a walk's CoM does not bob: without it HRP-2's flat walk moved its CoM
up and down at 3.9 m/s² within its 2 cm band).

Numbers chosen (docs/planning.md "Dynamic motion"): 8 knots a phase; min swing 0.8 s and min
phase 0.2 s (the walking pattern's single and double support, docs/walking.md: the thesis's 6
steps in 6 s, Chardonnet 2009, §4.4.2), swing speed 1 m/s, max phase 4 s; weights 1 (time), 0.1
(effort), 1e-3 (smoothness), 1e-2 (momentum), 1 (bounce); com_box 0.05 m, com_height 0.02 m; reach 1.05
(HRP-2's half-sitting CoM is 0.81 m above its soles, its knees bent; 5 % more leaves the IK a bent
knee); IPOPT tolerance 1e-8, 3000 iterations.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import casadi as ca
import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_number, integer
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.support_polygon import placed_hull
from humanoid_planner.walking_pattern.swing import swing_path

__all__ = [
    "CentroidalMotion",
    "CentroidalPhase",
    "CentroidalSettings",
    "SupportContact",
    "dynamics_residual",
    "optimise_centroidal",
    "phases_from_plan",
    "swinging",
]

GRAVITY = np.array([0.0, 0.0, -9.81])  #: m/s², as the simulator's (`humanoid_sim`)


@dataclass(frozen=True)
class CentroidalSettings:
    """The optimisation's numbers (module docstring): ``knots`` intervals a phase; phase bounds
    ``min_swing``, ``max_swing_speed``, ``min_phase``, ``max_phase`` [s, m/s]; weights ``effort``,
    ``smoothness``, ``momentum``, ``bounce``; reach proxies ``com_box``, ``com_height`` [m] and ``reach`` (a
    factor of the start's CoM distance from its contacts); IPOPT's ``tolerance``
    and ``max_iterations``."""

    knots: int = 8
    min_swing: float = 0.8
    max_swing_speed: float = 1.0
    min_phase: float = 0.2
    max_phase: float = 4.0
    effort: float = 0.1
    smoothness: float = 1e-3
    momentum: float = 1e-2
    bounce: float = 1.0
    com_box: float = 0.05
    com_height: float = 0.02
    reach: float = 1.05
    tolerance: float = 1e-8
    max_iterations: int = 3000

    def __post_init__(self):
        src = "centroidal settings"
        integer(self.knots, src, "knots", minimum=1, error=PlanningError)
        integer(self.max_iterations, src, "max_iterations", minimum=1, error=PlanningError)
        for name in ("min_swing", "max_swing_speed", "min_phase", "max_phase", "tolerance"):
            finite_number(getattr(self, name), src, name, minimum=0.0, strict=True, error=PlanningError)
        for name in ("effort", "smoothness", "momentum", "bounce", "com_box", "com_height", "reach"):
            finite_number(getattr(self, name), src, name, minimum=0.0, error=PlanningError)
        if self.min_phase > self.max_phase or self.min_swing > self.max_phase:
            raise PlanningError(
                f"{src}: fields 'min_phase' and 'min_swing' must be <= 'max_phase'; values "
                f"{self.min_phase}, {self.min_swing}, {self.max_phase}"
            )


@dataclass(frozen=True)
class SupportContact:
    """A held contact: its ``name`` (location), the world ``corners`` (k, 3) [m] where its forces
    act, its unit outward surface ``normal`` (3,) (the force's direction into the robot) and the
    surface's ``friction`` coefficient."""

    name: str
    corners: np.ndarray
    normal: np.ndarray
    friction: float


@dataclass(frozen=True)
class CentroidalPhase:
    """A stance: its ``contacts`` (`SupportContact`), its duration's bounds [s], the CoM (3,) [m]
    of its witness posture and the CoM's ``reach`` from each contact."""

    contacts: tuple
    t_min: float
    t_max: float
    com: np.ndarray
    stand: float = np.nan  #: m, the CoM's height standing on the phase's contacts (nan: the witness's kept)
    reach: float = np.inf  #: m, the CoM's largest distance from a contact's centre (its corners' mean)
    #: the swings of the phase: (start, target) centres (3,) [m] of a sole moving along
    #: `walking_pattern.swing.swing_path` over the phase (the CoM keeps ``reach`` from it too)
    swings: tuple = ()


@dataclass
class CentroidalMotion:
    """The optimised trajectory: ``durations`` (P,) [s]; at the knots (K + 1 = P x knots + 1)
    ``t``, ``c`` (K + 1, 3), ``v``, ``L``; per interval k its ``forces[k]`` (n_k, 3) [N] at the
    ``points[k]`` (n_k, 3) (the corners of its phase's contacts); ``mass`` [kg]; IPOPT's
    ``iterations`` and the wall ``time`` [s]; ``residual``: `dynamics_residual` of the result."""

    durations: np.ndarray
    t: np.ndarray
    c: np.ndarray
    v: np.ndarray
    L: np.ndarray
    forces: list
    points: list
    phase_of: np.ndarray
    mass: float
    iterations: int = 0
    time: float = 0.0
    residual: dict = field(default_factory=dict)
    phases: list = field(default_factory=list)

    @property
    def duration(self) -> float:
        return float(self.t[-1])

    def acceleration(self, k: int) -> np.ndarray:
        """The CoM's acceleration (3,) [m/s²] over interval ``k``."""
        return self.forces[k].sum(axis=0) / self.mass + GRAVITY

    def sample(self, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(t, c, v, a)`` every ``dt`` [s] from 0 to the end (the last sample at the end, the last
        step between dt / 2 and 3 dt / 2): the exact CoM trajectory of the piecewise-constant forces."""
        finite_number(dt, "centroidal motion", "dt", minimum=0.0, strict=True, error=PlanningError)
        ts = np.arange(0.0, self.duration, dt)
        if self.duration - ts[-1] < 0.5 * dt and len(ts) > 1:
            ts[-1] = self.duration  # no sliver of a step at the end (speeds are taken by differences)
        else:
            ts = np.append(ts, self.duration)
        k = np.clip(np.searchsorted(self.t, ts, side="right") - 1, 0, len(self.t) - 2)
        tau = (ts - self.t[k])[:, None]
        a = np.array([self.acceleration(int(i)) for i in range(len(self.t) - 1)])[k]
        return ts, self.c[k] + self.v[k] * tau + 0.5 * a * tau**2, self.v[k] + a * tau, a


def _pyramid(sc: SupportContact) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(n, t1, t2, mu')`` of a contact's inner friction pyramid: its unit normal, two unit
    tangents orthogonal to it and mu / sqrt(2) (module docstring, "Constraints")."""
    n = np.asarray(sc.normal, float)
    t1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    t1 /= np.linalg.norm(t1)
    return n, t1, np.cross(n, t1), sc.friction / math.sqrt(2.0)


def swinging(held: list, j: int) -> list[str]:
    """The locations that swing during stance ``j`` of a plan whose stances hold the locations
    ``held`` (a container of names per stance): held in stances j - 1 and j + 1, not in j (module
    docstring, "Phases"); sorted."""
    if not 0 < j < len(held) - 1:
        return []
    return sorted(set(held[j - 1]) & set(held[j + 1]) - set(held[j]))


def phases_from_plan(feas, nodes, settings: CentroidalSettings | None = None, start_q=None) -> list[CentroidalPhase]:
    """The phases of a contact plan (``nodes`` root -> last, `contact.Node`, of the planner whose
    `Feasibility` is ``feas``): one per stance, its contacts' placed hulls as corners, its witness's
    CoM, and its duration's bounds (module docstring, "Phases"). With the plan's ``start_q`` (nq,),
    each phase's standing height, which the CoM's height then keeps instead of the witness's: the
    start's CoM height above its lowest contact corner, put on the phase's lowest corner (the
    witnesses of a search crouch where the start stands: HRP-2's flat walk's at 0.67 m against
    0.81 m; with their heights the walk bobbed 0.2 m at up to 6.8 m/s² and its knees reached their
    torque limits)."""
    s = settings or CentroidalSettings()
    nodes = list(nodes)
    if not nodes:
        raise PlanningError("centroidal phases: field 'nodes' must hold at least one stance; value []")
    model, data = feas.model, feas.model.createData()
    placed = []
    for node in nodes:
        held = {}
        for c in node.stance.contacts:
            env = feas.env_frame(c)
            held[c.location] = (placed_hull(feas.locations[c.location], env), np.asarray(env.n, float), c)
        placed.append(held)
    q0 = np.asarray(nodes[0].q if start_q is None else start_q, float)
    c0 = pin.centerOfMass(model, data, q0).copy()
    reach = s.reach * max(float(np.linalg.norm(c0 - hull.mean(axis=0))) for hull, _, _ in placed[0].values())
    if start_q is not None:
        lowest = min(float(hull[:, 2].min()) for hull, _, _ in placed[0].values())
        height = float(c0[2]) - lowest
    out = []
    for j, (node, held) in enumerate(zip(nodes, placed)):
        swings = tuple((placed[j - 1][n][0].mean(0), placed[j + 1][n][0].mean(0)) for n in swinging(placed, j))
        t_min = s.min_phase
        for a, b in swings:
            t_min = max(t_min, s.min_swing, float(np.linalg.norm(b - a)) / s.max_swing_speed)
        contacts = tuple(
            SupportContact(name, hull, normal, float(feas.surfaces[c.surface].friction))
            for name, (hull, normal, c) in sorted(held.items())
        )
        com = pin.centerOfMass(model, data, np.asarray(node.q, float)).copy()
        stand = np.nan
        if start_q is not None:
            stand = min(float(hull[:, 2].min()) for hull, _, _ in held.values()) + height
        out.append(CentroidalPhase(contacts, t_min, s.max_phase, com, stand, reach, swings))
    return out


def optimise_centroidal(
    phases, mass: float, settings: CentroidalSettings | None = None, start_com=None, end_com=None
) -> CentroidalMotion:
    """The centroidal trajectory through ``phases`` (`CentroidalPhase`) of a robot of ``mass`` [kg]
    (module docstring), from ``start_com`` (default the first phase's witness CoM) at rest to
    ``end_com`` (default the last's) at rest. Raises `PlanningError` with IPOPT's status and its
    last constraint violation when it does not converge (an impossible duration, a stance sequence
    the dynamics cannot follow)."""
    s = settings or CentroidalSettings()
    phases = list(phases)
    if not phases:
        raise PlanningError("centroidal motion: field 'phases' must hold at least one phase; value []")
    mass = finite_number(mass, "centroidal motion", "mass", minimum=0.0, strict=True, error=PlanningError)
    for j, ph in enumerate(phases):
        if not ph.contacts:
            raise PlanningError(f"centroidal motion: phase {j} must hold a contact; value none")
        if not (0 < ph.t_min <= ph.t_max):
            raise PlanningError(
                f"centroidal motion: phase {j}'s duration bounds must satisfy 0 < t_min <= t_max; "
                f"values {ph.t_min}, {ph.t_max}"
            )
    c0 = np.asarray(phases[0].com if start_com is None else start_com, float)
    c_end = np.asarray(phases[-1].com if end_com is None else end_com, float)
    start = time.perf_counter()
    nlp = _Transcription(phases, s, c0, c_end)
    solver = ca.nlpsol(
        "centroidal",
        "ipopt",
        {"x": nlp.x, "f": nlp.f, "g": nlp.g},
        {
            "print_time": False,
            "ipopt": {"print_level": 0, "tol": s.tolerance, "max_iter": s.max_iterations, "sb": "yes"},
        },
    )
    out = solver(x0=nlp.x0, lbx=nlp.lbx, ubx=nlp.ubx, lbg=nlp.lbg, ubg=nlp.ubg)
    stats = solver.stats()
    w = np.asarray(out["x"], float).ravel()
    if not stats.get("success", False):
        g = np.asarray(out["g"], float).ravel()
        worst = float(max(np.max(nlp.lbg - g, initial=0.0), np.max(g - nlp.ubg, initial=0.0)))
        raise PlanningError(
            f"centroidal motion: IPOPT did not converge ({stats.get('return_status')}) after "
            f"{stats.get('iter_count')} iterations; last constraint violation {worst:.2e}; the stance "
            f"sequence may be one the dynamics cannot follow within the phase bounds"
        )
    return nlp.motion(w, mass, int(stats.get("iter_count", 0)), time.perf_counter() - start)


class _Transcription:
    """The NLP of `optimise_centroidal` in CasADi's SX (module docstring): the decision vector
    ``x`` (the durations, then per interval its state at the start and its corner forces / (m g),
    then the last state; a state is c, v and L / m), its bounds, initial guess, cost ``f`` and
    constraints ``g`` with bounds."""

    def __init__(self, phases, s: CentroidalSettings, c0, c_end):
        self.phases, self.s = phases, s
        N, P = s.knots, len(phases)
        x, lbx, ubx, x0, g, lbg, ubg = [], [], [], [], [], [], []

        def var(n, lo, hi, guess):
            v = ca.SX.sym("w", n)
            x.append(v)
            lbx.extend(np.broadcast_to(lo, n))
            ubx.extend(np.broadcast_to(hi, n))
            x0.extend(np.broadcast_to(guess, n))
            return v

        def con(expr, lo, hi):
            g.append(expr)
            lbg.extend(np.broadcast_to(lo, expr.shape[0]))
            ubg.extend(np.broadcast_to(hi, expr.shape[0]))

        T = var(P, [ph.t_min for ph in phases], [ph.t_max for ph in phases], [ph.t_min for ph in phases])
        heights = [ph.stand if np.isfinite(ph.stand) else float(ph.com[2]) for ph in phases]
        path = np.linspace(c0, c_end, N * P + 1)
        self.points, self.sizes = [], []
        cost, last = ca.sum1(T), None
        state = var(9, np.concatenate([c0, np.zeros(6)]), np.concatenate([c0, np.zeros(6)]), 0.0)
        x0[-9:-6] = c0
        for j, ph in enumerate(phases):
            h = T[j] / N
            pts = np.vstack([sc.corners for sc in ph.contacts])
            n_j = len(pts)
            near = heights[max(j - 1, 0) : j + 2]
            lo = np.concatenate([pts[:, :2].min(axis=0) - s.com_box, [min(near) - s.com_height]])
            hi = np.concatenate([pts[:, :2].max(axis=0) + s.com_box, [max(near) + s.com_height]])
            normals = np.vstack([np.tile(sc.normal, (len(sc.corners), 1)) for sc in ph.contacts])
            centres = [np.asarray(sc.corners, float).mean(axis=0) for sc in ph.contacts]
            cones = [_pyramid(sc) for sc in ph.contacts for _ in sc.corners]
            for i in range(N):
                k = j * N + i
                F = ca.reshape(var(3 * n_j, -ca.inf, ca.inf, (normals / n_j).ravel()), 3, n_j)
                for r, (n, t1, t2, mu) in enumerate(cones):
                    f = F[:, r]
                    fn = ca.dot(n, f)
                    con(
                        ca.vertcat(
                            fn,
                            mu * fn - ca.dot(t1, f),
                            mu * fn + ca.dot(t1, f),
                            mu * fn - ca.dot(t2, f),
                            mu * fn + ca.dot(t2, f),
                        ),
                        0.0,
                        ca.inf,
                    )
                c, v, L = state[:3], state[3:6], state[6:]
                a = 9.81 * ca.sum2(F) + GRAVITY
                cbar = c + 0.5 * h * v + h**2 * a / 6
                torque = ca.sum2(ca.cross(ca.DM(pts.T) - ca.repmat(cbar, 1, n_j), F))
                nxt = var(
                    9,
                    np.concatenate([lo, -np.full(6, np.inf)]),
                    np.concatenate([hi, np.full(6, np.inf)]),
                    np.concatenate([path[k + 1], np.zeros(6)]),
                )
                con(nxt - ca.vertcat(c + h * v + 0.5 * h**2 * a, v + h * a, L + h * 9.81 * torque), 0.0, 0.0)
                if np.isfinite(ph.reach):
                    tau = (i + 1) / N
                    moving = [swing_path(a_, b_, [tau], 0.0)[0] for a_, b_ in ph.swings]
                    for centre in centres + moving:
                        con(ca.sumsqr(nxt[:3] - centre), -ca.inf, ph.reach**2)
                cost = cost + h * (s.effort * ca.sumsqr(F) + s.momentum * ca.sumsqr(L) + s.bounce * (a[2] / 9.81) ** 2)
                if last is not None and last.shape == F.shape:
                    cost = cost + s.smoothness * ca.sumsqr(F - last)
                last, state = F, nxt
                self.points.append(pts)
                self.sizes.append(n_j)
        con(ca.vertcat(state[:2] - c_end[:2], state[3:]), 0.0, 0.0)
        self.x, self.f, self.g = ca.vertcat(*x), cost, ca.vertcat(*g)
        self.lbx, self.ubx, self.x0 = np.array(lbx), np.array(ubx), np.array(x0)
        self.lbg, self.ubg = np.array(lbg), np.array(ubg)

    def motion(self, w, mass: float, iterations: int, seconds: float) -> CentroidalMotion:
        """The `CentroidalMotion` of the solution ``w``."""
        N, P = self.s.knots, len(self.phases)
        durations = w[:P].copy()
        at = P
        states, forces = [w[at : at + 9]], []
        at += 9
        for n_j in self.sizes:
            forces.append(w[at : at + 3 * n_j].reshape(n_j, 3) * mass * 9.81)
            at += 3 * n_j
            states.append(w[at : at + 9])
            at += 9
        X = np.array(states)
        t = np.concatenate([[0.0], np.cumsum(np.repeat(durations / N, N))])
        motion = CentroidalMotion(
            durations=durations,
            t=t,
            c=X[:, :3].copy(),
            v=X[:, 3:6].copy(),
            L=X[:, 6:] * mass,
            forces=forces,
            points=self.points,
            phase_of=np.repeat(np.arange(P), N),
            mass=mass,
            iterations=iterations,
            time=seconds,
            phases=self.phases,
        )
        motion.residual = dynamics_residual(motion)
        return motion


def _rk4(c, v, L, h, a, points, F):
    """One RK4 step of length ``h`` of c' = v, v' = a, L' = Σ (p_i - c) x f_i (``points``, ``F``)."""

    def deriv(c_, v_):
        r = points - c_
        cross = r[:, [1, 2, 0]] * F[:, [2, 0, 1]] - r[:, [2, 0, 1]] * F[:, [1, 2, 0]]
        return v_, a, cross.sum(axis=0)

    k1 = deriv(c, v)
    k2 = deriv(c + 0.5 * h * k1[0], v + 0.5 * h * k1[1])
    k3 = deriv(c + 0.5 * h * k2[0], v + 0.5 * h * k2[1])
    k4 = deriv(c + h * k3[0], v + h * k3[1])
    return tuple(x + h / 6 * (d1 + 2 * d2 + 2 * d3 + d4) for x, d1, d2, d3, d4 in zip((c, v, L), k1, k2, k3, k4))


def dynamics_residual(motion: CentroidalMotion, substeps: int = 16) -> dict:
    """The largest differences between ``motion``'s knots and the centroidal dynamics of its forces
    integrated apart (RK4, ``substeps`` per interval; the forces constant over each): ``c`` [m],
    ``v`` [m/s], ``L`` [N m s]; and the friction pyramids' largest violation ``friction`` [N]."""
    out = {"c": 0.0, "v": 0.0, "L": 0.0, "friction": 0.0}
    for k in range(len(motion.t) - 1):
        F, Pk = motion.forces[k], motion.points[k]
        h = (motion.t[k + 1] - motion.t[k]) / substeps
        a = motion.acceleration(k)
        c, v, L = motion.c[k].copy(), motion.v[k].copy(), motion.L[k].copy()
        for _ in range(substeps):
            c, v, L = _rk4(c, v, L, h, a, Pk, F)
        out["c"] = max(out["c"], float(np.abs(c - motion.c[k + 1]).max()))
        out["v"] = max(out["v"], float(np.abs(v - motion.v[k + 1]).max()))
        out["L"] = max(out["L"], float(np.abs(L - motion.L[k + 1]).max()))
        cones = [_pyramid(sc) for sc in motion.phases[motion.phase_of[k]].contacts for _ in sc.corners]
        for f, (n, t1, t2, mu) in zip(F, cones, strict=True):
            fn = float(n @ f)
            out["friction"] = max(out["friction"], -fn, abs(float(t1 @ f)) - mu * fn, abs(float(t2 @ f)) - mu * fn)
    return out
