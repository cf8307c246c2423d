"""Office Open XML formats (DOCX, XLSX, PPTX): read into blocks, written back by splicing the zip."""
