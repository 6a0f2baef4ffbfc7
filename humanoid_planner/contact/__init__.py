"""Contact planner (Escande 2008, ch. 5 and 6): best-first search in the space of stances, each node
holding a witness posture found by the posture generator (`humanoid_planner.posture`). No ROS
imports. docs/contact_planner.md.

- `stance`: `Contact` (location, surface, x, y, theta), `Stance`, the total order and the scaled
  epsilon test (§5.3.3); `registry`: the ordered container N of generated stances.
- `node`: `Node` (stance, witness posture, father, potential, bookkeeping flags).
- `boxes`: search boxes (x, y, theta) and their splitting (δl × δl × δθ, §6.1.2.3).
- `potentials`: the potentials family (mixed, bonus/malus, guide trajectory, body potentials; one
  interface, a kind of `posture.PostureCriterion`; registry ``POTENTIALS``), the configuration
  part used as the PG criterion (§6.2.2).
- `feasibility`: the posture-generator calls of the planner (transition rule of §5.3.1.3,
  pre-contact test, goal test) and their statistics; `collision_pairs`: the obstacle and
  self-collision pairs those calls carry, lazily, in rounds. The constraints of the calls are
  posture constraints (`humanoid_planner.posture`: contacts, the goal tasks `ComRegion` and
  `PointRegion`, the pre-contact test's `HalfPlanes` and `Relaxed` stance, the fast-fail
  `WithBand`).
- `children`: 1-neighbours (removal, addition with forbidden pairs, pre-contact and box
  splitting), eagerly (BFP) or lazily (Contacts-VBFP).
- `search`: `PlannerSettings`, `ContactPlanner.plan` (best-first with the threshold M, the goal
  tested before expansion), `Plan`; `parallel`: the children's PG calls over worker processes.
- `scene_problem`: a contact-planning problem from a scene's ``planning`` section (`scene_planning`
  returns a `ScenePlanning`: the planner, the start configuration and stance).
- `check`: `check_plan`, the independent check of a plan (transition rule, collisions, goal), and
  `motion_problems`, its motion's collisions at the samples.
- `prm_guide`: an automatic guide (key postures) by a PRM in C_guide (§6.4); `grid`: the grid
  templates of BFP and VBFP (§5.2, §6.2.1) the planner transposes.
"""

from .boxes import Box
from .check import check_plan, motion_problems
from .node import Node
from .potentials import (
    POTENTIALS,
    BodyPotential,
    GuidePotential,
    MixedPotential,
    Potential,
    StanceBonus,
    WeightedSum,
)
from .registry import StanceRegistry
from .scene_problem import ScenePlanning, scene_planning
from .search import ContactPlanner, Plan, PlannerSettings, Progress
from .stance import Contact, Stance, StanceMetric

__all__ = [
    "POTENTIALS",
    "BodyPotential",
    "Box",
    "Contact",
    "ContactPlanner",
    "GuidePotential",
    "MixedPotential",
    "Node",
    "Plan",
    "PlannerSettings",
    "Potential",
    "Progress",
    "ScenePlanning",
    "Stance",
    "StanceMetric",
    "StanceBonus",
    "StanceRegistry",
    "WeightedSum",
    "check_plan",
    "motion_problems",
    "scene_planning",
]
