"""`World.get_state` / `World.set_state`: a run can be saved (pickled), restored,
branched and replayed bit for bit, grasps included; a snapshot of another world is refused."""

import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError
from humanoid_model.scene import scene_from_dict
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


# ------------------------------------------------------------------ grasps
N, M = 100, 400  # steps before the snapshot and replayed after it (chosen: the bob still swinging)


def _hang():
    """A 2 kg bob near a point of a 50 kg slab on the floor (as in test_grasp_coupling.py), no grasp."""
    doc = {
        "name": "hang",
        "gravity": [0, 0, -9.81],
        "ground": {"height": 0.0, "friction": 0.4},
        "free_bodies": [
            {"name": "slab", "shape": "box", "size": [0.6, 0.6, 0.1], "mass": 50.0, "pose": {"xyz": [0, 0, 0.05]}},
            {"name": "bob", "shape": "box", "size": [0.1, 0.1, 0.1], "mass": 2.0, "pose": {"xyz": [0.5, 0, 0.5]}},
        ],
        "collision": {"exclude": [["bob", "slab"]]},
    }
    return World(scene_from_dict(doc, Path("hang.yaml")))


@pytest.fixture(scope="module")
def hang_run():
    """The bob held by the slab (point and rotational spring, a point off the bob's centre) and
    pushed sideways: snapshot after N steps, then M more steps recorded."""
    w = _hang()
    w.grasp(
        "slab", "bob", point=[0.5, 0.0, 0.45], body_point=[0.02, 0.0, -0.03], stiffness=2000.0, angular_stiffness=2.0
    )
    w.apply_wrench("bob", force=(15.0, 5.0, 0.0), point=(0.0, 0.05, 0.0), duration=0.05)
    w.step(N)
    snap = w.get_state()
    first = run(w, M)
    return w, snap, first


def test_a_world_that_never_grasped_replays_a_held_body_bit_for_bit(hang_run):
    _, snap, (q1, v1) = hang_run
    assert np.abs(v1[-1]).max() > 1e-3  # still moving: the grasp's damper and spring act all along
    fresh = _hang()
    assert fresh.grasps is None
    fresh.set_state(pickle.loads(pickle.dumps(snap)))
    q2, v2 = run(fresh, M)
    assert np.array_equal(q1, q2) and np.array_equal(v1, v2)
    # without the grasp the bob falls: the grasp was what held it
    free = _hang()
    free.set_state(dataclasses.replace(snap, grasps=None))
    q3, _ = run(free, M)
    assert not np.array_equal(q1, q3)


def test_set_state_replaces_the_world_s_grasps(hang_run):
    w, snap, (q1, v1) = hang_run
    w.release()  # let go, then restore: held again
    w.set_state(snap)
    q2, v2 = run(w, M)
    assert np.array_equal(q1, q2) and np.array_equal(v1, v2)
    other = _hang()
    other.grasp("slab", "bob", point=[0.0, 0.3, 0.1], stiffness=500.0)  # another grasp: replaced
    other.set_state(snap)
    assert list(other.grasps.couplings) == [("slab", "bob")]
    q3, v3 = run(other, M)
    assert np.array_equal(q1, q3) and np.array_equal(v1, v3)
    before = _hang().get_state()  # a snapshot without grasps lets go of the world's
    other.set_state(before)
    assert other.grasps is None


def test_a_snapshot_saved_before_grasps_were_state_restores_without_grasps(hang_run):
    _, snap, _ = hang_run
    old = dataclasses.replace(snap)
    del old.grasps  # an older pickle has no such attribute: the class default None
    w = _hang()
    w.grasp("slab", "bob", point=[0.5, 0.0, 0.45], stiffness=2000.0)
    w.set_state(pickle.loads(pickle.dumps(old)))
    assert w.grasps is None


def test_a_snapshot_whose_grasp_names_an_unknown_body_is_refused_before_anything_changes(hang_run):
    _, snap, _ = hang_run
    bad = dataclasses.replace(snap, grasps=[dict(snap.grasps[0], body="crate")])
    w = _hang()
    t, q = w.t, w.q.copy()
    with pytest.raises(ConfigError) as err:
        w.set_state(bad)
    text = str(err.value)
    assert "\n" not in text
    assert text == ("world: set_state: field 'grasps[0].body' must be a free body or robot link name; value 'crate'")
    assert w.t == t and np.array_equal(w.q, q) and w.grasps is None
