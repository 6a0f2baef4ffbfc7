"""`humanoid_model.documents.parse_message`: the JSON document of a message received on a topic
(the robot bridge's and the simulator's motion topics), or the caller's error in one line."""

import pytest

from humanoid_model.documents import parse_message


class MessageError(Exception):
    pass


def test_a_message_decodes_to_its_document():
    assert parse_message('{"a": [1, 2]}', "/motion", "motion", MessageError, 100) == {"a": [1, 2]}


@pytest.mark.parametrize(
    "text, words",
    [
        ("{not json", "/motion: not valid JSON (line 1, column 2"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to be a motion"),  # RecursionError in json
        ('{"a": "' + "x" * 200 + '"}', "/motion: 209 bytes, more than the 100 of a motion"),
    ],
    ids=["not-json", "nested", "too-long"],
)
def test_a_bad_message_is_the_callers_error_in_one_line(text, words):
    limit = 100 if len(text) < 1000 else 10**6
    with pytest.raises(MessageError) as info:
        parse_message(text, "/motion", "motion", MessageError, limit)
    assert words in str(info.value) and "\n" not in str(info.value)
