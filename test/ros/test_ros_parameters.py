"""Declarative parameter tables (humanoid_ros.parameters): the table rules, the simulator's table
against every refusal of the simulator node (same names, defaults and ranges, written out here
rather than imported from humanoid_ros.simulator), declaration on a real rclpy node
(descriptors, read-only, ranges, run-time changes), the shipped parameter files, and docs/ros.md
generated from the tables."""

import math

import pytest
import yaml
from support import REPO

from humanoid_model.exceptions import ConfigError
from humanoid_ros.parameters import (
    DOCS_COMMAND,
    TABLES,
    Parameter,
    ParameterTable,
    documented_nodes,
    load_table,
    main,
    update_docs,
)
from humanoid_ros.simulator_parameters import CONTROLLERS
from humanoid_ros.simulator_parameters import PARAMETERS as SIM
from humanoid_stack.runner import _RCLPY_PARAMETERS

DOCS = REPO / "docs" / "ros.md"

# The simulator node's parameters written out by hand, independently of the table (which must
# match them): name -> (default, dynamic). Not imported.
SIMULATOR_TODAY = {
    "robot": ("", False),
    "scene": ("flat", False),
    "dt": (1e-3, False),
    "solver": ("nsgs_newton", False),
    "solver_tolerance": (1e-6, False),
    "solver_max_iterations": (500, False),
    "solver_time_budget": (0.005, False),
    "real_time_factor": (1.0, True),
    "publish_rate": (50.0, False),
    "contacts_rate": (10.0, False),
    "clock_rate": (0.0, False),
    "frame_prefix": ("", False),
    "diagnostics_period": (1.0, False),
    "controller": ("joint_trajectory_controller", True),
    "gravity_compensation": (False, False),
    "gains.groups": ([], False),
    "gains.kp": ([], False),
    "gains.kv": ([], False),
    "external_wrench_duration": (0.1, True),
    "push.link": ("", False),
    "push.force": ([0.0, 0.0, 0.0], False),
    "push.torque": ([0.0, 0.0, 0.0], False),
    "push.start": (1.0, False),
    "push.duration": (0.1, False),
    "push.period": (0.0, False),
    "contact_force_scale": (0.003, False),
    "haptic.body": ("", True),
    "haptic.point": ([], True),
    "haptic.admittance": ([], True),
    "haptic.stiffness": (500.0, True),
    "haptic.angular_stiffness": (2.0, True),
    "haptic.radius": (0.01, True),
    "haptic.weight": (1.0, True),
}
POSITIVE = (  # the node refuses <= 0
    "dt",
    "solver_tolerance",
    "publish_rate",
    "contacts_rate",
    "diagnostics_period",
    "external_wrench_duration",
    "push.duration",
    "contact_force_scale",
    "haptic.stiffness",
)
NON_NEGATIVE = (
    "real_time_factor",
    "clock_rate",
    "push.start",
    "push.period",
    "haptic.angular_stiffness",
    "haptic.radius",
    "haptic.weight",
)  # the node refuses < 0


def test_simulator_table_has_the_node_parameters_defaults_and_dynamic_set():
    assert SIM.node == "simulator"
    assert set(SIM.names) == set(SIMULATOR_TODAY)
    defaults = SIM.defaults()
    for name, (default, dynamic) in SIMULATOR_TODAY.items():
        assert defaults[name] == default and type(defaults[name]) is type(default), name
        assert SIM[name].dynamic is dynamic, name
    assert SIM.dynamic_names == [
        "real_time_factor",
        "controller",
        "external_wrench_duration",
        *(n for n in SIMULATOR_TODAY if n.startswith("haptic.")),
    ]
    assert SIM["controller"].choices == CONTROLLERS
    assert SIM["dt"].maximum == 0.1  # as `humanoid-stack simulate --dt`


@pytest.mark.parametrize("name", POSITIVE)
def test_simulator_refuses_non_positive(name):
    for bad in (0.0, -1.0):
        with pytest.raises(ConfigError, match=rf"^node 'simulator': parameter {name} must be > 0\b.*; value {bad}$"):
            SIM.validate({name: bad})
    assert SIM.validate({name: 0.05})[name] == 0.05


@pytest.mark.parametrize("name", NON_NEGATIVE)
def test_simulator_refuses_negative(name):
    with pytest.raises(ConfigError, match=rf"^node 'simulator': parameter {name} must be >= 0\b.*; value -0.5$"):
        SIM.validate({name: -0.5})
    assert SIM.validate({name: 0})[name] == 0.0 and isinstance(SIM.validate({name: 0})[name], float)


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"dt": 0.5}, r"parameter dt must be > 0 and <= 0.1 \[s\]; value 0.5$"),
        ({"dt": -1.0}, r"dt must be > 0"),  # test_sim_node's match
        ({"dt": math.nan}, r"parameter dt must be finite; value nan$"),
        ({"dt": math.inf}, r"parameter dt must be finite; value inf$"),
        ({"dt": "fast"}, r"parameter dt must be a number; value 'fast'$"),
        ({"dt": True}, r"parameter dt must be a number; value True$"),
        ({"solver": ""}, r"parameter solver must be a non-empty string; value ''$"),
        ({"solver": "  "}, r"parameter solver must be a non-empty string; value '  '$"),
        ({"solver_max_iterations": 0}, r"parameter solver_max_iterations must be >= 1; value 0$"),
        ({"solver_max_iterations": 2.5}, r"parameter solver_max_iterations must be an integer; value 2.5$"),
        (
            {"controller": "nope"},
            r"parameter controller must be one of joint_trajectory_controller, forward_position_controller, "
            r"forward_effort_controller, whole_body_controller; value 'nope'$",
        ),
        ({"push.force": [1.0, 2.0]}, r"parameter push.force must be 3 finite numbers \[N\]; value \[1.0, 2.0\]$"),
        ({"push.torque": [0, 0, math.nan]}, r"parameter push.torque must be 3 finite numbers \[N·m\]; value"),
        ({"push.force": "up"}, r"parameter push.force must be 3 finite numbers \[N\]; value 'up'$"),
        (
            {"gains.groups": ["RLEG"], "gains.kp": [1.0]},
            r"parameter gains.kv must be 1 finite numbers >= 0 \[N·m·s/rad\] \(one per gains.groups entry\); "
            r"value \[\]$",
        ),
        ({"gains.groups": ["RLEG"], "gains.kp": [-1.0], "gains.kv": [1.0]}, r"parameter gains.kp must be 1 finite"),
        ({"gains.groups": ["RLEG", 3]}, r"parameter gains.groups must be a list of strings; value \['RLEG', 3\]$"),
        ({"gravity_compensation": "yes"}, r"parameter gravity_compensation must be true or false; value 'yes'$"),
        ({"scene": 3}, r"parameter scene must be a string; value 3$"),
    ],
)
def test_simulator_refusals_name_node_parameter_and_value(raw, message):
    with pytest.raises(ConfigError, match=message) as info:
        SIM.validate(raw)
    assert str(info.value).startswith("node 'simulator': parameter ")


def test_simulator_accepts_what_the_node_accepts():
    got = SIM.validate(
        {
            "dt": 0.1,
            "publish_rate": 100,  # an integer for a double (dynamic typing)
            "solver_max_iterations": 20.0,
            "gains.groups": ["RLEG", "RLEG_JOINT3"],
            "gains.kp": [1000, 2000],
            "gains.kv": (10.0, 20.0),
            "push.force": [250, 0, 0],
            "real_time_factor": 0,
            "push.link": "BODY",
        }
    )
    assert got["dt"] == 0.1 and got["publish_rate"] == 100.0 and isinstance(got["publish_rate"], float)
    assert got["solver_max_iterations"] == 20 and isinstance(got["solver_max_iterations"], int)
    assert got["gains.kp"] == [1000.0, 2000.0] and got["gains.kv"] == [10.0, 20.0]
    assert got["push.force"] == [250.0, 0.0, 0.0] and got["real_time_factor"] == 0.0
    assert SIM.validate({"gains.groups": None, "gains.kp": None, "gains.kv": None})["gains.kp"] == []  # unset arrays


def test_simulator_run_time_changes():
    current = SIM.defaults()
    assert SIM.validate_change({"real_time_factor": 2}, current) == {"real_time_factor": 2.0}
    assert SIM.validate_change({"controller": "forward_effort_controller"}, current) == {
        "controller": "forward_effort_controller"
    }
    assert SIM.validate_change({"use_sim_time": True}, current) == {}  # rclpy's, not the table's
    refusals = [
        ({"dt": 0.002}, "parameter dt is read at start only (dynamic: real_time_factor, controller, "),
        ({"controller": "nope"}, "parameter controller must be one of joint_trajectory_controller"),
        ({"real_time_factor": -1.0}, "parameter real_time_factor must be >= 0; value -1.0"),
        ({"real_time_factor": "x"}, "parameter real_time_factor must be a number; value 'x'"),
        ({"external_wrench_duration": 0.0}, "parameter external_wrench_duration must be > 0 [s]; value 0.0"),
        ({"external_wrench_duration": math.nan}, "parameter external_wrench_duration must be finite; value nan"),
    ]
    for change, message in refusals:
        with pytest.raises(ConfigError) as info:
            SIM.validate_change(change, current)
        assert str(info.value).startswith("node 'simulator': " + message), str(info.value)
    assert current == SIM.defaults()  # nothing applied


def test_pilot_offers_the_sessions_solvers():
    """The pilot node's `solver` is a choice among the kinematic solvers a `PilotSession` runs, its
    default the session's; another name is refused in one line."""
    import inspect

    from humanoid_control.kinematics import SOLVERS
    from humanoid_control.piloting import PilotSession
    from humanoid_ros.pilot_parameters import PARAMETERS as PILOT

    solver = PILOT["solver"]
    assert tuple(solver.choices) == tuple(SOLVERS) and not solver.dynamic
    assert solver.default == inspect.signature(PilotSession).parameters["solver"].default
    assert PILOT.validate({"solver": "svd"})["solver"] == "svd"
    with pytest.raises(ConfigError) as info:
        PILOT.validate({"solver": "qr"})
    assert str(info.value).startswith("node 'pilot': parameter solver must be one of prioritized, svd"), info.value


def test_table_rules_are_checked_when_the_table_is_built():
    with pytest.raises(ValueError, match="type must be one of"):
        Parameter("x", "float", 1.0, "x")
    with pytest.raises(ValueError, match="bounds apply to numbers only"):
        Parameter("x", "string", "", "x", minimum=0)
    with pytest.raises(ValueError, match="choices apply to strings only"):
        Parameter("x", "int", 1, "x", choices=("a",))
    with pytest.raises(ValueError, match="lengths apply to arrays only"):
        Parameter("x", "double", 1.0, "x", length=3)
    a = Parameter("a", "double", 1.0, "a")
    with pytest.raises(ValueError, match="listed twice"):
        ParameterTable("n", [a, a])
    with pytest.raises(ValueError, match="length_of must name an earlier array parameter; value 'a'"):
        ParameterTable("n", [a, Parameter("b", "double_array", [], "b", length_of="a")])
    with pytest.raises(ConfigError, match="node 'n': parameter a must be > 2; value 1.0"):  # default breaks its rule
        ParameterTable("n", [Parameter("a", "double", 1.0, "a", minimum=2, exclusive_minimum=True)])


def test_bounds_open_and_closed():
    t = ParameterTable("n", [Parameter("x", "double", 0.5, "x", minimum=0, maximum=1, exclusive_maximum=True)])
    assert t.validate({"x": 0})["x"] == 0.0
    with pytest.raises(ConfigError, match=r"parameter x must be >= 0 and < 1; value 1$"):
        t.validate({"x": 1})
    i = ParameterTable("n", [Parameter("k", "int", 3, "k", minimum=0, exclusive_minimum=True, maximum=9)])
    assert i.validate({"k": 9})["k"] == 9
    for bad in (0, 10):
        with pytest.raises(ConfigError, match=rf"parameter k must be > 0 and <= 9; value {bad}$"):
            i.validate({"k": bad})


def flatten(section, prefix=""):
    """ROS parameter names of a YAML ros__parameters mapping (nested keys joined by dots)."""
    out = {}
    for key, value in section.items():
        if isinstance(value, dict):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


@pytest.mark.parametrize("path", sorted((REPO / "config").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_parameter_files_validate_against_the_tables(path):
    pytest.importorskip("rclpy")
    data = yaml.safe_load(path.read_text())
    checked = 0
    for node, section in data.items():
        if node not in TABLES:
            continue
        table = load_table(node)
        params = flatten(section["ros__parameters"])
        unknown = set(params) - set(table.names) - set(_RCLPY_PARAMETERS)  # e.g. use_sim_time
        assert not unknown, f"{path.name}: {node}: parameters not in its table: {sorted(unknown)}"
        table.validate(params)
        checked += 1
    assert checked >= 1


def test_every_registered_node_has_a_table_and_a_docs_section():
    pytest.importorskip("rclpy")
    from humanoid_stack.runner import NODE_CLASSES

    assert set(TABLES) == set(NODE_CLASSES)
    assert sorted(documented_nodes(DOCS.read_text())) == sorted(TABLES)
    for node in TABLES:
        assert load_table(node).node == node


def test_docs_parameter_tables_are_generated_and_up_to_date():
    pytest.importorskip("rclpy")
    text = DOCS.read_text()
    assert update_docs(text) == text, f"docs/ros.md parameter tables are out of date: run {DOCS_COMMAND}"


def test_markdown_rows_keep_type_default_unit_range_meaning_and_citations():
    rows = {line.split("|")[1].strip(): line for line in SIM.markdown().splitlines()[2:]}
    assert list(rows) == [f"`{name}`" for name in SIM.names]
    assert rows["`dt`"] == (
        "| `dt` | double | `0.001` | s | > 0 and <= 0.1 | start only | time step, as `humanoid-stack simulate "
        "--dt` (the thesis's δt = 1 ms, Chardonnet 2009, §3.1.6; the upper bound is chosen: "
        "100 × that step) |"
    )
    assert "max \\|f_n v_n\\| [N·m/s]" in rows["`solver_tolerance`"]  # a | in the text is escaped
    assert "acceptance test 000 B4" in rows["`solver_tolerance`"]
    assert "| double[3] | `[0.0, 0.0, 0.0]` | N | 3 values |" in rows["`push.force`"]
    assert "| double[] | `[]` | N·m/rad | one per `gains.groups` entry; >= 0 each |" in rows["`gains.kp`"]
    assert "| dynamic |" in rows["`controller`"] and "`forward_effort_controller`" in rows["`controller`"]
    assert '| string | `""` |' in rows["`robot`"] and "| bool | `false` |" in rows["`gravity_compensation`"]
    assert "| int | `500` |  | >= 1 |" in rows["`solver_max_iterations`"]
    assert "| `1e-6` |" in rows["`solver_tolerance`"]


def test_docs_command_rewrites_stale_tables(tmp_path, capsys):
    pytest.importorskip("rclpy")
    stale = tmp_path / "ros.md"
    stale.write_text("intro\n<!-- parameters: simulator -->\n| old |\n<!-- /parameters -->\nend\n")
    assert main(["--check", str(stale)]) == 1
    assert DOCS_COMMAND in capsys.readouterr().err
    assert main(["--write", str(stale)]) == 0
    assert (
        stale.read_text() == "intro\n<!-- parameters: simulator -->\n" + SIM.markdown() + "<!-- /parameters -->\nend\n"
    )
    assert main(["--check", str(stale)]) == 0
    with pytest.raises(ConfigError, match="unknown node 'warp_drive'"):
        update_docs("<!-- parameters: warp_drive -->\n<!-- /parameters -->")


# ------------------------------------------------------------------------------- rclpy
@pytest.mark.ros
def test_declare_on_a_node_descriptors_read_only_ranges_and_changes():
    rclpy = pytest.importorskip("rclpy")
    from rclpy.parameter import Parameter as RosParameter

    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    try:
        overrides = [
            RosParameter("publish_rate", value=100),  # an integer for a double
            RosParameter("gains.groups", value=["RLEG"]),
            RosParameter("gains.kp", value=[1000]),
            RosParameter("gains.kv", value=[10.0]),
        ]
        node = rclpy.create_node("simulator", context=ctx, parameter_overrides=overrides)
        values = SIM.declare(node)
        assert values["publish_rate"] == 100.0 and values["gains.kp"] == [1000.0] and values["gains.groups"] == ["RLEG"]
        assert values["push.force"] == [0.0, 0.0, 0.0] and values["dt"] == 1e-3
        dt = node.describe_parameter("dt")
        assert dt.read_only and "Chardonnet 2009, §3.1.6" in dt.description and dt.description.endswith("[s]")
        assert (dt.floating_point_range[0].from_value, dt.floating_point_range[0].to_value) == (0.0, 0.1)
        assert "> 0 and <= 0.1" in dt.additional_constraints
        assert node.describe_parameter("solver_max_iterations").integer_range[0].from_value == 1
        rtf = node.describe_parameter("real_time_factor")
        assert not rtf.read_only and rtf.floating_point_range[0].from_value == 0.0

        current = dict(values)
        node.add_on_set_parameters_callback(SIM.on_set_parameters(lambda: current, current.update))
        result = node.set_parameters([RosParameter("dt", value=0.002)])[0]
        assert not result.successful and "read-only" in result.reason and node.get_parameter("dt").value == 1e-3
        result = node.set_parameters([RosParameter("controller", value="nope")])[0]
        assert not result.successful and result.reason.startswith("node 'simulator': parameter controller must be")
        result = node.set_parameters([RosParameter("external_wrench_duration", value=0.0)])[0]
        assert not result.successful and "external_wrench_duration must be > 0" in result.reason
        assert not node.set_parameters([RosParameter("real_time_factor", value=-1.0)])[0].successful
        assert node.set_parameters([RosParameter("real_time_factor", value=2)])[0].successful
        assert node.set_parameters([RosParameter("controller", value="forward_effort_controller")])[0].successful
        assert current["real_time_factor"] == 2.0 and current["controller"] == "forward_effort_controller"
        assert node.get_parameter("controller").value == "forward_effort_controller"
        node.destroy_node()

        bad = rclpy.create_node("simulator", context=ctx, parameter_overrides=[RosParameter("dt", value=-1.0)])
        with pytest.raises(
            ConfigError, match=r"^node 'simulator': parameter dt must be > 0 and <= 0.1 \[s\]; value -1.0$"
        ):
            SIM.declare(bad)
        bad.destroy_node()
    finally:
        ctx.try_shutdown()
