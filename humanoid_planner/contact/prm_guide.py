"""Automatic guide by a PRM in C_guide (Escande 2008, §6.4, a part made with K. Bouyarmane): a
roadmap of statically stable, near-contact, collision-free configurations whose
shortest path from the start to the goal configuration is the guide (key postures for
`potentials.GuidePotential`).

- **Sampling** (§6.4.2): the root position uniform in a box; the root orientation from a von
  Mises-Fisher distribution on the unit-quaternion sphere S^3 about a mean (6.14)-(6.15), sampled
  by Wood's algorithm (`vmf`); the posture an affine combination q_key0 + sum lambda_i (q_keyi -
  q_key0) of key postures with lambda uniform on {lambda >= 0, sum lambda_i <= 1} (k = 1,
  (6.16)-(6.17)).
- **Projection on C_guide** (`project_on_guide_space`, §6.4.3): the contact locations whose points
  are nearest to a planner surface (inside its polygon) are brought onto it one at a time, nearest
  first, until the configuration is stable, at most ``max_contacts``. Deviation: the thesis's
  prioritised Newton steps toward A_goal = A_O + (eps_contact / 2) n are replaced by one
  posture-generator call per added body with light contacts (3.36)-(3.39) on the chosen surfaces
  (the thesis's own tool), collision rows kept at ``margin``; "in contact" then means within
  ``eps_contact`` of the plane.
- **Static stability** (6.11)-(6.12), §6.4.4: forces in polyhedral friction cones (4 edges,
  inside the true cone) at the hull corners of the bodies in contact must balance the weight;
  an LP feasibility test (`scipy.optimize.linprog`, our choice: it answers the same question as
  the thesis's double-description test) (`stable`).
- **Roadmap** (Algorithm 11, §6.4.2): each projected sample is linked to its nearest nodes
  within ``radius`` (guide coordinates, `potentials.GuideCoordinates`) when the straight segment
  between them stays collision-free and stable with the contacts of either end at ``segment_points``
  intermediate configurations; stops when the start and the goal are connected (Dijkstra), or
  after ``max_samples``.
- **Isolated ends** (ours, not the thesis's): while the start or the goal has no edge, every other
  sample is drawn about it (`sample_near`: its root within ``near`` in x, y and z, its orientation
  by von Mises-Fisher about its own, its joints between its own and a key-posture mix), a common PRM
  bias toward the hard-to-reach ends. On the chair scene with seed 0 and no such bias, the sitting
  start stays alone for 400 samples while 208 of the 226 roadmap nodes form the goal's component
  from y 0.04 to 2.4 m.

Numbers chosen (the thesis gives none): ``margin`` -0.05 m, a lax collision check (the thesis
allows negative margins, Escande 2008, §6.4.1): HRP-2's foot capsule reaches 4.5 cm below its
sole, so a foot on a step would otherwise collide with it; eps_contact 0.03 m (a body "in
contact" within 3 cm, about the 2 cm approach segment plus slack); 4 cone edges; max_contacts 4
(hands and feet); radius 0.6 m in guide coordinates; segment_points 5; kappa 20 (orientations
within ~0.3 rad of the mean: upright walking, §6.4.2.2); near 0.15 m (a quarter of the radius: the
samples about an end link to it and to the roadmap beyond).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
import pinocchio as pin
from scipy.optimize import linprog

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import (
    GROUND,
    EnvironmentCollision,
    EnvironmentFrame,
    LightContact,
    PostureProblem,
    PostureSolverSettings,
    RobotContactFrame,
    robot_capsules,
    solve,
)

from .potentials import GuideCoordinates

__all__ = ["GuideRoadmap", "PrmGuide", "stable", "vmf"]


def vmf(rng, mean, kappa: float, n: int) -> np.ndarray:
    """``n`` unit vectors (n, p) from the von Mises-Fisher distribution of mean direction ``mean``
    (p,) and concentration ``kappa`` > 0 ((6.14)-(6.15)), by Wood's algorithm (1994): the
    component w along the mean by rejection, then a uniform direction orthogonal to it."""
    mu = np.asarray(mean, float) / np.linalg.norm(mean)
    p = len(mu)
    b = (p - 1) / (2 * kappa + np.sqrt(4 * kappa**2 + (p - 1) ** 2))
    x0 = (1 - b) / (1 + b)
    c = kappa * x0 + (p - 1) * math.log(1 - x0**2)  # libm, not numpy's per-processor loops (`curve`)
    out = np.empty((n, p))
    for i in range(n):
        while True:
            z = rng.beta((p - 1) / 2, (p - 1) / 2)
            w = (1 - (1 + b) * z) / (1 - (1 - b) * z)
            if kappa * w + (p - 1) * math.log(1 - x0 * w) - c >= math.log(rng.uniform()):
                break
        v = rng.normal(size=p)
        v -= (v @ mu) * mu
        v /= np.linalg.norm(v)
        out[i] = w * mu + np.sqrt(max(1 - w * w, 0.0)) * v
    return out


def stable(model, data, q, points, normals, mu, edges: int = 4) -> bool:
    """Whether forces in the friction cones (``edges``-sided pyramids inside them) at world
    ``points`` (k, 3) with unit inward ``normals`` (k, 3) and friction ``mu`` (k,) balance the
    weight of ``model`` at ``q`` ((6.11)-(6.12), unlimited torques): an LP feasibility test."""
    if len(points) == 0:
        return False
    com = pin.centerOfMass(model, data, q)
    mg = pin.computeTotalMass(model) * model.gravity.linear
    cols = []
    for p, n, m in zip(points, normals, mu):
        t = np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0])
        t /= np.linalg.norm(t)
        s = np.cross(n, t)
        for k in range(edges):
            a = 2 * np.pi * k / edges
            u = n + m * np.cos(np.pi / edges) * (np.cos(a) * t + np.sin(a) * s)  # inscribed pyramid
            cols.append(np.concatenate([u, np.cross(p, u)]))
    A = np.array(cols).T
    b = -np.concatenate([mg, np.cross(com, mg)])
    res = linprog(np.zeros(A.shape[1]), A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    return bool(res.status == 0)


@dataclass
class GuideRoadmap:
    """The roadmap: ``nodes`` (configurations), ``edges`` {i: {j: length}} and the ``path``
    (node indices start -> goal, or None)."""

    nodes: list
    edges: dict
    path: list | None

    @property
    def guide(self) -> list:
        """The configurations of the path (the key postures of a guide), or []."""
        return [self.nodes[i] for i in self.path] if self.path else []


class PrmGuide:
    """The PRM of the module docstring for ``robot`` on ``surfaces`` among ``obstacles``; ``locations``
    the contact locations that may touch; ``key_postures`` (k, nq) for the posture sampling."""

    def __init__(
        self,
        robot,
        surfaces,
        obstacles,
        locations,
        key_postures,
        eps_contact: float = 0.03,
        margin: float = -0.05,
        max_contacts: int = 4,
        radius: float = 0.6,
        segment_points: int = 5,
        kappa: float = 20.0,
        near: float = 0.15,
    ):
        self.robot, self.model = robot, robot.model
        self.surfaces = list(surfaces)
        self.locations = list(locations)
        self.keys = np.atleast_2d(np.asarray(key_postures, float))
        self.eps, self.margin = float(eps_contact), float(margin)
        self.max_contacts, self.radius, self.segment_points, self.kappa = max_contacts, radius, segment_points, kappa
        self.near = float(near)
        self.coords = GuideCoordinates(self.model)
        self.data = self.model.createData()
        caps = robot_capsules(self.model, robot.collision_model)
        # the ground obstacle (the contact planner's, `feasibility.on_ground`) is left to the floor
        # surfaces here: C_guide's contacts are within eps of them, and the lax capsule margin is
        # not the foot's 4.5 cm overreach below its sole
        obstacles = [o for o in obstacles if o.name != GROUND]
        self.collision = EnvironmentCollision(self.model, obstacles, capsules=caps, margin=self.margin)
        self.settings = PostureSolverSettings(max_iterations=100, stall_iterations=20)

    # --- C_guide
    def contacts(self, q) -> list:
        """(location, surface, distance) of the locations within ``eps_contact`` of a surface
        (in front of it, inside its polygon), nearest first."""
        pin.framesForwardKinematics(self.model, self.data, q)
        out = []
        for name in self.locations:
            loc = self.robot.contact_locations[name]
            p = self.data.oMf[self.model.getFrameId(loc.body)].act(np.asarray(loc.point, float))
            for s in self.surfaces:
                d = float((p - s.centroid) @ s.normal)
                if -1e-4 <= d <= self.eps and s.contains(p):
                    out.append((name, s, d))
        return sorted(out, key=lambda c: c[2])

    def collision_free(self, q) -> bool:
        pin.computeJointJacobians(self.model, self.data, q)
        return not self.collision.dim or bool(np.min(self.collision.distances(self.data)[0]) >= self.margin - 1e-6)

    def is_stable(self, q, contacts) -> bool:
        pin.framesForwardKinematics(self.model, self.data, q)
        pts, nrm, mu = [], [], []
        for name, s, _ in contacts:
            loc = self.robot.contact_locations[name]
            M = self.data.oMf[self.model.getFrameId(loc.body)]
            for h in np.asarray(loc.hull, float):
                pts.append(M.act(h)), nrm.append(s.normal), mu.append(s.friction)
        return stable(self.model, self.data, q, np.array(pts), np.array(nrm), np.array(mu))

    def in_guide(self, q) -> bool:
        """q in C_guide: collision-free, stable on the locations in contact."""
        return self.collision_free(q) and self.is_stable(q, self.contacts(q))

    # --- sampling and projection
    def sample(self, rng, box) -> np.ndarray:
        lo, hi = np.asarray(box[0], float), np.asarray(box[1], float)
        w = rng.dirichlet(np.ones(len(self.keys)))[1:] if len(self.keys) > 1 else np.zeros(0)
        q = self.keys[0] + (w[:, None] * (self.keys[1:] - self.keys[0])).sum(axis=0) if len(w) else self.keys[0].copy()
        q[:3] = rng.uniform(lo, hi)
        q[3:7] = vmf(rng, self.keys[0][3:7], self.kappa, 1)[0]
        return q

    def sample_near(self, rng, q_end, box) -> np.ndarray:
        """A sample about the configuration ``q_end`` (module docstring, "Isolated ends"): the
        root uniform within ``near`` of its root, the orientation by VMF about its orientation,
        the joints at a uniform point between its joints and those of a `sample` in ``box``."""
        q = self.sample(rng, box)
        w = rng.uniform()
        q[7:] = q_end[7:] + w * (q[7:] - q_end[7:])
        q[:3] = q_end[:3] + rng.uniform(-self.near, self.near, 3)
        q[3:7] = vmf(rng, q_end[3:7], self.kappa, 1)[0]
        return q

    def project_on_guide_space(self, q):
        """The projection of ``q`` on C_guide (module docstring), or None."""
        near = []
        pin.framesForwardKinematics(self.model, self.data, q)
        for name in self.locations:
            loc = self.robot.contact_locations[name]
            p = self.data.oMf[self.model.getFrameId(loc.body)].act(np.asarray(loc.point, float))
            best = min(((abs((p - s.centroid) @ s.normal), s) for s in self.surfaces if s.contains(p)), default=None)
            if best is not None:
                near.append((best[0], name, best[1]))
        near.sort(key=lambda t: t[0])
        cons = [self.collision] if self.collision.dim else []
        for _, name, s in near[: self.max_contacts]:
            rf = RobotContactFrame.from_location(self.robot.contact_locations[name])
            cons.append(LightContact(self.model, rf, EnvironmentFrame.on_surface(s), name=f"guide:{name}"))
            res = solve(PostureProblem(self.model, cons, q, None), self.settings)
            if not res.success:
                return None
            q = res.q
            if self.is_stable(q, self.contacts(q)):
                return q
        return None

    # --- roadmap
    def _segment_ok(self, a, b) -> bool:
        ya, yb = self.coords(a), self.coords(b)
        contacts = self.contacts(a) + self.contacts(b)
        for t in np.linspace(0, 1, self.segment_points + 2)[1:-1]:
            q = self.coords.configuration((1 - t) * ya + t * yb, a)
            if not (self.collision_free(q) and self.is_stable(q, contacts)):
                return False
        return True

    def plan(self, start, goal, box, seed: int = 0, max_samples: int = 200) -> GuideRoadmap:
        """A roadmap from ``start`` to ``goal`` (both in C_guide) sampling the root in ``box`` =
        (lower (3,), upper (3,)) [m]; ``seed`` fixes the samples."""
        start, goal = np.asarray(start, float), np.asarray(goal, float)
        for name, q in (("start", start), ("goal", goal)):
            if not self.in_guide(q):
                raise PlanningError(f"PRM guide: the {name} configuration is not in C_guide (stable, in contact, free)")
        rng = np.random.default_rng(seed)
        nodes, edges = [start, goal], {0: {}, 1: {}}
        self._link(nodes, edges, 1)
        for k in range(max_samples):
            path = self._shortest(nodes, edges)
            if path is not None:
                return GuideRoadmap(nodes, edges, path)
            alone = [i for i in (0, 1) if not edges[i]] if self.near > 0 else []
            if alone and k % 2:  # every other sample about an end without edges
                q = self.project_on_guide_space(self.sample_near(rng, nodes[alone[(k // 2) % len(alone)]], box))
            else:
                q = self.project_on_guide_space(self.sample(rng, box))
            if q is None:
                continue
            nodes.append(q)
            edges[len(nodes) - 1] = {}
            self._link(nodes, edges, len(nodes) - 1)
        return GuideRoadmap(nodes, edges, self._shortest(nodes, edges))

    def _link(self, nodes, edges, i):
        y = self.coords(nodes[i])
        for j in sorted(range(i), key=lambda j: np.linalg.norm(self.coords(nodes[j]) - y)):
            d = float(np.linalg.norm(self.coords(nodes[j]) - y))
            if d > self.radius:
                break
            if self._segment_ok(nodes[j], nodes[i]):
                edges[i][j] = edges[j][i] = d

    @staticmethod
    def _shortest(nodes, edges):
        dist, prev, heap = {0: 0.0}, {}, [(0.0, 0)]
        while heap:
            d, i = heapq.heappop(heap)
            if i == 1:
                path = [1]
                while path[-1] != 0:
                    path.append(prev[path[-1]])
                return path[::-1]
            if d > dist.get(i, np.inf):
                continue
            for j, w in edges[i].items():
                if d + w < dist.get(j, np.inf):
                    dist[j], prev[j] = d + w, i
                    heapq.heappush(heap, (d + w, j))
        return None
