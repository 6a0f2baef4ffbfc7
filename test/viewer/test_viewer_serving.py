"""Where the web viewer serves (`humanoid_viewer.serving`): an address that is not on this machine
or a port in use fails at once with a one-line error (without the check, `view --host 10.255.255.1
--duration 2` hangs forever); a non-loopback address prints an exposure warning; `up`
and `demo` keep DDS discovery on this machine unless the user chose otherwise."""

import socket
import subprocess
import sys

import pytest

from humanoid_stack.runner import localhost_by_default
from humanoid_viewer.exceptions import ViewerError
from humanoid_viewer.serving import check_bindable, exposure_warning

NOT_HERE = "192.0.2.1"  # TEST-NET-1 (RFC 5737): documentation only, never a local address


def test_an_address_not_on_this_machine_or_a_taken_port_is_refused_at_once():
    with pytest.raises(ViewerError, match=rf"cannot serve on {NOT_HERE}:8080: Cannot assign requested address"):
        check_bindable(NOT_HERE, 8080)
    with pytest.raises(ViewerError, match="unknown address"):
        check_bindable("no-such-host.invalid", 8080)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ViewerError, match=f"cannot serve on 127.0.0.1:{port}: Address already in use"):
            check_bindable("127.0.0.1", port)
    check_bindable("127.0.0.1", 0)  # any free port: fine


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "::1", "localhost"])
def test_loopback_hosts_print_no_warning(host):
    assert exposure_warning(host) == ""


@pytest.mark.parametrize(
    "host, where", [("0.0.0.0", "every interface"), ("::", "every interface"), ("192.168.1.5", "192.168.1.5")]
)
def test_other_hosts_print_the_exposure(host, where):
    w = exposure_warning(host)
    assert where in w and "any machine that can reach it" in w and "127.0.0.1" in w


def test_view_on_an_address_not_here_exits_2_at_once(repo_root):
    r = subprocess.run(
        [sys.executable, "-m", "humanoid_stack", "view", "--host", NOT_HERE, "--duration", "2"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=60,  # without the bind check it hangs forever
    )
    assert r.returncode == 2 and "cannot serve on 192.0.2.1:8080" in r.stderr and "Traceback" not in r.stderr
    assert "warning: viewer: serving on 192.0.2.1" in r.stderr


def test_up_and_demo_keep_discovery_on_this_machine_unless_told_otherwise():
    env = {}
    assert "LOCALHOST" in localhost_by_default(env) and env == {"ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    for chosen in ({"ROS_AUTOMATIC_DISCOVERY_RANGE": "SUBNET"}, {"ROS_LOCALHOST_ONLY": "0"}):
        env = dict(chosen)
        assert localhost_by_default(env) == "" and env == chosen
