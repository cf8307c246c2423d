"""Whether a provider's answer is in the language asked for.

Three signs, each needing enough text to be sure, so a brand name or a short
label kept as it is passes:

* a text of three or more words given back exactly as sent;
* the script: a language written in its own script (Arabic, Hebrew,
  Cyrillic, Greek, Devanagari, Thai, Japanese, Chinese, Korean…) answered
  without a letter of it (Japanese without kana, once it runs to eight Han
  characters, is Chinese; Chinese with kana is Japanese), and a language
  written in Latin letters answered mostly in another script;
* the function words of a language written in Latin letters: an answer of
  three or more words with none of the target's (``le``, ``et``, ``pour`` for
  French) and at least two, a third of its words or more, of another known
  language's (``the``, ``if``, ``your`` for English) is in that language.
"""

from __future__ import annotations

import re

__all__ = ["wrong_language"]

_SCRIPTS: dict[str, str] = {
    "ar": "\u0600-\u06ff", "fa": "\u0600-\u06ff", "ur": "\u0600-\u06ff",
    "he": "\u0590-\u05ff", "yi": "\u0590-\u05ff",
    "ru": "\u0400-\u04ff", "uk": "\u0400-\u04ff", "bg": "\u0400-\u04ff",
    "be": "\u0400-\u04ff", "mk": "\u0400-\u04ff", "kk": "\u0400-\u04ff",
    "el": "\u0370-\u03ff", "hi": "\u0900-\u097f", "mr": "\u0900-\u097f",
    "ne": "\u0900-\u097f", "bn": "\u0980-\u09ff", "ta": "\u0b80-\u0bff",
    "te": "\u0c00-\u0c7f", "kn": "\u0c80-\u0cff", "ml": "\u0d00-\u0d7f",
    "gu": "\u0a80-\u0aff", "pa": "\u0a00-\u0a7f", "si": "\u0d80-\u0dff",
    "th": "\u0e00-\u0e7f", "lo": "\u0e80-\u0eff", "km": "\u1780-\u17ff",
    "my": "\u1000-\u109f", "ka": "\u10a0-\u10ff", "hy": "\u0530-\u058f",
    "am": "\u1200-\u137f",
    "ja": "\u3040-\u30ff\u4e00-\u9fff", "zh": "\u4e00-\u9fff",
    "ko": "\uac00-\ud7af\u1100-\u11ff",
}  # fmt: skip
_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u4e00-\u9fff]")

# Frequent function words each language has and the others seldom write as words.
_WORDS: dict[str, frozenset[str]] = {
    language: frozenset(words.split())
    for language, words in {
        "en": "the and of to is that it for you with are this be your have not but from can "
        "if all what when which their there would about been were they we them any anything "
        "something nothing please our here just only into after before again each some how "
        "why who where while because these those its his she my must should could might does "
        "did had get gets goes going wrong than then more yes one up down out now new",
        "fr": "le la les des du un une et est que qui dans pour pas sur au aux avec ce cette "
        "il elle nous vous ils elles ne se sont par plus mais ou où votre vos son sa ses leur "
        "leurs être été fait tout tous si à ça cela déjà très aussi comme",
        "de": "der die das und ist nicht ein eine einen zu den von mit sich des auf für im "
        "dem es sie ich wir ihr sind auch wie aus bei nach oder wird werden kann ihre ihren "
        "ihnen noch nur schon sehr wenn dass hier jetzt",
        "es": "el los las del que y en un una es por con para se su sus al lo como más pero "
        "está están este esta estos si ya muy también cuando donde usted ustedes",
        "it": "il lo gli di che è un una per non con del della dei delle sono si al ai nel "
        "questo questa più ma come anche quando dove tuo tua suo sua",
        "pt": "o os um uma para com não do da dos das no na em por mais seu sua são como mas "
        "está estão você também quando onde muito",
        "nl": "de het een en van is dat op te niet zijn met voor er aan je ook als bij maar om "
        "dan wordt deze naar uw hun kunt wilt",
        "sv": "och att det som en är på för med av till den har inte om ett jag var men du "
        "kan ska din ditt",
        "da": "og at det som en er på for med af til den har ikke om et jeg var men du kan "
        "skal din dit",
        "nb": "og at det som en er på for med av til den har ikke om et jeg var men du kan "
        "skal din ditt",
        "pl": "i w nie na się to że do jest z jak co po ale tak za od czy są jego jej ten ta "
        "twój twoje",
        "cs": "a v se na je že to s z do o jak ale jsou by k po za od jeho její tento tato "
        "váš vaše",
        "tr": "ve bir bu da de için ile ne çok daha gibi olarak değil ama sonra kadar her "
        "olan veya",
    }.items()
}
_ALIASES = {"no": "nb", "nn": "nb"}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_TOKEN = re.compile(r'<x\s+id="[^"]*"\s*/>')


def _base(language: str) -> str:
    base = language.replace("_", "-").split("-")[0].lower()
    return _ALIASES.get(base, base)


def wrong_language(source: str, reply: str, source_lang: str, target_lang: str) -> str:
    """Why ``reply`` is not in ``target_lang``, or ``""`` when nothing says so."""
    target = _base(target_lang)
    if _base(source_lang) == target:
        return ""
    text = _TOKEN.sub(" ", reply)
    words = _WORD.findall(_TOKEN.sub(" ", source))
    if len(words) >= 3 and reply.strip() == source.strip():
        return "came back as it was sent; the reply is not in the target language"
    letters = [char for char in text if char.isalpha()]
    script = _SCRIPTS.get(target)
    if script is not None:
        if words and not re.search(f"[{script}]", text):
            return f"holds no letter of {target_lang}'s script; the reply is in another language"
        if target == "ja" and len(_HAN.findall(text)) >= 8 and not _KANA.search(text):
            return "is written without kana; the reply reads as Chinese, not Japanese"
        if target == "zh" and len(_KANA.findall(text)) >= 2:
            return "holds kana; the reply reads as Japanese, not Chinese"
        return ""
    if len(letters) >= 8 and sum(1 for char in letters if char.isascii()) * 2 < len(letters):
        latin = sum(1 for char in letters if "LATIN" in _name(char))
        if latin * 2 < len(letters):
            return f"is mostly written in another script than {target_lang}'s Latin letters"
    own = _WORDS.get(target)
    if own is None:
        return ""
    tokens = [word.lower() for word in _WORD.findall(text)]
    if len(tokens) < 3 or any(token in own for token in tokens):
        return ""
    counts = {
        language: sum(1 for token in tokens if token in listed)
        for language, listed in _WORDS.items()
        if language != target
    }
    language, hits = max(counts.items(), key=lambda item: (item[1], item[0]))
    if hits >= 2 and hits * 3 >= len(tokens):
        said = ", ".join(sorted({token for token in tokens if token in _WORDS[language]}))
        return f"reads as {language} ({said}), not {target_lang}; the reply is in another language"
    return ""


def _name(char: str) -> str:
    import unicodedata

    return unicodedata.name(char, "")
