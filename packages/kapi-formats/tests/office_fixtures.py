"""Small OOXML packages built from XML text, for the office format tests.

Each builder writes a complete, valid package (content types, package and
part relationships) around the XML a test cares about, so a test shows the
exact markup it reads and the exact bytes it expects back.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Mapping, Sequence

from attrs import frozen

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
WPS = "http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
V = "urn:schemas-microsoft-com:vml"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
X = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
OFFICE_DOCUMENT = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
)
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"

DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'

DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
PPTX_MAIN = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"

Rel = tuple[str, str, str]  # id, type suffix, target ("http..." targets are external)


def rels_xml(rels: list[Rel]) -> str:
    items = []
    for rel_id, kind, target in rels:
        mode = ' TargetMode="External"' if target.startswith(("http:", "https:", "mailto:")) else ""
        items.append(f'<Relationship Id="{rel_id}" Type="{REL}{kind}" Target="{target}"{mode}/>')
    return f'{DECLARATION}<Relationships xmlns="{PKG_RELS}">{"".join(items)}</Relationships>'


def content_types(overrides: Mapping[str, str]) -> str:
    items = "".join(
        f'<Override PartName="/{name}" ContentType="{kind}"/>' for name, kind in overrides.items()
    )
    return (
        f'{DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Default Extension="png" ContentType="image/png"/>'
        f"{items}</Types>"
    )


def zip_parts(parts: Mapping[str, str | bytes], stored: frozenset[str] = frozenset()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in parts.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 5, 17, 10, 30, 0))
            info.compress_type = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
            archive.writestr(info, content.encode("utf-8") if isinstance(content, str) else content)
    return out.getvalue()


STYLES = (
    f'{DECLARATION}<w:styles xmlns:w="{W}">'
    '<w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault></w:docDefaults>'
    '<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="MyHeading"><w:name w:val="My Heading"/>'
    '<w:basedOn w:val="Heading1"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/>'
    '<w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>'
    '<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/></w:style>'
    "</w:styles>"
)


def document_xml(body: str) -> str:
    return (
        f'{DECLARATION}<w:document xmlns:w="{W}" xmlns:r="{R}" xmlns:mc="{MC}" '
        f'xmlns:wps="{WPS}" xmlns:wp="{WP}" xmlns:a="{A}" xmlns:v="{V}" '
        f'mc:Ignorable="wps"><w:body>{body}<w:sectPr/></w:body></w:document>'
    )


def story_xml(root: str, content: str) -> str:
    return f'{DECLARATION}<w:{root} xmlns:w="{W}" xmlns:r="{R}">{content}</w:{root}>'


def docx(
    body: str,
    *,
    rels: list[Rel] | None = None,
    parts: Mapping[str, str | bytes] | None = None,
    overrides: Mapping[str, str] | None = None,
) -> bytes:
    """A Word package whose body is ``body``; ``parts`` are added under their names."""
    document_rels: list[Rel] = [("rIdStyles", "styles", "styles.xml"), *(rels or [])]
    types = {"word/document.xml": DOCX_MAIN, **(overrides or {})}
    files: dict[str, str | bytes] = {
        "[Content_Types].xml": content_types(types),
        "_rels/.rels": rels_xml([("rId1", "officeDocument", "word/document.xml")]),
        "word/document.xml": document_xml(body),
        "word/_rels/document.xml.rels": rels_xml(document_rels),
        "word/styles.xml": STYLES,
    }
    files.update(parts or {})
    return zip_parts(files)


def para(content: str, properties: str = "") -> str:
    return f"<w:p>{properties}{content}</w:p>"


def run(text: str, properties: str = "", attrs: str = "") -> str:
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f"<w:r{attrs}>{properties}<w:t{space}>{text}</w:t></w:r>"


def xlsx(
    sheets: list[tuple[str, str]],
    shared: list[str] | None = None,
    *,
    count: int | None = None,
) -> bytes:
    """A workbook: ``sheets`` are (name, sheetData inner XML); ``shared`` the <si> inner XML."""
    workbook_rels: list[Rel] = []
    sheet_items = []
    types = {"xl/workbook.xml": XLSX_MAIN}
    files: dict[str, str | bytes] = {}
    for number, (name, rows) in enumerate(sheets, start=1):
        workbook_rels.append((f"rId{number}", "worksheet", f"worksheets/sheet{number}.xml"))
        sheet_items.append(f'<sheet name="{name}" sheetId="{number}" r:id="rId{number}"/>')
        files[f"xl/worksheets/sheet{number}.xml"] = (
            f'{DECLARATION}<worksheet xmlns="{X}" xmlns:r="{R}"><sheetData>{rows}</sheetData>'
            "</worksheet>"
        )
        types[f"xl/worksheets/sheet{number}.xml"] = (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
        )
    if shared is not None:
        workbook_rels.append(("rIdS", "sharedStrings", "sharedStrings.xml"))
        total = len(shared) if count is None else count
        items = "".join(f"<si>{item}</si>" for item in shared)
        types["xl/sharedStrings.xml"] = (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
        )
        files["xl/sharedStrings.xml"] = (
            f'{DECLARATION}<sst xmlns="{X}" count="{total}" uniqueCount="{len(shared)}">'
            f"{items}</sst>"
        )
    files["xl/calcChain.xml"] = f'{DECLARATION}<calcChain xmlns="{X}"><c r="B2" i="1"/></calcChain>'
    workbook_rels.append(("rIdC", "calcChain", "calcChain.xml"))
    types["xl/calcChain.xml"] = (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"
    )
    head: dict[str, str | bytes] = {
        "[Content_Types].xml": content_types(types),
        "_rels/.rels": rels_xml([("rId1", "officeDocument", "xl/workbook.xml")]),
        "xl/workbook.xml": (
            f'{DECLARATION}<workbook xmlns="{X}" xmlns:r="{R}"><sheets>{"".join(sheet_items)}'
            "</sheets></workbook>"
        ),
        "xl/_rels/workbook.xml.rels": rels_xml(workbook_rels),
    }
    return zip_parts({**head, **files})


def pptx(
    slides: list[str],
    notes: Mapping[int, str] | None = None,
    slide_rels: Mapping[int, list[Rel]] | None = None,
) -> bytes:
    """A deck whose slides hold ``slides`` (p:spTree inner XML); ``notes`` by slide number."""
    types = {"ppt/presentation.xml": PPTX_MAIN}
    files: dict[str, str | bytes] = {}
    presentation_rels: list[Rel] = [("rIdM", "slideMaster", "slideMasters/slideMaster1.xml")]
    ids = []
    for number, tree in enumerate(slides, start=1):
        presentation_rels.append((f"rId{number}", "slide", f"slides/slide{number}.xml"))
        ids.append(f'<p:sldId id="{255 + number}" r:id="rId{number}"/>')
        files[f"ppt/slides/slide{number}.xml"] = _slide("sld", tree)
        own_rels: list[Rel] = [("rIdL", "slideLayout", "../slideLayouts/slideLayout1.xml")]
        own_rels.extend((slide_rels or {}).get(number, []))
        if notes and number in notes:
            own_rels.append(("rIdN", "notesSlide", f"../notesSlides/notesSlide{number}.xml"))
            files[f"ppt/notesSlides/notesSlide{number}.xml"] = _slide("notes", notes[number])
        files[f"ppt/slides/_rels/slide{number}.xml.rels"] = rels_xml(own_rels)
    files["ppt/slideMasters/slideMaster1.xml"] = _slide(
        "sldMaster", _shape(2, "Click to edit Master title style", placeholder="title")
    )
    files["ppt/slideMasters/_rels/slideMaster1.xml.rels"] = rels_xml(
        [("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml")]
    )
    files["ppt/slideLayouts/slideLayout1.xml"] = _slide("sldLayout", _shape(3, "Layout prompt"))
    head: dict[str, str | bytes] = {
        "[Content_Types].xml": content_types(types),
        "_rels/.rels": rels_xml([("rId1", "officeDocument", "ppt/presentation.xml")]),
        "ppt/presentation.xml": (
            f'{DECLARATION}<p:presentation xmlns:p="{P}" xmlns:r="{R}" xmlns:a="{A}">'
            '<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rIdM"/></p:sldMasterIdLst>'
            f"<p:sldIdLst>{''.join(ids)}</p:sldIdLst></p:presentation>"
        ),
        "ppt/_rels/presentation.xml.rels": rels_xml(presentation_rels),
    }
    return zip_parts({**head, **files})


def _slide(root: str, tree: str) -> str:
    return (
        f'{DECLARATION}<p:{root} xmlns:p="{P}" xmlns:r="{R}" xmlns:a="{A}"><p:cSld><p:spTree>'
        f"{tree}</p:spTree></p:cSld></p:{root}>"
    )


def _shape(shape_id: int, text: str, placeholder: str = "") -> str:
    ph = f'<p:nvPr><p:ph type="{placeholder}"/></p:nvPr>' if placeholder else "<p:nvPr/>"
    return (
        f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="Shape {shape_id}"/><p:cNvSpPr/>{ph}'
        f'</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/>'
        f"<a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"
    )


def shape(shape_id: int, paragraphs: str, placeholder: str = "") -> str:
    """A text shape whose text body holds ``paragraphs`` (a:p elements)."""
    ph = f'<p:nvPr><p:ph type="{placeholder}"/></p:nvPr>' if placeholder else "<p:nvPr/>"
    return (
        f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="Shape {shape_id}"/><p:cNvSpPr/>{ph}'
        f"</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>{paragraphs}</p:txBody></p:sp>"
    )


def entries(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def raw_entries(data: bytes) -> dict[str, tuple[tuple[object, ...], bytes]]:
    """Per entry: its metadata and its stored (compressed) bytes."""
    out: dict[str, tuple[tuple[object, ...], bytes]] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            header = data[info.header_offset : info.header_offset + 30]
            name_len = int.from_bytes(header[26:28], "little")
            extra_len = int.from_bytes(header[28:30], "little")
            start = info.header_offset + 30 + name_len + extra_len
            meta = (
                info.date_time,
                info.compress_type,
                info.external_attr,
                info.create_system,
                info.extra,
                info.comment,
                info.create_version,
                info.extract_version,
            )
            out[info.filename] = (meta, data[start : start + info.compress_size])
    return out


def changed_entries(before: bytes, after: bytes) -> list[str]:
    """Names of entries whose uncompressed bytes differ; the entry lists must match."""
    old, new = entries(before), entries(after)
    assert list(old) == list(new)
    return [name for name in old if old[name] != new[name]]


# -- zips written byte by byte, whose headers may say anything -------------------------


def deflate_repeated(head: bytes, filler: bytes, count: int) -> bytes:
    """A raw deflate stream of ``head + filler * count``, compressing ``filler`` once.

    A full flush empties the compressor's history, so the compressed filler is the
    same segment every time and a gigabyte stream costs one megabyte of work.
    """
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    segment = compressor.compress(filler) + compressor.flush(zlib.Z_FULL_FLUSH)
    return start + segment * count + compressor.flush()


def deflate(content: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(content) + compressor.flush()


@frozen
class RawEntry:
    """A zip entry as its headers declare it: sizes and CRC default to the truth."""

    name: str
    stream: bytes  # the bytes stored after the local header
    size: int
    crc: int
    method: int = zipfile.ZIP_DEFLATED
    compressed_size: int | None = None  # declared; default len(stream)

    @classmethod
    def of(cls, name: str, content: bytes, method: int = zipfile.ZIP_DEFLATED) -> RawEntry:
        stream = deflate(content) if method == zipfile.ZIP_DEFLATED else content
        return cls(name, stream, len(content), zlib.crc32(content), method)


def raw_zip(items: Sequence[RawEntry], *, directory_copies: int = 1) -> bytes:
    """A zip whose local and central headers both carry each entry's declared values.

    ``directory_copies`` repeats the central directory records (every copy points at
    the same local entries), which makes an archive of many entries cheaply.
    """
    local = io.BytesIO()
    records: list[bytes] = []
    for item in items:
        name = item.name.encode("utf-8")
        declared = len(item.stream) if item.compressed_size is None else item.compressed_size
        fields = (20, 0, item.method, 0, 0x58B1, item.crc, declared, item.size, len(name), 0)
        offset = local.tell()
        local.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + name + item.stream)
        records.append(
            struct.pack("<IH", 0x02014B50, 20)
            + struct.pack("<HHHHHIIIHH", *fields)
            + struct.pack("<HHHII", 0, 0, 0, 0, offset)
            + name
        )
    directory = b"".join(records) * directory_copies
    count = min(len(records) * directory_copies, 0xFFFF)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory), local.tell(), 0)
    return local.getvalue() + directory + end


def understated(name: str, content: bytes, filler_mib: int) -> RawEntry:
    """An entry whose headers declare ``content`` (its size and CRC) while its stream
    inflates ``filler_mib`` MiB of spaces after it: the zip bomb that lies."""
    stream = deflate_repeated(content, b" " * (1 << 20), filler_mib)
    return RawEntry(name, stream, size=len(content), crc=zlib.crc32(content))


def raw_package(data: bytes, *replace: RawEntry) -> list[RawEntry]:
    """The entries of the zip ``data`` as raw entries, those named in ``replace`` swapped."""
    items = [RawEntry.of(name, content) for name, content in entries(data).items()]
    named = {entry.name: entry for entry in replace}
    return [named.pop(item.name, item) for item in items] + list(named.values())


C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
CHART_TYPE = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"


def chart_xml(title: str = "Sales by region", *, body: str = "") -> str:
    """A bar chart part: a rich title, two series (one name written out, one a cached
    reference), a data label, and a titled value axis; ``body`` replaces the plot area."""
    rich = (
        '<c:tx><c:rich><a:bodyPr/><a:p><a:pPr><a:defRPr b="1"/></a:pPr>'
        f'<a:r><a:rPr lang="en-US" b="1"/><a:t>{title}</a:t></a:r></a:p></c:rich></c:tx>'
    )
    plot = body or (
        '<c:plotArea><c:layout/><c:barChart><c:barDir val="col"/>'
        '<c:ser><c:idx val="0"/><c:order val="0"/><c:tx><c:v>Revenue</c:v></c:tx>'
        '<c:dLbls><c:dLbl><c:idx val="1"/><c:tx><c:rich><a:bodyPr/><a:p><a:r>'
        "<a:t>Best quarter</a:t></a:r></a:p></c:rich></c:tx></c:dLbl></c:dLbls>"
        '<c:val><c:numLit><c:ptCount val="2"/><c:pt idx="0"><c:v>1</c:v></c:pt>'
        '<c:pt idx="1"><c:v>2</c:v></c:pt></c:numLit></c:val></c:ser>'
        '<c:ser><c:idx val="1"/><c:order val="1"/><c:tx><c:strRef><c:f>Sheet1!$C$1</c:f>'
        '<c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>Costs &amp; fees</c:v></c:pt>'
        "</c:strCache></c:strRef></c:tx></c:ser>"
        '<c:axId val="10"/><c:axId val="20"/></c:barChart>'
        '<c:catAx><c:axId val="10"/><c:crossAx val="20"/></c:catAx>'
        '<c:valAx><c:axId val="20"/><c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r>'
        "<a:t>Euros</a:t></a:r></a:p></c:rich></c:tx></c:title>"
        '<c:crossAx val="10"/></c:valAx></c:plotArea>'
    )
    return (
        f'{DECLARATION}<c:chartSpace xmlns:c="{C}" xmlns:a="{A}" xmlns:r="{R}">'
        f'<c:chart><c:title>{rich}</c:title><c:autoTitleDeleted val="0"/>{plot}'
        '<c:plotVisOnly val="1"/></c:chart></c:chartSpace>'
    )


def docx_with_chart(chart: str | None = None) -> bytes:
    """A Word document with a paragraph, an inline chart, and a paragraph after it;
    ``chart=None`` leaves the chart part out (its relationship dangles)."""
    frame = (
        '<w:r><w:drawing><wp:inline><wp:extent cx="4000000" cy="3000000"/>'
        '<wp:docPr id="1" name="Chart 1"/><a:graphic><a:graphicData '
        f'uri="{C}"><c:chart xmlns:c="{C}" r:id="rIdChart"/></a:graphicData></a:graphic>'
        "</wp:inline></w:drawing></w:r>"
    )
    parts: dict[str, str | bytes] = {}
    if chart is not None:
        parts["word/charts/chart1.xml"] = chart
    return docx(
        para(run("Before the chart")) + para(frame) + para(run("After the chart")),
        rels=[("rIdChart", "chart", "charts/chart1.xml")],
        parts=parts,
        overrides={"word/charts/chart1.xml": CHART_TYPE} if chart is not None else {},
    )


def xlsx_with_chart(*, chart_sheet: bool = True, drawing: bool = True) -> bytes:
    """A workbook: sheet ``Sheet1`` with a chart on its drawing (:func:`chart_xml`, whose
    second series is cell C1), and a chart sheet ``Overview`` with a chart of its own.

    C1 ("Costs &amp; fees") is a shared string C4 uses too. ``drawing=False`` leaves
    the sheet's drawing part out (its relationship dangles).
    """
    rows = (
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>'
        '<c r="C1" t="s"><v>2</v></c></row>'
        '<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2"><v>120</v></c><c r="C2"><v>80</v></c></row>'
        '<row r="4"><c r="A4" t="s"><v>4</v></c><c r="C4" t="s"><v>2</v></c></row>'
    )
    shared = ["Region", "Revenue", "Costs &amp; fees", "North", "Note"]
    drawing_xml = (
        f'{DECLARATION}<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/'
        f'spreadsheetDrawing" xmlns:a="{A}" xmlns:r="{R}" xmlns:c="{C}"><xdr:absoluteAnchor>'
        '<xdr:pos x="0" y="0"/><xdr:ext cx="4000000" cy="3000000"/><xdr:graphicFrame macro="">'
        '<xdr:nvGraphicFramePr><xdr:cNvPr id="2" name="Chart 1"/><xdr:cNvGraphicFramePr/>'
        '</xdr:nvGraphicFramePr><xdr:xfrm/><a:graphic><a:graphicData uri="' + C + '">'
        '<c:chart r:id="rId1"/></a:graphicData></a:graphic></xdr:graphicFrame>'
        "<xdr:clientData/></xdr:absoluteAnchor></xdr:wsDr>"
    )
    types = {
        "xl/workbook.xml": XLSX_MAIN,
        "xl/worksheets/sheet1.xml": (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
        ),
        "xl/sharedStrings.xml": (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
        ),
        "xl/charts/chart1.xml": CHART_TYPE,
        "xl/drawings/drawing1.xml": "application/vnd.openxmlformats-officedocument.drawing+xml",
    }
    sheets = '<sheet name="Sheet1" sheetId="1" r:id="rId1"/>'
    workbook_rels: list[Rel] = [
        ("rId1", "worksheet", "worksheets/sheet1.xml"),
        ("rIdS", "sharedStrings", "sharedStrings.xml"),
    ]
    files: dict[str, str | bytes] = {
        "xl/worksheets/sheet1.xml": (
            f'{DECLARATION}<worksheet xmlns="{X}" xmlns:r="{R}"><sheetData>{rows}</sheetData>'
            '<drawing r:id="rIdD"/></worksheet>'
        ),
        "xl/worksheets/_rels/sheet1.xml.rels": rels_xml(
            [("rIdD", "drawing", "../drawings/drawing1.xml")]
        ),
        "xl/sharedStrings.xml": (
            f'{DECLARATION}<sst xmlns="{X}" count="6" uniqueCount="5">'
            + "".join(f"<si><t>{text}</t></si>" for text in shared)
            + "</sst>"
        ),
        "xl/drawings/_rels/drawing1.xml.rels": rels_xml(
            [("rId1", "chart", "../charts/chart1.xml")]
        ),
        "xl/charts/chart1.xml": chart_xml(),
    }
    if drawing:
        files["xl/drawings/drawing1.xml"] = drawing_xml
    if chart_sheet:
        sheets += '<sheet name="Overview" sheetId="2" r:id="rId2"/>'
        workbook_rels.append(("rId2", "chartsheet", "chartsheets/sheet1.xml"))
        types["xl/chartsheets/sheet1.xml"] = (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.chartsheet+xml"
        )
        types["xl/charts/chart2.xml"] = CHART_TYPE
        files["xl/chartsheets/sheet1.xml"] = (
            f'{DECLARATION}<chartsheet xmlns="{X}" xmlns:r="{R}"><drawing r:id="rIdD"/>'
            "</chartsheet>"
        )
        files["xl/chartsheets/_rels/sheet1.xml.rels"] = rels_xml(
            [("rIdD", "drawing", "../drawings/drawing2.xml")]
        )
        files["xl/drawings/drawing2.xml"] = drawing_xml
        files["xl/drawings/_rels/drawing2.xml.rels"] = rels_xml(
            [("rId1", "chart", "../charts/chart2.xml")]
        )
        files["xl/charts/chart2.xml"] = chart_xml(
            "Overview",
            body='<c:plotArea><c:layout/><c:pieChart><c:ser><c:idx val="0"/><c:order val="0"/>'
            "<c:tx><c:strRef><c:f>'Sheet1'!$A$1</c:f><c:strCache><c:ptCount val=\"1\"/>"
            '<c:pt idx="0"><c:v>Region</c:v></c:pt></c:strCache></c:strRef></c:tx></c:ser>'
            "</c:pieChart></c:plotArea>",
        )
    head: dict[str, str | bytes] = {
        "[Content_Types].xml": content_types(types),
        "_rels/.rels": rels_xml([("rId1", "officeDocument", "xl/workbook.xml")]),
        "xl/workbook.xml": (
            f'{DECLARATION}<workbook xmlns="{X}" xmlns:r="{R}"><sheets>{sheets}</sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": rels_xml(workbook_rels),
    }
    return zip_parts({**head, **files})
