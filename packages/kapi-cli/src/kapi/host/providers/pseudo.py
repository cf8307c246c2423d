"""The ``pseudo`` provider: pseudo-translation, offline; codes and placeholders untouched."""

from __future__ import annotations

from kapi.host.providers.port import ProviderOptions, TranslationBatch

__all__ = ["PseudoProvider"]


class PseudoProvider:
    name = "pseudo"

    def __init__(self, options: ProviderOptions) -> None:
        from kapi.core.pseudo import PseudoOptions

        try:
            self.options = PseudoOptions(
                style=options.pseudo_style,
                expansion=options.pseudo_expansion,
                brackets=options.pseudo_brackets,
            )
        except ValueError as err:
            from kapi.host.errors import EXIT_USAGE, HostError

            raise HostError(str(err), exit_code=EXIT_USAGE) from None
        self.engine = f"pseudo/{self.options.style}"

    def translate(self, batch: TranslationBatch) -> dict[str, str]:
        from kapi.core.edittext import render_edit_text
        from kapi.core.model import Text
        from kapi.core.pseudo import pseudo_runs

        out: dict[str, str] = {}
        for segment in batch.segments:
            runs = segment.runs or (Text(segment.text),)
            out[segment.id] = render_edit_text(pseudo_runs(runs, self.options))
        return out
