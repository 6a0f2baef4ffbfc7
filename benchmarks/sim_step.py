"""Full simulator step on HRP-2 standing (acceptance tests 000 E2, E3): median step time, stage split,
solver swap, and a peer loop without collision.

    .venv/bin/python benchmarks/sim_step.py [--steps 1000] [--reps 5] [--json OUT.json] [--soles]

Cases (scene 'flat', HRP-2 half-sitting held by the World's PD, dt = 1 ms, default collision
pair set, the robot settled for 300 steps first):
  8 points   the 4 sole corners per foot (coal contact patches);
  16 points  + 4 perimeter points per sole (`World(patch_points=8)`, the thesis's 16-point
             standing set, Chardonnet 2009, §5.3);
  FEM soles  `robot.soles: fem` (docs/soles.md) with 8 or 16 ground nodes per sole (target:
             16 nodes per sole ≤ 2× the rigid 16-point step);
  flexible   `load_robot("hrp2", ankle="flexible")` (6 passive spring joints, docs/soles.md §5),
             8 points; the columns "/ rigid" and "/ rigid 16" are each row's ratio to the rigid
             8-point and 16-point nsgs_newton steps of the same repetition;
  Talos      example-robot-data's talos_reduced (mesh links as convex hulls, mesh feet) on 'flat', when the
             `robots` extra is installed; "no separation bounds": every mobile pair the broad phase keeps
             goes to coal (`humanoid_sim.collision.separation`, off), the step before those bounds;
  avatar     the human avatar on 'avatar_standing' (docs/avatar.md): its 8 ball joints as
             quaternion joints, against the same URDF read without its sidecar (each ball joint
             three revolute joints with massless links, all angles zero: the thesis's comparison,
             Chardonnet 2009, §3.3.3, "no notable difference" in step time).
Solvers: nsgs_newton (default), nsgs, pinocchio_admm, pinocchio_pgs (the same pipeline with only
the solver swapped). Peers: "pin loop" = a plain Python loop on Pinocchio calls without collision
detection, the usual Pinocchio time-stepping loop (crba, nonLinearEffects, Cholesky, fixed
sole-corner Jacobians, dense G = J M⁻¹ Jᵀ, pin.ADMMConstraintSolver / PGSConstraintSolver,
integrate), with the same robot, gains and implicit PD damping, 8 points; "MuJoCo" (only when
`import mujoco` works: optional extra ``peers``, benchmarks/README.md) = mj_step on the same URDF, meshes stripped,
free joint, floor plane, the same sole boxes (`MujocoLoop`), pyramidal and elliptic cones; with Talos
also MuJoCo on Talos's own collision meshes (hulls) and our step's self pairs ("Talos meshes"), and
the ratio of our Talos step to it, repetition by repetition (target: at most 5).
All configurations run interleaved in every repetition (the machine is noisy); the table gives
the median over repetitions of each repetition's median step time, and ratios to the pin-loop
ADMM step measured in the same repetition. Stage times are per-step medians [µs] (they need
not add up to the median step). "CPU" is the median of each step's thread CPU time
(`time.thread_time`), which a loaded machine inflates less than the wall time: a step that
is descheduled keeps its CPU time, and a longer step is descheduled more often. ``--soles``:
only the sole rows (rigid 8 and 16 points, FEM soles 8 and 16 nodes per sole, flexible ankles).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pinocchio as pin  # noqa: E402

from humanoid_model.paths import example_robot  # noqa: E402
from humanoid_sim.step_stats import STAGES  # noqa: E402
from humanoid_sim.world import World  # noqa: E402

DT = 1e-3
TALOS = "talos_data/robots/talos_reduced.urdf"  # example-robot-data (the `robots` extra)


def make_world(points, solver, soles=None, robot=None, scene="flat"):
    w = World.from_scene(scene, robot=robot, solver=solver, dt=DT, patch_points=points, soles=soles)
    w.step(300)
    return w


def avatar_triples(tmp):
    """The avatar's URDF with its sidecar less the ``spherical:`` section: each ball joint stays
    three revolute joints (same postures, contacts, gains rule)."""
    import shutil

    import yaml

    from humanoid_model.paths import urdf_dir

    shutil.copy(urdf_dir() / "avatar.urdf", Path(tmp) / "avatar_triples.urdf")
    doc = yaml.safe_load((urdf_dir() / "avatar.yaml").read_text())
    doc.pop("spherical")
    (Path(tmp) / "avatar_triples.yaml").write_text(yaml.safe_dump(doc))
    return str(Path(tmp) / "avatar_triples.urdf")


def fem_soles(nodes):
    """HRP-2's FEM soles (urdf/hrp2.yaml) with 8 (3 × 1 × 2 cells) or 16 (the YAML's 3 × 3 × 2) ground nodes."""
    import dataclasses

    from humanoid_model import load_robot

    res = {8: (0.074, 0.13, 0.01), 16: (0.074, 0.044, 0.01)}[nodes]
    return [dataclasses.replace(s, resolution=res) for s in load_robot("hrp2").soles.values()]


def run_world(w, steps):
    """Median step and stage times [µs] of ``steps`` steps (`StepStats` samples), the median thread
    CPU time of a step [µs], iterations per step."""
    w.step_stats.drain()
    w.step_stats.keep_samples(steps)
    cpu = np.empty(steps)
    for i in range(steps):
        t0 = time.thread_time_ns()
        w.step()
        cpu[i] = time.thread_time_ns() - t0
    s = w.step_stats.drain()
    med = np.median(s.samples, axis=0)
    return {
        "median_us": 1e6 * float(med[0]),
        "cpu_us": 1e-3 * float(np.median(cpu)),
        "stages_us": {k: 1e6 * float(v) for k, v in zip(STAGES, med[1:])},
        "iterations": s.iterations_total / steps,
        "contacts": int(w.last.batch.m),
    }


class PinLoop:
    """Peer: Pinocchio-only loop, 8 fixed sole corners, no collision detection."""

    def __init__(self, world, solver):
        m = pin.Model(world.model)
        self.model, self.data = m, m.createData()
        act = world.actuator
        self.kp = np.zeros(m.nv)
        self.kd = np.zeros(m.nv)
        self.kp[6:], self.kd[6:] = act.kp, act.kv
        m.armature = world.arm0 + DT * self.kd
        self.qref = world.q0.copy()
        self.q0 = world.q0.copy()
        rob = world.robot
        self.feet, corners = [], []
        for name in ("r_sole", "l_sole"):
            loc = rob.contact_locations[name]
            fr = m.frames[m.getFrameId(loc.body)]
            self.feet.append(fr.parentJoint)
            corners.append(np.array([fr.placement.act(p) for p in loc.hull]))
        self.corners = corners
        self.A = [np.vstack([np.hstack([np.eye(3), -pin.skew(c)]) for c in cs]) for cs in corners]
        self.cms = pin.StdVec_ConstraintModel()
        for jid in self.feet:
            for _c in range(4):
                cm = pin.PointContactConstraintModel(m, 0, pin.SE3.Identity(), jid, pin.SE3.Identity())
                cm.setFriction(0.4)
                self.cms.append(cm)
        self.cds = pin.StdVec_ConstraintData()
        for cm in self.cms:
            self.cds.append(cm.createData())
        n = 3 * len(self.cms)
        if solver == "admm":
            self.solver, self.settings, self.result = (
                pin.ADMMConstraintSolver(n),
                pin.ADMMSolverSettings(),
                pin.ADMMSolverResult(),
            )
        else:
            self.solver, self.settings, self.result = (
                pin.PGSConstraintSolver(n),
                pin.PGSSolverSettings(),
                pin.PGSSolverResult(),
            )

    def run(self, steps):
        m, d = self.model, self.data
        q, v = self.q0.copy(), np.zeros(m.nv)
        lam = np.zeros(3 * len(self.cms))
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            tau = self.kp * pin.difference(m, q, self.qref) - self.kd * v
            tau[:6] = 0.0
            pin.computeJointJacobians(m, d, q)
            pin.crba(m, d, q)
            b = pin.nonLinearEffects(m, d, q, v)
            pin.cholesky.decompose(m, d)
            vf = v + DT * pin.cholesky.solve(m, d, tau - b)
            blocks, gaps = [], []
            for j, A, cs in zip(self.feet, self.A, self.corners):
                R = d.oMi[j].rotation
                local = (A @ pin.getJointJacobian(m, d, j, pin.LOCAL)).reshape(4, 3, -1)
                blocks.append(R @ local)
                gaps.append(d.oMi[j].translation[2] + cs @ R[2])
            J = np.concatenate(blocks).reshape(-1, m.nv)
            gaps = np.concatenate(gaps)
            MinvJt = pin.cholesky.computeMinv(m, d) @ J.T
            G = J @ MinvJt
            g = J @ vf
            g[2::3] += np.where(gaps > 0, gaps, 0.2 * gaps) / DT
            self.result.setConstraintImpulseGuess(lam)
            self.solver.solve(pin.DelassusOperatorDense(G), g, self.cms, self.cds, self.settings, self.result)
            lam = self.result.retrieveConstraintImpulses()
            v = vf + MinvJt @ lam
            q = pin.integrate(m, q, v * DT)
            times.append(time.perf_counter() - t0)
        return {"median_us": 1e6 * statistics.median(times)}


class MujocoLoop:
    """Peer: MuJoCo (optional extra ``peers``) on the same HRP-2 URDF, set up as a MuJoCo model of a
    standing humanoid usually is: visual/collision meshes stripped, a free joint, a floor
    plane, and as the only colliding geometry the sole boxes that touch the floor in ``world`` (the
    same coal boxes, placements and friction as our step). Same half-sitting start, PD gains
    (K_p as a position actuator, K_v as joint damping, which MuJoCo's Euler integrator treats
    implicitly, as our M̃ = M + dt K_v does), armature, dt; joint limits and URDF joint
    friction/damping off. ``cone``: "pyramidal" (MuJoCo's default) or "elliptic". ``meshes``: the
    URDF's own collision geometry kept instead (its meshes as MuJoCo's convex hulls), every geom
    colliding with the floor, and with another body's geoms only where our step's collision pair
    set (`CollisionDetector.mobile_pairs`) has that body pair (MuJoCo's default, every non-adjacent
    pair, makes Talos's hulls of links two apart overlap at rest: the robot collapses); no sole
    boxes added: the Talos peer row, the same meshes as our step."""

    def __init__(self, world, cone, meshes=False):
        import xml.etree.ElementTree as ET

        import mujoco

        from humanoid_model.mesh_paths import resolve_urdf_paths

        self.mj = mujoco
        root = ET.fromstring(resolve_urdf_paths(world.robot.urdf_path))
        for link in root.findall("link"):
            for tag in ("visual",) if meshes else ("visual", "collision"):
                for e in link.findall(tag):
                    link.remove(e)
        if meshes:  # MuJoCo's URDF reader: keep the absolute mesh paths, hulls for collision
            ET.SubElement(ET.SubElement(root, "mujoco"), "compiler", strippath="false", fusestatic="false")
        spec = mujoco.MjSpec.from_string(ET.tostring(root, encoding="unicode"))
        spec.option.timestep = DT
        spec.option.cone = getattr(mujoco.mjtCone, "mjCONE_" + cone.upper())
        spec.option.gravity = np.asarray(world.scene.gravity, float)
        spec.worldbody.first_body().add_freejoint()
        batch = world.last.batch
        mu = float(batch.mu[0])
        spec.worldbody.add_geom(
            type=mujoco.mjtGeom.mjGEOM_PLANE,
            size=[0, 0, 1],
            friction=[mu, 0.005, 0.0001],
            contype=1 if meshes else 0,
            conaffinity=1,
        )
        if meshes:
            self._self_pairs(spec, world)
        for gi in [] if meshes else sorted(set(batch.geom_a.tolist())):
            g = world.mobile[gi]
            body = spec.body(g.body)
            if body is None:
                raise RuntimeError(f"MuJoCo model has no body {g.body!r}")
            quat = np.zeros(4)
            mujoco.mju_mat2Quat(quat, np.ascontiguousarray(g.placement_R, float).reshape(-1))
            body.add_geom(
                type=mujoco.mjtGeom.mjGEOM_BOX,
                size=np.asarray(g.shape.halfSide, float),
                pos=np.asarray(g.placement_p, float),
                quat=quat,
                friction=[mu, 0.005, 0.0001],
                contype=1,
                conaffinity=0,
            )
        names = world.robot.joint_names
        kp, kv = world.actuator.kp, world.actuator.kv
        for jn, k in zip(names, kp):
            spec.add_actuator(
                name=jn,
                target=jn,
                trntype=mujoco.mjtTrn.mjTRN_JOINT,
                gaintype=mujoco.mjtGain.mjGAIN_FIXED,
                gainprm=[k] + [0] * 9,
                biastype=mujoco.mjtBias.mjBIAS_AFFINE,
                biasprm=[0, -k, 0] + [0] * 7,
            )
        m = spec.compile()
        m.jnt_limited[:] = 0
        m.dof_frictionloss[:] = 0
        m.dof_damping[:] = 0
        q0 = world.q0
        self.qpos0 = np.zeros(m.nq)
        self.qpos0[:3] = q0[:3]
        self.qpos0[3:7] = [q0[6], q0[3], q0[4], q0[5]]  # xyzw -> wxyz
        self.ctrl = np.zeros(m.nu)
        rm = world.robot.model
        for _i, (jn, d) in enumerate(zip(names, kv)):
            jid = m.joint(jn).id
            dof = m.jnt_dofadr[jid]
            m.dof_damping[dof] = d
            m.dof_armature[dof] = world.arm0[rm.joints[rm.getJointId(jn)].idx_v]
            self.qpos0[m.jnt_qposadr[jid]] = q0[rm.joints[rm.getJointId(jn)].idx_q]
            self.ctrl[m.actuator(jn).id] = q0[rm.joints[rm.getJointId(jn)].idx_q]
        self.m, self.d = m, mujoco.MjData(m)
        self.mj.mj_resetData(m, self.d)
        self.d.qpos[:] = self.qpos0
        self.d.ctrl[:] = self.ctrl
        self.mj.mj_step(m, self.d, nstep=300)  # settle, as the Worlds

    def _self_pairs(self, spec, world):
        """Robot geoms collide with the floor (conaffinity) and, as explicit pairs, with the geoms of
        the bodies our step pairs them with."""
        geoms = {}
        for body in spec.bodies:
            if body == spec.worldbody:  # the floor
                continue
            for k, g in enumerate(body.geoms):
                g.name = f"{body.name}/{k}"
                g.contype, g.conaffinity = 0, 1
                geoms.setdefault(body.name, []).append(g.name)
        bodies = {tuple(sorted((world.mobile[a].body, world.mobile[b].body))) for a, b in world.detector.mobile_pairs}
        for a, b in sorted(bodies):
            for ga in geoms.get(a, []):
                for gb in geoms.get(b, []):
                    spec.add_pair(geomname1=ga, geomname2=gb)

    def run(self, steps):
        mj, m, d = self.mj, self.m, self.d
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            mj.mj_step(m, d)
            times.append(time.perf_counter() - t0)
        return {"median_us": 1e6 * statistics.median(times), "contacts": int(d.ncon)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--soles", action="store_true", help="only the sole rows (module docstring)")
    args = ap.parse_args()

    configs = {}
    for pts, label in ((0, "8 points"), (8, "16 points")):
        for solver in ("nsgs_newton", "nsgs", "pinocchio_admm", "pinocchio_pgs"):
            if not args.soles or solver == "nsgs_newton":
                configs[f"{label}, {solver}"] = make_world(pts, solver)
    for nodes in (8, 16):  # FEM soles (docs/soles.md), against the rigid 8- and 16-point steps of the same run
        configs[f"FEM soles {nodes} nodes/sole, nsgs_newton"] = make_world(0, "nsgs_newton", fem_soles(nodes))
    from humanoid_model import load_robot

    flexible = load_robot("hrp2", ankle="flexible")
    configs["flexible ankles, 8 points, nsgs_newton"] = make_world(0, "nsgs_newton", robot=flexible)
    if args.soles:
        report(configs, {}, args, None)
        return
    import tempfile

    tmp = tempfile.mkdtemp()
    configs["avatar, 8 ball joints (quaternions), nsgs_newton"] = make_world(
        0, "nsgs_newton", robot=load_robot("avatar"), scene="avatar_standing"
    )
    configs["avatar, ball joints as 24 revolute joints, nsgs_newton"] = make_world(
        0, "nsgs_newton", robot=load_robot(avatar_triples(tmp)), scene="avatar_standing"
    )
    talos = example_robot(TALOS)  # mesh links (convex hulls): about 120 self pairs pass the broad phase
    if talos is not None:
        configs["Talos (mesh links), nsgs_newton"] = make_world(0, "nsgs_newton", robot=str(talos))
        before = make_world(0, "nsgs_newton", robot=str(talos))
        before.detector.separation = None
        configs["Talos (mesh links), nsgs_newton, no separation bounds"] = before
    else:
        print("example-robot-data not installed: no Talos rows (optional extra: pip install .[robots]).")
    base_world = configs["8 points, nsgs_newton"]
    peers = {
        "pin loop (no collision), ADMM, 8 points": PinLoop(base_world, "admm"),
        "pin loop (no collision), PGS, 8 points": PinLoop(base_world, "pgs"),
    }
    try:
        import mujoco

        for cone in ("pyramidal", "elliptic"):
            peers[f"MuJoCo {mujoco.__version__}, {cone} cone, sole boxes"] = MujocoLoop(base_world, cone)
        if talos is not None:
            talos_world = configs["Talos (mesh links), nsgs_newton"]
            for cone in ("pyramidal", "elliptic"):
                peers[f"MuJoCo {mujoco.__version__}, {cone} cone, Talos meshes"] = MujocoLoop(talos_world, cone, True)
        mj_note = None
    except ImportError:
        mj_note = "MuJoCo not installed: no MuJoCo rows (optional extra: pip install .[peers])."
    report(configs, peers, args, mj_note)


def report(configs, peers, args, mj_note):
    """Run every configuration and peer interleaved, ``args.reps`` times, and print the table."""
    rows = {k: [] for k in list(configs) + list(peers)}
    for rep in range(args.reps):
        for k, w in configs.items():
            rows[k].append(run_world(w, args.steps))
        for k, p in peers.items():
            p.run(50)
            rows[k].append(p.run(args.steps))
        print(f"repetition {rep + 1}/{args.reps} done", file=sys.stderr)
    ref = "pin loop (no collision), ADMM, 8 points"
    rigid = "8 points, nsgs_newton"
    rigid16 = "16 points, nsgs_newton"
    out = {}
    for k, rs in rows.items():
        med = statistics.median(r["median_us"] for r in rs)
        nan = float("nan")
        ratio = statistics.median(r["median_us"] / rr["median_us"] for r, rr in zip(rs, rows[ref])) if peers else nan
        to_rigid = statistics.median(r["median_us"] / rr["median_us"] for r, rr in zip(rs, rows[rigid]))
        to_rigid16 = statistics.median(r["median_us"] / rr["median_us"] for r, rr in zip(rs, rows[rigid16]))
        o = {
            "median_us": med,
            "ratio_to_pin_admm_loop": ratio,
            "ratio_to_rigid_8_points": to_rigid,
            "ratio_to_rigid_16_points": to_rigid16,
        }
        if "cpu_us" in rs[0]:
            o["cpu_us"] = statistics.median(r["cpu_us"] for r in rs)
            cpu_ratios = (r["cpu_us"] / rr["cpu_us"] for r, rr in zip(rs, rows[rigid]))
            o["cpu_ratio_to_rigid_8_points"] = statistics.median(cpu_ratios)
        if "contacts" in rs[0]:
            o["contacts"] = rs[-1]["contacts"]
        if "stages_us" in rs[0]:
            o["stages_us"] = {s: statistics.median(r["stages_us"][s] for r in rs) for s in STAGES}
            o["iterations_per_step"] = statistics.median(r["iterations"] for r in rs)
            o["contacts"] = rs[0]["contacts"]
        out[k] = o
    print(
        "| configuration | contacts | median step [µs] | / pin-loop ADMM | / rigid | / rigid 16 | CPU [µs] "
        "| CPU / rigid | " + " | ".join(STAGES) + " | solver iterations/step |"
    )
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(STAGES) + "---|")
    for k, o in out.items():
        st = o.get("stages_us")
        cells = [f"{st[s]:.1f}" for s in STAGES] if st else ["-"] * len(STAGES)
        cpu = f"{o['cpu_us']:.1f} | {o['cpu_ratio_to_rigid_8_points']:.2f}" if "cpu_us" in o else "- | -"
        print(
            f"| {k} | {o.get('contacts', 8)} | {o['median_us']:.1f} | {o['ratio_to_pin_admm_loop']:.2f} | "
            f"{o['ratio_to_rigid_8_points']:.2f} | {o['ratio_to_rigid_16_points']:.2f} | {cpu} | "
            + " | ".join(cells)
            + f" | {o.get('iterations_per_step', float('nan')):.1f} |"
        )
    if mj_note:
        print(mj_note)
    fem = "FEM soles 16 nodes/sole, nsgs_newton"
    if fem in out:
        print(f"FEM soles, 16 nodes/sole / rigid 16 points: {out[fem]['ratio_to_rigid_16_points']:.2f} (target <= 2)")
    ours = "Talos (mesh links), nsgs_newton"
    for k in [k for k in rows if "Talos meshes" in k and ours in rows]:  # same repetition, ratio of medians
        ratio = statistics.median(r["median_us"] / m["median_us"] for r, m in zip(rows[ours], rows[k]))
        out[k]["ours_talos_over_this"] = ratio
        print(f"Talos with its meshes: ours / {k}: {ratio:.1f} (target <= 5)")
    doc = {"benchmark": "sim_step", "steps": args.steps, "reps": args.reps, "results": out}
    print(json.dumps(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
