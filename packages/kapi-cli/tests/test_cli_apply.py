"""kapi inspect -> edit -> kapi apply from the command line, on real files."""

import json
import os
import stat
import subprocess
import sys
import threading

from kapi.core.change.ports import digest

EN = '{\n  "home": {\n    "title": "Welcome",\n    "cta": "Sign up now"\n  }\n}\n'
DE = '{\n  "home": {\n    "title": "Willkommen"\n  }\n}\n'


def write(root, name, text):
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def change(*ops, **envelope):
    return json.dumps({**envelope, "ops": list(ops)})


def test_inspect_then_apply_changes_only_the_value(kapi):
    write(kapi.root, "en.json", EN)
    records = kapi.inspect("en.json")
    title = next(r for r in records if r["ref"]["block"] == "home.title")
    assert title["text"] == "Welcome" and title["rev"].startswith("r:")
    op = {
        "op": "replace_text",
        "at": title["ref"],
        "if_match": title["rev"],
        "edits": [{"find": "Welcome", "text": "Hello"}],
    }
    result = kapi("apply", "--json", "-", input=change(op))
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["status"] == "applied"
    assert payload["docs"][0]["before"] == digest(EN.encode())
    assert (kapi.root / "en.json").read_text() == EN.replace("Welcome", "Hello")
    assert "applied" in result.stderr


def test_a_set_refused_on_the_second_file_leaves_both_byte_identical(kapi):
    write(kapi.root, "en.json", EN)
    write(kapi.root, "de.json", DE)
    title = kapi.inspect("en.json")[0]
    ops = [
        {"op": "set_content", "at": title["ref"], "if_match": title["rev"], "text": "Changed"},
        {
            "op": "set_content",
            "at": {"doc": "de.json", "block": "home.title"},
            "if_match": "r:0000000000000000",
            "text": "x",
        },
    ]
    result = kapi("apply", "--json", "-", input=change(*ops))
    assert result.exit_code == 3
    payload = json.loads(result.stdout)
    assert payload["status"] == "refused"
    assert payload["ops"][0] == {
        "i": 0,
        "op": "set_content",
        "status": "not_applied",
        "at": title["ref"],
        "blocked_by": 1,
    }
    assert payload["ops"][1]["error"]["code"] == "stale"
    assert (kapi.root / "en.json").read_text() == EN
    assert (kapi.root / "de.json").read_text() == DE


def test_dry_run_prints_a_diff_and_writes_nothing(kapi):
    write(kapi.root, "en.json", EN)
    title = kapi.inspect("en.json")[0]
    op = {"op": "set_content", "at": title["ref"], "if_match": title["rev"], "text": "Hi"}
    result = kapi("apply", "--dry-run", "-", input=change(op))
    assert result.exit_code == 0
    assert '-    "title": "Welcome",' in result.stdout and '+    "title": "Hi",' in result.stdout
    assert (kapi.root / "en.json").read_text() == EN


def test_undecodable_set_exits_2_with_a_pointer(kapi):
    result = kapi(
        "apply",
        "--json",
        "-",
        input='{"ops":[{"op":"set_content","at":{"doc":"x","block":"y"},"if_match":"*","text":null}]}',
    )
    assert result.exit_code == 2
    payload = json.loads(result.stdout)
    assert payload["status"] == "refused" and payload["ops"] == [] and payload["docs"] == []
    assert payload["error"]["code"] == "invalid"
    assert payload["error"]["pointer"] == "/ops/0/text"


def test_not_found_block_exits_3(kapi):
    write(kapi.root, "en.json", EN)
    op = {
        "op": "set_content",
        "at": {"doc": "en.json", "block": "home.titel"},
        "if_match": "*",
        "text": "x",
    }
    result = kapi("apply", "--json", "-", input=change(op))
    assert result.exit_code == 3
    error = json.loads(result.stdout)["ops"][0]["error"]
    assert error["code"] == "not_found" and error["candidates"][0]["key"] == "home.title"


def test_agent_blind_write_is_not_permitted(kapi):
    write(kapi.root, "en.json", EN)
    op = {
        "op": "set_content",
        "at": {"doc": "en.json", "block": "home.title"},
        "if_match": "*",
        "text": "x",
    }
    result = kapi("apply", "--json", "-", input=change(op), env={"CLAUDECODE": "1"})
    assert result.exit_code == 3
    assert json.loads(result.stdout)["ops"][0]["error"]["code"] == "not_permitted"
    person = kapi(
        "apply", "--json", "-", input=change(op), env={"CLAUDECODE": "1", "KAPI_ACTOR": "person"}
    )
    assert person.exit_code == 0
    bad = kapi("apply", "-", input=change(op), env={"KAPI_ACTOR": "robot"})
    assert bad.exit_code == 2 and "KAPI_ACTOR" in bad.stderr


def test_print_ops_shows_the_decoded_set_in_wire_order(kapi):
    line1 = json.dumps({"note": "fix"})
    line2 = json.dumps(
        {"text": "x", "if_match": "*", "at": {"block": "b", "doc": "d"}, "op": "set_content"}
    )
    result = kapi("apply", "--print-ops", "-", input=f"{line1}\n{line2}\n")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert list(printed["ops"][0]) == ["op", "at", "if_match", "text"]
    assert printed["note"] == "fix"


def test_schema_prints_the_change_set_and_one_op(kapi):
    whole = json.loads(kapi("apply", "--schema").stdout)
    assert whole["title"] == "kapi.change/v1"
    one = kapi("apply", "--schema", "replace_text")
    assert one.exit_code == 0
    assert "edits" in json.loads(one.stdout)["properties"]
    assert kapi("apply", "--schema", "nope").exit_code == 2


def test_permissions_and_crlf_are_kept(kapi):
    path = write(kapi.root, "en.json", "")
    path.write_bytes(EN.replace("\n", "\r\n").encode())
    os.chmod(path, 0o640)
    title = kapi.inspect("en.json")[0]
    op = {"op": "set_content", "at": title["ref"], "if_match": title["rev"], "text": "Hi"}
    assert kapi("apply", "-", input=change(op)).exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.read_bytes() == EN.replace("Welcome", "Hi").replace("\n", "\r\n").encode()
    assert not [p for p in kapi.root.iterdir() if p.name.endswith(".kapi-tmp")]


def test_concurrent_applies_do_not_interleave(tmp_path):
    """Two processes each append to the same value from the same read: one lands, one is stale."""
    path = tmp_path / "en.json"
    path.write_text(EN)
    env = {**os.environ, "KAPI_ACTOR": "person"}
    read = subprocess.run(
        [sys.executable, "-m", "kapi.cli", "inspect", "en.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    title = json.loads(read.stdout)[0]
    outcomes = []

    def run(text):
        op = {"op": "set_content", "at": title["ref"], "if_match": title["rev"], "text": text}
        done = subprocess.run(
            [sys.executable, "-m", "kapi.cli", "apply", "--json", "-"],
            cwd=tmp_path,
            input=change(op),
            capture_output=True,
            text=True,
            env=env,
        )
        outcomes.append((done.returncode, text))

    threads = [threading.Thread(target=run, args=(f"Version {n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(code for code, _ in outcomes)
    assert codes == [0, 3, 3, 3]
    winner = next(text for code, text in outcomes if code == 0)
    assert json.loads(path.read_text())["home"]["title"] == winner


def test_inspect_reports_a_broken_file_and_still_prints_the_others(kapi):
    write(kapi.root, "en.json", EN)
    write(kapi.root, "broken.json", '{"a": "b",\n  "c": }')
    result = kapi("inspect", "en.json", "broken.json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)[0]["text"] == "Welcome"
    assert "broken.json:2" in result.stderr
    assert "Traceback" not in result.output


def test_formats_json_and_stats(kapi):
    formats = json.loads(kapi("formats", "--json").stdout)
    by_name = {f["name"]: f for f in formats}
    assert by_name["po"]["editable"] is False and by_name["po"]["interchange"] is True
    assert (
        by_name["docx"]["editable"]
        and by_name["docx"]["round_trip"]
        and not by_name["docx"]["generative"]
    )
    assert by_name["json"]["generative"]
    write(kapi.root, "en.json", EN)
    counts = json.loads(kapi("stats", "--json", "en.json").stdout)
    assert counts["total"] == {"files": 1, "blocks": 2, "words": 4, "characters": 18}


def test_an_oversized_change_set_is_budget_exceeded(kapi):
    from kapi.host.apply import MAX_CHANGE_SET_BYTES

    result = kapi("apply", "--json", "-", input=b" " * (MAX_CHANGE_SET_BYTES + 1))
    assert result.exit_code == 3
    assert json.loads(result.stdout)["error"]["code"] == "budget_exceeded"


def test_sigterm_ends_kapi_with_130(tmp_path):
    import signal
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "kapi.cli", "apply", "-"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(1.0)  # kapi is waiting for the change set on stdin
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert b"Traceback" not in err
