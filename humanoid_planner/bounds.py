"""The bounds on the counts and durations a user gives the planners, in one place: the libraries
check them (`humanoid_planner.contact.settings_check`, `humanoid_planner.motion.MotionSettings`,
`humanoid_planner.walking_pattern.WalkParameters`, `humanoid_planner.gait.make_problem`) and the
commands state them in their ``--help`` (this module imports nothing, so the CLI reads it at once).
Each keeps a run finite in time and memory; every number is chosen, for the reason beside it.
docs/planning.md, docs/walking.md and docs/gait.md list them.
"""

# ---- the contact planner's settings (PlannerSettings)
#: worker processes: each holds its own copy of the robot and the planner, so more than this is a
#: typo, not a machine
MAX_WORKERS = 64
#: PG successes per (location, surface) pair in BFP; the default is 6 (0: no cap)
MAX_CANDIDATES = 1000
#: expanded nodes of a search; the walk problem sets 10,000
MAX_EXPANDED = 100_000
#: [1/m] random candidates per metre of surface; the scenes use 4-8
MAX_DENSITY = 1000.0
#: [s] the search's time limit: one day (the default is 120 s)
MAX_TIME_LIMIT = 86_400.0
#: the largest seed: 2^32 - 1, the seeds NumPy's generators take from any source
MAX_SEED = 2**32 - 1
#: the posture generator's iteration counts (defaults 100 and 50)
MAX_SOLVER_ITERATIONS = 10_000
#: restarts of a search (default 0; the under-table scene sets 11): a hundred searches is a sweep, not a plan
MAX_RESTARTS = 100
#: [rad] a restarted search's joint jitter (default 1e-3): a tenth of a radian is a new start, not a jitter
MAX_RESTART_JITTER = 0.1

# ---- the motion through a plan (MotionSettings)
#: projections per transition: ten times the thesis's k = 20 (each is a posture-generator call per
#: segment)
MAX_MOTION_STEPS = 200
#: [s] the trajectory period: faster than any joint controller's (HRP-2's 5 ms, the usual 1 ms);
#: slower, a segment of a second has a handful of samples, and a period longer than a segment made
#: a "motion" of one sample
MIN_DT, MAX_DT = 1e-4, 0.1
#: [rad/s, m/s] the speed caps' lower bound (0.0573 deg/s): slower, a one-radian segment takes 17 min
MIN_SPEED = 1e-3
#: samples of a whole motion: 1,000 s at the default 5 ms; HRP-2's PLAN.json is then ~150 MB, under
#: the 512 MiB the readers take (`humanoid_model.files.MAX_INPUT_BYTES`)
MAX_SAMPLES = 200_000
#: halvings of a piece between projections a caller may set (the default is 4): 1,024 pieces at most
MAX_REFINEMENTS = 10

# ---- the walking pattern (WalkParameters)
#: footsteps of a walk: 20 m at 0.2 m steps
MAX_WALK_STEPS = 100
#: samples of a walking pattern: the 100-step walk at the default timings (1 s per step) at 1 kHz,
#: rounded up; each sample is one whole-body IK solve, and WALK.json is then ~160 MB
MAX_WALK_SAMPLES = 150_000
#: [s] a phase of the walking pattern (single and double support, the start and the end): over
#: twelve times the default 0.8 s single support
MAX_WALK_PHASE = 10.0

# ---- the optimal gait (make_problem)
#: [s] a phase's duration given with --ds / --ss: four times the thesis's 0.5 s single support at
#: most (the phase's fixed grid of 34 or 50 intervals is then 40 ms), 20 ms at least (a few ms per
#: interval); the thesis's are 0.17 and 0.5 s
MIN_PHASE_DURATION, MAX_PHASE_DURATION = 0.02, 2.0
#: cyclic steps of a walk from rest to rest (`solve_cyclic_gait_sequence`, `plan_walk`, gait
#: --cyclic-steps): 25 m at the thesis's 0.5 m step; the repeated steps reuse one solution, so
#: the bound keeps GAIT.json's size (63 kB a cyclic step of BIP: 3.3 MB at 50) and a replay finite
MAX_CYCLIC_STEPS = 50
