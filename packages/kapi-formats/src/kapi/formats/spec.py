"""A format as the registry knows it before loading it: its name, files, abilities and codec.

A spec names its codec's module without importing it, so the registry can list
formats and detect a file's format without loading any parser.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from attrs import field, frozen

from kapi.core.format import FormatCapabilities

__all__ = ["FormatSpec"]


@frozen
class FormatSpec:
    """A format as the registry knows it before loading it."""

    name: str
    title: str
    codec: str  # "module:attribute" of the FormatCodec class
    extensions: tuple[str, ...] = ()
    mime_types: tuple[str, ...] = ()
    reader: bool = True
    writer: bool = True
    interchange: bool = False
    generative: bool = True
    round_trip: bool = True
    structural: bool = False
    writable_attrs: Mapping[str, tuple[str, ...]] = field(factory=dict)
    new_codes: tuple[str, ...] = ()
    # The inline code types the reader makes (``kapi formats --json`` says what an edit may do).
    code_types: tuple[str, ...] = ()
    # For an ambiguous extension: does this content belong to this format?
    # Gets the first 4 KiB of the file. Formats without one claim by extension.
    sniff: Callable[[bytes], bool] | None = field(default=None, eq=False)
    # Among formats sharing an extension, higher is tried first.
    priority: int = 0
    # A translation's own file takes the blocks its source gained (see FormatCapabilities).
    adds_blocks: bool = False

    @property
    def editable(self) -> bool:
        return self.reader and self.writer and not self.interchange

    @property
    def capabilities(self) -> FormatCapabilities:
        return FormatCapabilities(
            name=self.name,
            reader=self.reader,
            writer=self.writer,
            interchange=self.interchange,
            generative=self.generative,
            round_trip=self.round_trip,
            structural=self.structural,
            adds_blocks=self.adds_blocks,
            writable_attrs=self.writable_attrs,
            new_codes=self.new_codes,
        )
