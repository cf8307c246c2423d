"""The file home: every refusal it can produce, atomic writes, and one retry on a concurrent change."""

from __future__ import annotations

import json
import os

import pytest

from kapi.core.change.decode import decode_change_set
from kapi.core.change.ports import Actor, DocChanged
from kapi.core.change.service import ChangeService
from kapi.core.format import Limits
from kapi.formats.home import FileHome

PERSON = Actor("person")
EN = '{\n  "title": "Welcome"\n}\n'


def apply(home: FileHome, *ops: dict) -> dict:
    from kapi.core.change.wire import encode_result

    result = ChangeService(home).apply(decode_change_set(json.dumps({"ops": list(ops)})), PERSON)
    return encode_result(result)


def set_title(doc: str = "en.json", rev: str = "*", text: str = "Hello") -> dict:
    return {
        "op": "set_content",
        "at": {"doc": doc, "block": "title"},
        "if_match": rev,
        "text": text,
    }


def test_missing_file_is_not_found(tmp_path):
    result = apply(FileHome(tmp_path), set_title("nope.json"))
    assert result["ops"][0]["error"]["code"] == "not_found"
    assert result["ops"][0]["error"]["field"] == "at/doc"


def test_malformed_file_is_invalid_with_its_position(tmp_path):
    (tmp_path / "en.json").write_text('{\n  "title": "x",,\n}\n')
    error = apply(FileHome(tmp_path), set_title())["ops"][0]["error"]
    assert error["code"] == "invalid"
    assert error["message"].startswith("en.json:2:")


def test_invalid_utf8_names_the_byte(tmp_path):
    (tmp_path / "en.json").write_bytes(b'{"title": "caf\xc3\xa9 \xe9"}')
    error = apply(FileHome(tmp_path), set_title())["ops"][0]["error"]
    assert error["code"] == "invalid" and "en.json:1" in error["message"]


def test_oversized_file_is_budget_exceeded(tmp_path):
    (tmp_path / "en.json").write_text(EN)
    error = apply(FileHome(tmp_path, limits=Limits(max_bytes=10)), set_title())["ops"][0]["error"]
    assert error["code"] == "budget_exceeded"


def test_unknown_format_and_archive_members_are_unsupported(tmp_path):
    (tmp_path / "data.bin").write_bytes(b"\x00\x01")
    assert (
        apply(FileHome(tmp_path), set_title("data.bin"))["ops"][0]["error"]["code"] == "unsupported"
    )
    assert (
        apply(FileHome(tmp_path), set_title("pack.zip!en.json"))["ops"][0]["error"]["code"]
        == "unsupported"
    )


def test_a_writer_that_cannot_say_an_edit_is_unsupported(tmp_path):
    (tmp_path / "en.json").write_text(EN)
    op = {
        "op": "set_content",
        "at": {"doc": "en.json", "block": "title"},
        "if_match": "*",
        "runs": [{"text": "a"}, {"ph": {"id": "9", "type": "media:image"}}],
    }
    assert (
        apply(FileHome(tmp_path), op)["ops"][0]["error"]["capability"] == "synthesize:media:image"
    )


def test_a_file_changed_under_the_commit_is_retried_then_doc_changed(tmp_path):
    path = tmp_path / "en.json"
    path.write_text(EN)

    class Restless(FileHome):
        def commit(self, writes):
            path.write_text(path.read_text() + " ")  # someone else keeps writing
            return super().commit(writes)

    result = apply(Restless(tmp_path), set_title())
    assert result["status"] == "refused" and result["error"]["code"] == "doc_changed"
    assert path.read_text().startswith(EN)


def test_commit_raises_doc_changed_when_the_head_moved(tmp_path):
    path = tmp_path / "en.json"
    path.write_text(EN)
    home = FileHome(tmp_path)
    staged = home.stage("en.json")
    writes = home.render(staged, staged.document)
    path.write_text(EN.replace("Welcome", "Changed"))
    with pytest.raises(DocChanged):
        home.commit(writes)
    assert "Changed" in path.read_text()


def test_a_rename_refused_mid_commit_puts_back_what_landed(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a/en.json").write_text(EN)
    (tmp_path / "b/en.json").write_text(EN)
    real_replace = os.replace

    def failing_replace(source, target):  # the disk refuses the second rename
        if str(target).endswith("b/en.json"):
            raise OSError(28, "No space left on device")
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", failing_replace)
    result = apply(FileHome(tmp_path), set_title("a/en.json"), set_title("b/en.json"))
    assert result["status"] == "refused"
    assert result["ops"][1]["error"]["code"] == "unreachable"
    assert (
        "b/en.json: could not be written: No space left on device (ENOSPC)"
        in (result["ops"][1]["error"]["message"])
    )
    assert result["ops"][0]["blocked_by"] == 1
    assert (tmp_path / "a/en.json").read_text() == EN
    assert (tmp_path / "b/en.json").read_text() == EN
    for folder in ("a", "b"):
        assert sorted(p.name for p in (tmp_path / folder).iterdir()) == ["en.json"]


def test_a_commit_that_cannot_put_back_what_landed_is_partial(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a/en.json").write_text(EN)
    (tmp_path / "b/en.json").write_text(EN)
    real_replace = os.replace
    renamed: list[str] = []

    def failing_replace(source, target):  # the second rename fails, and so does every later one
        renamed.append(str(target))
        if len(renamed) > 1:
            raise OSError(5, "Input/output error")
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", failing_replace)
    result = apply(FileHome(tmp_path), set_title("a/en.json"), set_title("b/en.json"))
    assert result["status"] == "partial"
    assert [d["written"] for d in result["docs"]] == [True, False]
    assert [o["status"] for o in result["ops"]] == ["applied", "not_applied"]
    assert (tmp_path / "b/en.json").read_text() == EN
    assert (tmp_path / "a/en.json").read_text() != EN
    for folder in ("a", "b"):
        assert sorted(p.name for p in (tmp_path / folder).iterdir()) == ["en.json"]


def test_the_home_never_leaves_temporary_files(tmp_path):
    (tmp_path / "en.json").write_text(EN)
    apply(FileHome(tmp_path), set_title())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en.json"]


def test_text_a_format_cannot_hold_as_sent_is_refused_before_writing(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# Title here\n\nBody text.\n")
    result = apply(
        FileHome(tmp_path),
        {
            "op": "set_content",
            "at": {"doc": "a.md", "block": "s1"},
            "if_match": "*",
            "text": "Two\nlines",
        },
    )
    error = result["ops"][0]["error"]
    assert error["code"] == "unsupported" and error["capability"] == "edition"
    assert "would write block 's1' as 'Two lines'" in error["message"]
    assert path.read_text() == "# Title here\n\nBody text.\n"


def test_a_writer_that_drops_an_edit_never_reports_it_applied(tmp_path):
    from kapi.core.format import WriteRefused
    from kapi.formats import registry
    from kapi.formats.verify import verify_written

    data = EN.encode()
    codec = registry.load_codec("json")
    document = codec.read(data, path="en.json", locale="en")
    from kapi.core.model import Text

    edited = document.with_blocks((document.blocks[0].with_source((Text("Hello"),)),))
    verify_written(
        codec, edited, codec.write(edited), path="en.json", locale="en"
    )  # a faithful write passes
    with pytest.raises(WriteRefused, match="would write block 'title' as 'Welcome'"):
        verify_written(codec, edited, data, path="en.json", locale="en")  # the edit was dropped
    with pytest.raises(WriteRefused, match="would still be in"):
        verify_written(codec, document.with_blocks(()), data, path="en.json", locale="en")


# --- containment: a home never reads or writes outside its root ------------------------------


@pytest.mark.parametrize(
    "doc", ["../outside.json", "{base}/outside.json", "a/../../outside.json", "link.json"]
)
def test_a_document_outside_the_root_is_refused_before_it_is_read(tmp_path, doc):
    outside = tmp_path / "outside.json"
    outside.write_text('{"title": "kept-secret"}')
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.json").symlink_to(outside)
    result = apply(FileHome(root), set_title(doc.format(base=tmp_path), text="written"))
    error = result["ops"][0]["error"]
    assert (error["code"], error["field"], error["pointer"]) == (
        "invalid",
        "at/doc",
        "/ops/0/at/doc",
    )
    assert "outside the working folder" in error["message"]
    assert "kept-secret" not in json.dumps(result)
    assert outside.read_text() == '{"title": "kept-secret"}'


def test_a_symlink_inside_the_root_names_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "en.json").write_text(EN)
    (tmp_path / "alias.json").symlink_to("en.json")
    home = FileHome(tmp_path)
    assert home.stage("alias.json").doc == "en.json"
    assert home.stage("./sub/../en.json").doc == "en.json"
    apply(home, set_title("alias.json"))
    assert (tmp_path / "alias.json").is_symlink()
    assert "Hello" in (tmp_path / "en.json").read_text()


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    result = apply(FileHome(tmp_path), set_title("pipe.json"))
    error = result["ops"][0]["error"]
    assert error["code"] == "invalid"
    assert "pipe.json: is a FIFO (named pipe), not a file kapi can read" in error["message"]


def test_a_file_growing_past_the_limit_while_read_is_refused(tmp_path):
    from kapi.core.format import FormatError
    from kapi.formats.home import read_regular

    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 2048)
    with pytest.raises(FormatError) as raised:
        read_regular(path, display="big.json", limits=Limits(max_bytes=1024))
    assert raised.value.code == "budget_exceeded"


def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    path = tmp_path / "en.json"
    path.write_text(EN)
    path.chmod(0o444)
    result = apply(FileHome(tmp_path), set_title())
    assert result["status"] == "refused"
    assert result["ops"][0]["error"]["code"] == "not_permitted"
    assert path.read_text() == EN and path.stat().st_mode & 0o777 == 0o444
