"""One validated URDF reader for every path (docs/robots.md): `info`, `simulate` and `dynmodel` refuse
a negative mass, a NaN mass and a non-positive-semi-definite inertia with exit 2 and a one-line
error naming the link; a kinematic tree deeper than `MAX_DEPTH` is refused before Pinocchio sees it
(Pinocchio's parser segfaults on a 4,000-link chain, and a recursive traversal of a 2,000-link
chain raises a RecursionError), and so are XML elements nested deeper than `MAX_NESTING` (a
segfault in the copy of the tree). The dynamic-model generator traverses the tree without
recursion."""

import subprocess
import sys

import pytest

from humanoid_model import dynmodel
from humanoid_model.exceptions import ModelError
from humanoid_model.urdf_description import MAX_DEPTH, MAX_NESTING, read_urdf
from humanoid_stack.cli import main

INERTIA = 'ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"'


def _chain(n, mass="1", inertia=INERTIA):
    """A chain of n links; the first link's mass and inertia as given."""
    s = f'<robot name="c"><link name="b0"><inertial><mass value="{mass}"/><inertia {inertia}/></inertial>'
    s += '<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>'
    for i in range(1, n):
        s += (
            f'<link name="b{i}"><inertial><mass value="1"/><inertia {INERTIA}/></inertial></link>'
            f'<joint name="j{i}" type="revolute"><parent link="b{i - 1}"/><child link="b{i}"/>'
            '<origin xyz="0 0 0.1"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        )
    return s + "</robot>"


BAD_INERTIALS = {
    "negative mass": (_chain(3, mass="-1"), ["b0", "mass value='-1'", "mass must be >= 0"]),
    "nan mass": (_chain(3, mass="nan"), ["b0", "value='nan' is not finite"]),
    "indefinite inertia": (
        _chain(3, inertia='ixx="1" iyy="-1" izz="1" ixy="0" ixz="0" iyz="0"'),
        ["b0", "not positive semi-definite"],
    ),
}


def _argv(command, urdf, tmp_path):
    if command == "info":
        return ["info", str(urdf)]
    if command == "simulate":
        return [
            "simulate",
            "flat",
            "--robot",
            str(urdf),
            "--duration",
            "0.01",
            "--quiet",
            "--output",
            str(tmp_path / "r.json"),
        ]
    return ["dynmodel", str(urdf), "--out", str(tmp_path / "m.py")]


@pytest.mark.parametrize("command", ["info", "simulate", "dynmodel"])
@pytest.mark.parametrize("case", list(BAD_INERTIALS))
def test_every_command_refuses_bad_inertials(tmp_path, capsys, command, case):
    text, words = BAD_INERTIALS[case]
    urdf = tmp_path / "bad.urdf"
    urdf.write_text(text)
    assert main(_argv(command, urdf, tmp_path)) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    for w in [str(urdf), *words]:
        assert w in err
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "m.py").exists()


def test_the_reader_refuses_a_negative_mass_for_every_user():
    """The check lives in `read_urdf` (the scene loader, the robot loader and dynmodel share it)."""
    with pytest.raises(ModelError, match="mass must be >= 0"):
        read_urdf(_chain(2, mass="-0.5"))


def _run_cli(*argv):
    """The CLI in a child process: a segfault there must not take pytest down."""
    return subprocess.run([sys.executable, "-m", "humanoid_stack", *argv], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def deep_urdfs(tmp_path_factory):
    d = tmp_path_factory.mktemp("deep")
    paths = {n: d / f"chain{n}.urdf" for n in (MAX_DEPTH + 1, 2000, 4000)}
    for n, p in paths.items():
        p.write_text(_chain(n))
    nested = d / "nested.urdf"
    k = 200_000
    nested.write_text('<robot name="x"><link name="a"/>' + "<g>" * k + "</g>" * k + "</robot>")
    paths["nested"] = nested
    return paths


def test_info_refuses_a_4000_link_chain_instead_of_segfaulting(deep_urdfs):
    r = _run_cli("info", str(deep_urdfs[4000]))
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "4000 links deep" in r.stderr and f"at most {MAX_DEPTH}" in r.stderr


def test_a_robot_beyond_max_joints_is_refused_before_pinocchio_data_exhausts_memory(tmp_path):
    """A 999-joint chain passes the depth bound, yet `info` on it would run out of 24 GB in
    Pinocchio's createData: MAX_JOINTS + 1 joints are refused in one line, MAX_JOINTS load
    (Data ~230 MB)."""
    from humanoid_model.robot import MAX_JOINTS, load_robot

    over = tmp_path / "over.urdf"
    over.write_text(_chain(MAX_JOINTS + 2))  # n links: n - 1 joints
    r = _run_cli("info", str(over))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert f"{MAX_JOINTS + 1} joint degrees of freedom" in r.stderr and f"at most {MAX_JOINTS}" in r.stderr
    at = tmp_path / "at.urdf"
    at.write_text(_chain(MAX_JOINTS + 1))
    assert load_robot(at).model.nv == MAX_JOINTS + 6


def test_info_refuses_deeply_nested_xml_instead_of_segfaulting(deep_urdfs):
    r = _run_cli("info", str(deep_urdfs["nested"]))
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert "Traceback" not in r.stderr and f"at most {MAX_NESTING}" in r.stderr


@pytest.mark.parametrize("n", [MAX_DEPTH + 1, 2000])
def test_dynmodel_refuses_a_chain_deeper_than_the_bound(deep_urdfs, tmp_path, capsys, n):
    assert main(["dynmodel", str(deep_urdfs[n]), "--out", str(tmp_path / "m.py")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{n} links deep" in err and f"at most {MAX_DEPTH}" in err


def test_dynmodel_parses_a_chain_as_deep_as_the_bound_without_recursion():
    """The tree is built iteratively: MAX_DEPTH links parse in a stack already 100 frames deep
    (pytest's own frames and more), where a recursive traversal hits Python's recursion limit."""

    def nested(k):
        return nested(k - 1) if k else dynmodel.parse_urdf(_chain(MAX_DEPTH))

    tree = nested(100)
    assert tree.nv == MAX_DEPTH - 1 and tree.total_mass == pytest.approx(MAX_DEPTH)
    assert [j.parent for j in tree.joints[:2]] == ["b0", "b1"]
