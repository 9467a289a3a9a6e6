#!/usr/bin/env python3
"""Replace one generated section of a Markdown document.

    bench/replace_doc_section.py DOC NAME SECTION_FILE

writes the text of SECTION_FILE between DOC's `<!-- NAME:begin -->` and
`<!-- NAME:end -->` markers (appended with new markers when DOC has none),
leaving the rest of DOC byte for byte, through a temporary file renamed over
DOC. The benchmark scripts under bench/ use it for their sections of
docs/benchmarks.md.
"""
import os
import sys

doc, name, section = sys.argv[1:4]
text = open(doc, encoding="utf-8").read()
body = open(section, encoding="utf-8").read().rstrip("\n")
begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
block = f"{begin}\n{body}\n{end}"
if begin in text and end in text:
    a = text.index(begin)
    b = text.index(end) + len(end)
    text = text[:a] + block + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
if not text.endswith("\n"):
    text += "\n"
with open(doc + ".tmp", "w", encoding="utf-8") as f:
    f.write(text)
os.replace(doc + ".tmp", doc)
