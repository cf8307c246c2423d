"""Small office documents made with the office libraries, for tests that edit DOCX, XLSX and PPTX."""

from __future__ import annotations

import io


def office_bytes(kind: str) -> bytes:
    """A one-page DOCX, a two-column XLSX or a one-slide PPTX, as bytes."""
    buffer = io.BytesIO()
    if kind == "docx":
        import docx

        document = docx.Document()
        document.add_heading("Quarterly report", level=1)
        paragraph = document.add_paragraph("Revenue grew in every region, ")
        paragraph.add_run("especially in the north").bold = True
        paragraph.add_run(".")
        document.add_paragraph("The team shipped three releases.")
        document.save(buffer)
    elif kind == "xlsx":
        import openpyxl

        book = openpyxl.Workbook()
        sheet = book.active
        sheet["A1"] = "Region"
        sheet["B1"] = "Revenue"
        sheet["A2"] = "North"
        sheet["B2"] = 1200
        sheet["A3"] = "South region"
        sheet["B3"] = "=B2*2"
        book.save(buffer)
    else:
        import pptx

        deck = pptx.Presentation()
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = "Roadmap for spring"
        slide.placeholders[1].text = "Launch the mobile app"
        deck.save(buffer)
    return buffer.getvalue()
