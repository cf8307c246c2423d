"""Small office documents made with the office libraries, for tests that edit DOCX, XLSX and PPTX.

``xlsx-chart`` and ``pptx-chart`` hold a chart whose title is their first text
(openpyxl's chart names its series by cell, with no cached text; python-pptx's
caches them and embeds a workbook); in ``pptx-series`` the first text is a
series name, which its embedded workbook holds too.
"""

from __future__ import annotations

import io


def office_bytes(kind: str) -> bytes:
    """A one-page DOCX, a two-column XLSX or a one-slide PPTX (or one with a chart), as bytes."""
    buffer = io.BytesIO()
    if kind == "xlsx-chart":
        import openpyxl
        from openpyxl.chart import BarChart, Reference

        book = openpyxl.Workbook()
        sheet = book.active
        for row in [(2023, 120, 80), (2024, 150, 95), (2025, 170, 90)]:
            sheet.append(row)
        chart = BarChart()
        chart.title = "Revenue grew every year"
        chart.y_axis.title = "Thousand euros"
        chart.add_data(Reference(sheet, min_col=2, min_row=1, max_col=3, max_row=3))
        chart.set_categories(Reference(sheet, min_col=1, min_row=1, max_row=3))
        sheet.add_chart(chart, "E2")
        book.save(buffer)
    elif kind in ("pptx-chart", "pptx-series"):
        import pptx
        from pptx.chart.data import CategoryChartData
        from pptx.enum.chart import XL_CHART_TYPE
        from pptx.util import Inches

        deck = pptx.Presentation()
        slide = deck.slides.add_slide(deck.slide_layouts[6])
        data = CategoryChartData()
        data.categories = ["Spring", "Summer"]
        data.add_series("Mobile sales", (3.0, 4.5))
        data.add_series("Store sales", (2.0, 2.5))
        chart = slide.shapes.add_chart(
            XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1), Inches(6), Inches(4), data
        ).chart
        if kind == "pptx-chart":
            chart.has_title = True
            chart.chart_title.text_frame.text = "Sales by season"
        deck.save(buffer)
    elif kind == "docx":
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
