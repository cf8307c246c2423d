"""Providers against local servers that speak each API's wire protocol: OpenAI chat completions,
Anthropic Messages, DeepL v2. Replies that lose a code or a segment, or are not JSON, are refused;
429 and 5xx are retried; an unreachable or slow server is exit 5; the key appears nowhere."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from provider_fakes import KEY, served, translated

KAPI = str(Path(sys.executable).with_name("kapi"))
SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"


def run(root, *args, env=None):
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KAPI_", "CLAUDE", "CODEX", "OPENAI", "ANTHROPIC", "DEEPL"))
    }
    environ.update(env or {})
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=environ, timeout=120
    )


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    return root


def no_key_anywhere(done, root):
    assert KEY not in done.stdout and KEY not in done.stderr
    for path in root.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("kind", ["openai", "anthropic", "deepl"])
def test_each_provider_translates_a_file_through_its_wire_protocol(shop, kind):
    api, env = served(kind)
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            kind,
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["written"] == 1
    french = json.loads((shop / "locales/fr.json").read_text())
    assert french["checkout"]["help"] == translated(
        "Simply contact support if anything goes wrong.", "fr"
    )
    request = api.requests[0]
    if kind == "openai":
        assert request["path"] == "/v1/chat/completions"
        assert request["headers"]["authorization"] == f"Bearer {KEY}"
        users = [m for m in request["body"]["messages"] if m["role"] == "user"]
        assert len(users) == 1
        message = json.loads(users[0]["content"])
        assert set(message) == {"source_lang", "target_lang", "voice", "terms", "segments"}
        assert message["source_lang"] == "en" and message["target_lang"] == "fr"
        assert message["segments"][0]["text"] == "Simply contact support if anything goes wrong."
    elif kind == "anthropic":
        assert request["path"] == "/v1/messages"
        assert request["headers"]["x-api-key"] == KEY
        assert request["headers"]["anthropic-version"]
        assert len(request["body"]["messages"]) == 1
        assert request["body"]["max_tokens"] > 0
    else:
        assert request["path"] == "/v2/translate"
        assert request["headers"]["authorization"] == f"DeepL-Auth-Key {KEY}"
        assert request["body"]["tag_handling"] == "xml"
        assert request["body"]["target_lang"] == "FR"
    no_key_anywhere(done, shop)


@pytest.mark.parametrize("kind", ["openai", "deepl"])
def test_a_placeholder_sent_as_a_code_comes_back(shop, kind):
    api, env = served(kind)
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            kind,
            "--json",
            env=env,
        )
    finally:
        api.close()
    german = json.loads((shop / "locales/de.json").read_text())
    assert german["checkout"]["pay"] == translated("Pay {{amount}} now", "de")
    sent = json.dumps(api.requests[0]["body"])
    assert "{{amount}}" not in sent  # the placeholder travelled as a code token
    assert done.returncode in (0, 3)


def test_a_reply_that_is_not_json_refuses_its_units_and_writes_nothing(shop):
    before = (shop / "locales/de.json").read_bytes()
    api, env = served("openai", "notjson")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    refused = [u for u in json.loads(done.stdout)["units"] if u["outcome"] == "refused"]
    assert len(refused) == 3 and all("not JSON" in u["reason"] for u in refused)
    assert (shop / "locales/de.json").read_bytes() == before
    no_key_anywhere(done, shop)


@pytest.mark.parametrize(
    ("mode", "message"), [("drop", "did not survive"), ("missing", "no segment")]
)
def test_a_unit_the_reply_got_wrong_is_refused_and_the_rest_land(shop, mode, message):
    api, env = served("openai", mode)
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    units = json.loads(done.stdout)["units"]
    refused = {u["block"] for u in units if u["outcome"] == "refused" and message in u["reason"]}
    written = {u["block"] for u in units if u["outcome"] == "written"}
    assert refused and written and not refused & written
    german = json.loads((shop / "locales/de.json").read_text())["checkout"]
    for block in refused:
        assert block.split(".")[-1] not in german  # nothing of a refused unit was written
    for block in written:
        assert german[block.split(".")[-1]].startswith("DE: ")
    no_key_anywhere(done, shop)


def test_a_dropped_code_is_refused_by_deepl_too(shop):
    before = (shop / "locales/de.json").read_bytes()
    api, env = served("deepl", "drop")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "deepl",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    result = json.loads(done.stdout)
    assert any("did not survive" in u["reason"] for u in result["units"])
    german = json.loads((shop / "locales/de.json").read_text())["checkout"]
    assert "pay" not in german and german["help"].startswith("DE: ")
    assert before != (shop / "locales/de.json").read_bytes()


def test_429_is_retried(shop):
    api, env = served("anthropic", "429-once")
    try:
        done = run(
            shop, "translate", "locales/en.json", "--to", "fr", "--provider", "anthropic", env=env
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert len(api.requests) == 2


def test_a_server_error_after_retries_is_unreachable_and_the_key_stays_secret(shop):
    before = (shop / "locales/fr.json").read_bytes()
    api, env = served("openai", "500")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--retries",
            "1",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 5
    assert "HTTP 500" in done.stderr
    assert len(api.requests) == 2
    assert (shop / "locales/fr.json").read_bytes() == before
    no_key_anywhere(done, shop)


def test_a_refused_key_is_said_without_the_key(shop):
    api, env = served("deepl", "401")
    try:
        done = run(
            shop, "translate", "locales/en.json", "--to", "fr", "--provider", "deepl", env=env
        )
    finally:
        api.close()
    assert done.returncode == 1
    assert "refused the key" in done.stderr
    no_key_anywhere(done, shop)


def test_a_slow_server_times_out(shop):
    api, env = served("openai", "slow")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--timeout",
            "0.5",
            "--retries",
            "0",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 5
    assert "timed out" in done.stderr
    no_key_anywhere(done, shop)


def test_an_unreachable_server(shop):
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": KEY}
    done = run(
        shop,
        "translate",
        "locales/en.json",
        "--to",
        "fr",
        "--provider",
        "openai",
        "--retries",
        "0",
        env=env,
    )
    assert done.returncode == 5
    assert "unreachable" in done.stderr
    no_key_anywhere(done, shop)


def test_a_missing_key_names_the_variable(shop):
    done = run(shop, "translate", "locales/en.json", "--to", "fr", "--provider", "anthropic")
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr


def test_text_mode_translates_and_writes_nothing(shop):
    api, env = served("openai")
    try:
        done = run(
            shop,
            "translate",
            "--text",
            'Hello <x id="1/"/>',
            "--to",
            "fr",
            "--provider",
            "openai",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == translated('Hello <x id="1/"/>', "fr")


def test_batches_follow_the_batch_size(shop):
    api, env = served("openai")
    (shop / "locales/de.json").unlink()
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "openai",
            "--batch-size",
            "2",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode in (0, 3), done.stderr
    sizes = [
        len(json.loads(r["body"]["messages"][-1]["content"])["segments"]) for r in api.requests
    ]
    assert sizes and max(sizes) <= 2


def test_a_reply_in_the_wrong_language_is_refused(shop):
    api, env = served("openai", "echo")
    try:
        echoed = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert echoed.returncode == 3
    units = json.loads(echoed.stdout)["units"]
    assert any("not in the target language" in u["reason"] for u in units)
    assert "help" not in json.loads((shop / "locales/fr.json").read_text())["checkout"]
    api, env = served("openai")
    try:
        latin = run(
            shop,
            "translate",
            "--text",
            "Open your cart",
            "--to",
            "ja",
            "--provider",
            "openai",
            env=env,
        )
    finally:
        api.close()
    assert latin.returncode == 3
    assert "script" in latin.stderr


def test_an_english_answer_to_a_french_request_is_refused_and_the_rest_land(shop):
    """The server answers in English that is not the source as sent: the unit long enough to
    tell is refused for its words, nothing of it is written, the French file keeps the rest."""
    (shop / "locales/fr.json").unlink()
    api, env = served("openai", "english")
    try:
        done = run(shop, "up", "--provider", "openai", "--to", "fr", "--json", env=env)
    finally:
        api.close()
    assert done.returncode == 3, done.stderr
    units = {u["block"]: u for u in json.loads(done.stdout)["units"]}
    help_unit = units["checkout.help"]
    assert help_unit["outcome"] == "refused"
    assert "reads as en" in help_unit["reason"] and "not fr" in help_unit["reason"]
    french = json.loads((shop / "locales/fr.json").read_text(encoding="utf-8"))["checkout"]
    assert "Please simply" not in json.dumps(french)  # the refused answer was not written
    assert units["checkout.title"]["outcome"] == "written"  # two words: too short to tell
    no_key_anywhere(done, shop)


@pytest.mark.parametrize(
    ("reply", "target", "why"),
    [
        ("Please contact support if anything goes wrong.", "fr", "reads as en"),
        ("Contactez le support si quelque chose ne va pas.", "fr", ""),
        ("Wenden Sie sich an den Support, wenn etwas schiefgeht.", "fr", "reads as de"),
        ("Wenden Sie sich an den Support, wenn etwas schiefgeht.", "de", ""),
        ("Póngase en contacto con soporte para cualquier problema.", "es", ""),
        ("Contact support when something goes wrong with your order.", "es", "reads as en"),
        ("Обратитесь в службу поддержки, если что-то пойдёт не так.", "fr", "another script"),
        ("Обратитесь в службу поддержки, если что-то пойдёт не так.", "ru", ""),
        ("Please contact support if something goes wrong.", "ru", "script"),
        ("問題が発生した場合はサポートにお問い合わせください。", "ja", ""),
        ("如果出现任何问题请联系我们的支持团队", "ja", "Chinese"),
        ("如果出现任何问题请联系我们的支持团队", "zh", ""),
        ("如果出现任何问题，请联系サポート", "zh", "Japanese"),
        ("إذا حدث خطأ ما، فاتصل بالدعم.", "ar", ""),
        ("Your cart", "fr", ""),  # too short to tell: a label kept as it is passes
        ("Sign in with GitHub", "de", ""),  # a brand kept, and no sentence to judge
    ],
)
def test_wrong_language_is_told_by_script_and_by_function_words(reply, target, why):
    from kapi.host.providers.language import wrong_language

    said = wrong_language("Contact support if anything goes wrong.", reply, "en", target)
    assert (why in said) if why else said == "", said


def test_a_machine_made_target_that_fails_qa_is_refused(shop):
    api, env = served("openai", "printf")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    refused = [u for u in json.loads(done.stdout)["units"] if u["outcome"] == "refused"]
    assert refused and "qa.printf" in refused[0]["reason"]
    assert "help" not in json.loads((shop / "locales/fr.json").read_text())["checkout"]


def test_the_recipe_names_the_provider_and_model_and_the_flag_wins(shop):
    recipe = shop / "kapi.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "  target_languages: [fr, de]",
            "  target_languages: [fr, de]\n  provider: openai\n  model: house-model",
        )
    )
    api, env = served("openai")
    try:
        done = run(shop, "translate", "locales/en.json", "--to", "fr", env=env)
        flagged = run(
            shop, "translate", "--text", "Open the cart", "--to", "fr", "--model", "other", env=env
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert api.requests[0]["body"]["model"] == "house-model"
    assert flagged.returncode == 0, flagged.stderr
    assert api.requests[-1]["body"]["model"] == "other"


def test_terms_and_the_voice_brief_reach_the_model(shop):
    assert run(shop, "terms", "import", "terms.json").returncode == 0
    en = shop / "locales/en.json"
    en.write_text(
        en.read_text().replace("Simply contact support", "Simply contact Northwind support")
    )
    api, env = served("openai")
    try:
        done = run(
            shop, "translate", "locales/en.json", "--to", "fr", "--provider", "openai", env=env
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    message = json.loads(api.requests[0]["body"]["messages"][-1]["content"])
    assert {"source": "Northwind", "target": "Northwind"} in message["terms"]
    assert "Northwind shop UI" in message["voice"]


def test_the_translate_flow_runs_on_the_example_with_an_openai_compatible_server(shop):
    """`kapi run translate` (recycle -> translate -> qa) against the local chat-completions
    server: memory first, the server for the rest, then QA; the French a person wrote stays."""
    (shop / "locales/de.json").unlink()
    french_before = (shop / "locales/fr.json").read_bytes()
    api, env = served("openai")
    try:
        done = run(
            shop, "run", "translate", "--to", "de", "--provider", "openai", "--json", env=env
        )
    finally:
        api.close()
    assert done.returncode in (0, 3), done.stderr
    result = json.loads(done.stdout)
    assert result["steps"] == ["recycle", "translate", "qa"]
    assert result["written"] == 6 and result["refused"] == 0  # every German unit
    assert {language for language, _ in api.segments} == {"de"}
    german = json.loads((shop / "locales/de.json").read_text(encoding="utf-8"))
    assert german["nav"]["home"] == translated("Home", "de")
    assert not [f for f in result["qa"] if f["fails"] == "true"]
    assert (shop / "locales/fr.json").read_bytes() == french_before
    no_key_anywhere(done, shop)


def test_the_key_appears_in_no_output_error_report_or_file(shop):
    """Every verb that takes a provider, answering and failing (an error body that quotes the
    key, a refused key), with the key in the environment: not one byte of it anywhere."""
    outputs = []
    for kind, mode in (("openai", "ok"), ("anthropic", "500"), ("deepl", "401")):
        api, env = served(kind, mode)
        try:
            for args in (
                ("up", "--provider", kind, "--json", "--retries", "0"),
                ("up", "--provider", kind, "--retries", "0"),
                ("translate", "--text", "Open your cart", "--to", "de", "--provider", kind),
                ("run", "translate", "--to", "de", "--provider", kind, "--json"),
                ("status", "--json"),
            ):
                done = run(shop, *args, env=env)
                assert "Traceback" not in done.stderr
                outputs.append(done)
        finally:
            api.close()
    assert any("500" in done.stderr for done in outputs)
    assert any("401" in done.stderr or "key" in done.stderr for done in outputs)
    for done in outputs:
        no_key_anywhere(done, shop)


SENSITIVE = {
    "email": "ann@example.com",
    "phone": "+44 20 7946 0958",
    "card": "4111 1111 1111 1111",
    "ip": "10.0.0.12",
    "url": "https://intranet.example/orders?id=7",
    "sku": "ACME-ROCKET-42",  # a recipe rule's own category
}
SENSITIVE_HELP = (
    "Mail {email} or call {phone}; pay with {card}, reach {ip}, see {url} and quote {sku}."
).format(**SENSITIVE)


def test_secure_translate_sends_the_provider_no_sensitive_value_and_restores_each(shop):
    recipe = shop / "kapi.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "  target_languages: [fr, de]\n",
            "  target_languages: [fr, de]\n  redaction:\n    rules:\n"
            "      - pattern: 'ACME-[A-Z]+-\\d+'\n        category: sku\n",
        )
    )
    source = shop / "locales/en.json"
    source.write_text(
        source.read_text().replace("Simply contact support if anything goes wrong.", SENSITIVE_HELP)
    )
    api, env = served("openai")
    try:
        done = run(
            shop, "run", "secure-translate", "locales/en.json", "--to", "fr", "--provider",
            "openai", "--json", env=env,
        )  # fmt: skip
        sent = json.dumps([request["body"] for request in api.requests], ensure_ascii=False)
        plain = run(
            shop, "translate", "locales/en.json", "--to", "de", "--provider", "openai", env=env
        )
        sent_plain = json.dumps([r["body"] for r in api.requests], ensure_ascii=False)
    finally:
        api.close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "<x id=" in sent and "Mail " in sent  # the text went, with codes in the values' place
    for value in SENSITIVE.values():
        assert value not in sent
        assert value in sent_plain  # without redaction the same server sees every one
    assert plain.returncode == 0, plain.stderr
    help_fr = json.loads((shop / "locales/fr.json").read_text())["checkout"]["help"]
    assert help_fr.startswith(translated("Mail", "fr") + " ")  # the answer, translated
    for value in SENSITIVE.values():
        assert value in help_fr  # each original restored exactly as it was
    vault = json.loads((shop / ".kapi/vault.json").read_text())
    assert set(vault.values()) == set(SENSITIVE.values())
    assert {key.split("_")[0] for key in vault} == {
        "{{EMAIL", "{{PHONE", "{{CARD", "{{IP", "{{URL", "{{SKU"
    }  # fmt: skip
