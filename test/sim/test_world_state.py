"""`World.get_state` / `World.set_state`: a run can be saved (pickled), restored,
branched and replayed bit for bit; a snapshot of another world is refused."""

import pickle

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError
from humanoid_sim.stages.actuators import JointTrajectory
from humanoid_sim.world import World

STEPS = 1000  # replay length (chosen: 1 s at 1 ms)


def run(world, steps):
    """(q, v) after each of ``steps`` steps, stacked."""
    qs, vs = [], []
    for _ in range(steps):
        world.step()
        qs.append(world.q.copy())
        vs.append(world.v.copy())
    return np.array(qs), np.array(vs)


@pytest.fixture(scope="module")
def hrp2_run():
    """HRP-2 on 'flat' with everything that carries state between steps active: contacts and
    their warm start, a trajectory on the head and one arm, a timed push, and the implicit PD
    damping; snapshot after 200 steps, then STEPS more steps recorded."""
    w = World.from_scene("flat")
    r = w.robot
    names = list(r.joint_names)
    i_head, i_arm = names.index("HEAD_JOINT1"), names.index("RARM_JOINT0")
    q0 = w.q[w.act_q].copy()
    goal = q0.copy()
    goal[i_head], goal[i_arm] = 0.3, q0[i_arm] - 0.5
    w.actuator.set_trajectory(JointTrajectory([0.0, 0.8], np.array([q0, goal]), names=names), w.t)
    w.step(150)
    w.apply_wrench("BODY", force=(60.0, 0.0, 0.0), duration=0.1)
    w.step(50)
    snap = w.get_state()
    first = run(w, STEPS)
    return w, snap, first


def test_restore_then_step_1000_times_repeats_the_trajectory_to_the_last_bit(hrp2_run):
    w, snap, (q1, v1) = hrp2_run
    w.set_state(snap)
    q2, v2 = run(w, STEPS)
    assert np.array_equal(q1, q2) and np.array_equal(v1, v2)
    assert w.last.batch.m > 0  # contacts all along (the warm start was part of the state)


def test_a_pickled_snapshot_restores_a_fresh_world_of_the_same_scene(hrp2_run):
    _, snap, (q1, v1) = hrp2_run
    fresh = World.from_scene("flat")
    fresh.set_state(pickle.loads(pickle.dumps(snap)))
    assert fresh.t == snap.t and fresh.steps == snap.steps
    q2, v2 = run(fresh, 300)
    assert np.array_equal(q1[:300], q2) and np.array_equal(v1[:300], v2)


def test_a_branch_differs_and_the_snapshot_is_not_changed_by_it(hrp2_run):
    w, snap, (q1, _) = hrp2_run
    q_snap = snap.q.copy()
    w.set_state(snap)
    w.apply_wrench("BODY", force=(0.0, 80.0, 0.0), duration=0.2)  # another push: another branch
    q_branch, _ = run(w, 300)
    assert np.abs(q_branch[-1] - q1[299]).max() > 1e-4
    assert np.array_equal(snap.q, q_snap)  # the branch did not write into the snapshot
    w.set_state(snap)
    q3, _ = run(w, 300)
    assert np.array_equal(q3, q1[:300])


def test_a_snapshot_of_another_world_is_refused_before_anything_changes(hrp2_run):
    w, snap, _ = hrp2_run
    drop = World.from_scene("sphere_drop")
    t, q = drop.t, drop.q.copy()
    with pytest.raises(
        ConfigError, match=r"world: set_state: a snapshot of a world with nq, nv = 7, 6 expected; got nq, nv = 37, 36"
    ):
        drop.set_state(snap)
    with pytest.raises(ConfigError, match="got dict"):
        w.set_state({"t": 0.0})
    assert drop.t == t and np.array_equal(drop.q, q)
