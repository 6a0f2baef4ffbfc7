"""Launch files, imported with the stand-in `launch` / `launch_ros` modules of test/support/stubs.

For every launch/*.launch.py: it builds a LaunchDescription; every humanoid_stack executable it
names is in setup.py's NODES (so it is installed under lib/humanoid_stack); every file it
passes (parameter files, the RViz config) exists and is installed by setup.py's data_files;
every humanoid_stack node finds a section under its own name in its parameter files.
"""

import importlib.util
import runpy
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
import setuptools
import yaml
from support import REPO

STUBS = REPO / "test" / "support" / "stubs"
PACKAGE = "humanoid_stack"
LAUNCH_FILES = sorted((REPO / "launch").glob("*.launch.py"))


@contextmanager
def stub_launch_modules():
    """Put the stand-in packages into sys.modules; restore the previous state afterwards."""

    def ours(name):
        return name.split(".")[0] in ("launch", "launch_ros")

    saved = {k: v for k, v in sys.modules.items() if ours(k)}
    for k in saved:
        del sys.modules[k]
    try:
        for pkg in ("launch", "launch_ros"):
            spec = importlib.util.spec_from_file_location(
                pkg, STUBS / pkg / "__init__.py", submodule_search_locations=[str(STUBS / pkg)]
            )
            module = importlib.util.module_from_spec(spec)
            sys.modules[pkg] = module
            spec.loader.exec_module(module)
        yield
    finally:
        for k in [k for k in sys.modules if ours(k)]:
            del sys.modules[k]
        sys.modules.update(saved)


def load_description(path):
    with stub_launch_modules():
        spec = importlib.util.spec_from_file_location(f"launch_file_{path.stem.replace('.', '_')}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        import launch

        description = module.generate_launch_description()
        assert isinstance(description, launch.LaunchDescription)
        return description, launch


@pytest.fixture(scope="module")
def setup_kwargs():
    """The arguments setup.py passes to setuptools.setup (NODES, data_files), without building."""
    captured = {}
    original = setuptools.setup
    setuptools.setup = lambda **kwargs: captured.update(kwargs)
    try:
        namespace = runpy.run_path(str(REPO / "setup.py"), run_name="__main__")
    finally:
        setuptools.setup = original
    captured["NODES"] = namespace["NODES"]
    return captured


def installed_files(setup_kwargs):
    """Install paths (relative to the prefix) of every data file."""
    return {str(Path(dest) / Path(f).name) for dest, files in setup_kwargs["data_files"] for f in files}


def entities_of(description, launch, kind):
    return [e for e in description.entities if type(e).__name__ == kind]


def share_path(value, launch, arguments):
    """A recorded path substitution evaluated with the package share folder = the repository."""
    context = launch.EvaluationContext({PACKAGE: REPO}, arguments)
    return Path(launch.evaluate(value, context))


def active_nodes(description, launch, arguments):
    context = launch.EvaluationContext({PACKAGE: REPO}, arguments)
    nodes = entities_of(description, launch, "Node")
    return [n for n in nodes if n.condition is None or n.condition.holds(context)]


def default_arguments(description, launch):
    return {a.name: a.default_value for a in entities_of(description, launch, "DeclareLaunchArgument")}


def files(node, launch, arguments):
    """The parameter files a node reads (its dict parameters left out)."""
    return [share_path(p, launch, arguments) for p in node.parameters if not isinstance(p, dict)]


def given(node, launch, arguments):
    """The dict parameters of a node, their substitutions evaluated."""
    context = launch.EvaluationContext({PACKAGE: REPO}, arguments)
    return {k: launch.evaluate(v, context) for p in node.parameters if isinstance(p, dict) for k, v in p.items()}


def test_there_are_launch_files():
    assert REPO / "launch" / "view.launch.py" in LAUNCH_FILES
    assert REPO / "launch" / "sim.launch.py" in LAUNCH_FILES


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_file_names_installed_executables_and_files(path, setup_kwargs):
    description, launch = load_description(path)
    arguments = default_arguments(description, launch)
    installed = installed_files(setup_kwargs)
    console = {entry.split("=")[0].strip() for entry in setup_kwargs["entry_points"]["console_scripts"]}
    nodes = entities_of(description, launch, "Node")
    assert nodes, f"{path.name}: no Node actions"
    for node in nodes:
        if node.package != PACKAGE:
            continue  # e.g. rviz2: an external package
        assert node.executable in setup_kwargs["NODES"], f"{path.name}: executable '{node.executable}' not in NODES"
        assert node.executable in console
        for params in node.parameters:
            if isinstance(params, dict):
                continue
            file = share_path(params, launch, arguments)
            rel = file.relative_to(REPO)
            assert file.is_file(), f"{path.name}: parameter file {rel} does not exist"
            assert f"share/{PACKAGE}/{rel}" in installed, f"{path.name}: {rel} is not installed by data_files"
            data = yaml.safe_load(file.read_text())
            assert "ros__parameters" in data.get(node.name, {}), (
                f"{path.name}: node '{node.name}' has no section in {rel}"
            )


def test_view_launch_nodes_and_arguments(setup_kwargs):
    description, launch = load_description(REPO / "launch" / "view.launch.py")
    defaults = default_arguments(description, launch)
    assert defaults == {"rviz": "false", "viewer": "true", "robot": "hrp2", "use_sim_time": "false", "namespace": ""}
    names = [n.name for n in active_nodes(description, launch, defaults)]
    assert names == ["state_publisher", "viewer"]
    with_rviz = active_nodes(description, launch, {**defaults, "rviz": "true", "viewer": "false"})
    assert [n.name for n in with_rviz] == ["state_publisher", "rviz2"]
    rviz = with_rviz[1]
    assert (rviz.package, rviz.executable, rviz.arguments[0]) == ("rviz2", "rviz2", "-d")
    config = share_path(rviz.arguments[1], launch, defaults)
    assert config == REPO / "rviz" / "humanoid.rviz" and config.is_file()
    assert f"share/{PACKAGE}/rviz/humanoid.rviz" in installed_files(setup_kwargs)
    for node in with_rviz[:1] + active_nodes(description, launch, defaults)[1:]:
        assert files(node, launch, defaults) == [REPO / "config" / "view.yaml"]
        assert given(node, launch, defaults) == {"robot": "hrp2", "use_sim_time": "false"}
    view = yaml.safe_load((REPO / "config" / "view.yaml").read_text())
    assert view["state_publisher"]["ros__parameters"]["robot"] == view["viewer"]["ros__parameters"]["robot"] == "hrp2"


def test_sim_launch_nodes_and_arguments():
    """sim.launch.py: the simulator alone by default (it publishes /robot_description: no state
    publisher), with config/sim.yaml; viewer:=true adds the viewer following it (standing.yaml)."""
    description, launch = load_description(REPO / "launch" / "sim.launch.py")
    defaults = default_arguments(description, launch)
    assert defaults == {
        "viewer": "false",
        "rviz": "false",
        "robot": "",
        "scene": "flat",
        "use_sim_time": "false",
        "namespace": "",
    }
    sim_file = yaml.safe_load((REPO / "config" / "sim.yaml").read_text())["simulator"]["ros__parameters"]
    assert (sim_file["robot"], sim_file["scene"]) == (defaults["robot"], defaults["scene"])  # the file's values
    nodes = active_nodes(description, launch, defaults)
    assert [n.name for n in nodes] == ["simulator"]
    assert files(nodes[0], launch, defaults) == [REPO / "config" / "sim.yaml"]
    arguments = {**defaults, "viewer": "true", "robot": "bip", "scene": "incline", "use_sim_time": "true"}
    sim, viewer = active_nodes(description, launch, arguments)
    assert given(sim, launch, arguments) == {"robot": "bip", "scene": "incline"}
    assert given(viewer, launch, arguments) == {"scene": "incline", "use_sim_time": "true"}
    both = active_nodes(description, launch, {**defaults, "viewer": "true"})
    assert [n.name for n in both] == ["simulator", "viewer"]
    [viewer_file] = files(both[1], launch, defaults)
    assert viewer_file == REPO / "config" / "standing.yaml"
    assert yaml.safe_load(viewer_file.read_text())["viewer"]["ros__parameters"]["joint_state_source"] is False


def test_bridge_launch_nodes_and_arguments():
    """bridge.launch.py: the robot bridge alone with config/bridge.yaml (a real robot: shipped as a
    dry run at quarter speed), /joint_states remapped by the joint_states argument; sim:=true
    starts the simulator and the bridge with config/bridge_sim.yaml instead."""
    description, launch = load_description(REPO / "launch" / "bridge.launch.py")
    defaults = default_arguments(description, launch)
    assert defaults == {"sim": "false", "joint_states": "joint_states", "namespace": ""}
    nodes = active_nodes(description, launch, defaults)
    assert [(n.name, n.executable) for n in nodes] == [("robot_bridge", "robot_bridge")]
    config = share_path(nodes[0].parameters[0], launch, defaults)
    assert config == REPO / "config" / "bridge.yaml"
    real = yaml.safe_load(config.read_text())["robot_bridge"]["ros__parameters"]
    assert real["dry_run"] is True and real["speed_scale"] == 0.25
    context = launch.EvaluationContext({PACKAGE: REPO}, {**defaults, "joint_states": "/hrp2/joint_states"})
    [(src, dst)] = nodes[0].remappings
    assert src == "joint_states" and launch.evaluate(dst, context) == "/hrp2/joint_states"
    sim = active_nodes(description, launch, {**defaults, "sim": "true"})
    assert [n.name for n in sim] == ["simulator", "robot_bridge"]
    for node in sim:
        assert [share_path(p, launch, defaults) for p in node.parameters] == [REPO / "config" / "bridge_sim.yaml"]


def test_planning_launch_nodes_and_arguments():
    """planning.launch.py: the contact planner with config/planning.yaml, its motion remapped by the
    trajectory argument (default its own topic); viewer:=true (default) adds the state publisher
    and the web viewer of the same file, which draws the planner's stances."""
    description, launch = load_description(REPO / "launch" / "planning.launch.py")
    defaults = default_arguments(description, launch)
    assert defaults == {"trajectory": "/contact_planner/trajectory", "viewer": "true", "namespace": ""}
    nodes = active_nodes(description, launch, defaults)
    assert [n.name for n in nodes] == ["contact_planner", "state_publisher", "viewer"]
    config = REPO / "config" / "planning.yaml"
    for node in nodes:
        assert files(node, launch, defaults) == [config]
    data = yaml.safe_load(config.read_text())
    assert data["viewer"]["ros__parameters"]["marker_topics"] == ["contact_planner/stances"]
    assert data["humanoid_stack_up"]["ros__parameters"]["nodes"] == ["state_publisher", "viewer", "contact_planner"]
    alone = active_nodes(description, launch, {**defaults, "viewer": "false", "trajectory": "/robot_bridge/trajectory"})
    assert [n.name for n in alone] == ["contact_planner"]
    context = launch.EvaluationContext({PACKAGE: REPO}, {**defaults, "trajectory": "/robot_bridge/trajectory"})
    [(src, dst)] = alone[0].remappings
    assert src == "/contact_planner/trajectory" and launch.evaluate(dst, context) == "/robot_bridge/trajectory"


def test_pilot_launch_nodes_and_arguments():
    """pilot.launch.py: the simulator, the web viewer and the pilot with config/pilot_sim.yaml (the
    pilot's commands go to the simulator's controller); viewer:=false drops the viewer; sim:=false
    (a real robot) keeps the viewer and a pilot that starts from the measured joints, both reading
    the joint_states argument's topic."""
    description, launch = load_description(REPO / "launch" / "pilot.launch.py")
    defaults = default_arguments(description, launch)
    assert defaults == {"sim": "true", "viewer": "true", "joint_states": "joint_states", "namespace": ""}
    config = REPO / "config" / "pilot_sim.yaml"
    nodes = active_nodes(description, launch, defaults)
    assert [(n.name, n.executable) for n in nodes] == [
        ("simulator", "simulator"),
        ("viewer", "viewer"),
        ("pilot", "pilot"),
    ]
    for node in nodes:
        assert [share_path(p, launch, defaults) for p in node.parameters] == [config]
    data = yaml.safe_load(config.read_text())
    assert data["pilot"]["ros__parameters"]["controller"] == data["simulator"]["ros__parameters"]["controller"]
    assert "pilot/markers" in data["viewer"]["ros__parameters"]["marker_topics"]
    assert [n.name for n in active_nodes(description, launch, {**defaults, "viewer": "false"})] == [
        "simulator",
        "pilot",
    ]
    arguments = {**defaults, "sim": "false", "joint_states": "/hrp2/joint_states"}
    real = active_nodes(description, launch, arguments)
    assert [n.name for n in real] == ["viewer", "pilot"]
    viewer, pilot = real
    assert share_path(pilot.parameters[0], launch, arguments) == config
    assert pilot.parameters[1] == {"start_from": "measured"}
    context = launch.EvaluationContext({PACKAGE: REPO}, arguments)
    for node in real:
        [(src, dst)] = node.remappings
        assert src == "joint_states" and launch.evaluate(dst, context) == "/hrp2/joint_states"


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_namespace_argument_moves_the_nodes_and_their_parameter_sections(path):
    """With namespace:=r1 every humanoid_stack node of the file is in r1, and the parameter file it
    reads is a copy whose section /r1/NODE holds what the shipped file's NODE section holds (rcl
    matches sections on the namespaced name); without it, the shipped file itself."""
    description, launch = load_description(path)
    defaults = default_arguments(description, launch)
    if "namespace" not in defaults:
        pytest.skip(f"{path.name} has no namespace argument")
    arguments = {**defaults, "namespace": "r1"}
    context = launch.EvaluationContext({PACKAGE: REPO}, arguments)
    for value in ("true", "false"):  # every node, whatever the conditions
        args = {k: (value if v in ("true", "false") else v) for k, v in arguments.items()}
        for node in active_nodes(description, launch, args):
            if node.package != PACKAGE:
                continue
            assert launch.evaluate(node.namespace, context) == "r1"
            for params in node.parameters:
                if isinstance(params, dict):
                    continue
                shipped = files(node, launch, {**args, "namespace": ""})[0]
                copy = share_path(params, launch, args)
                assert copy != shipped and shipped.parent == REPO / "config"
                original = yaml.safe_load(shipped.read_text())[node.name]
                assert yaml.safe_load(copy.read_text())[f"/r1/{node.name}"] == original
                copy.unlink()


def test_stubs_do_not_leak():
    load_description(REPO / "launch" / "view.launch.py")
    leaked = [k for k, m in list(sys.modules.items()) if str(getattr(m, "__file__", "") or "").startswith(str(STUBS))]
    assert leaked == []


def test_rviz_config_matches_the_published_topics():
    from humanoid_model.tf_tree import ODOM_FRAME

    config = yaml.safe_load((REPO / "rviz" / "humanoid.rviz").read_text())
    manager = config["Visualization Manager"]
    assert manager["Global Options"]["Fixed Frame"] == ODOM_FRAME
    displays = {d["Class"]: d for d in manager["Displays"] if d["Class"] != "rviz_default_plugins/MarkerArray"}
    assert displays["rviz_default_plugins/RobotModel"]["Description Source"] == "Topic"
    assert displays["rviz_default_plugins/RobotModel"]["Description Topic"]["Value"] == "/robot_description"
    assert "rviz_default_plugins/TF" in displays
    marker_topics = {
        d["Topic"]["Value"] for d in manager["Displays"] if d["Class"] == "rviz_default_plugins/MarkerArray"
    }
    assert marker_topics == {"/contacts", "/contact_planner/stances"}
