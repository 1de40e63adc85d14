"""Build bench/data/memory_recall.json: a labelled retrieval set from real text.

Memories: the prose of Python's own reference documentation (`pydoc_data.topics`, the text
`help("for")` shows), cut into paragraph-sized chunks of whole sentences; code-only blocks are
left out. Title: the topic and the chunk's number; tags: the topic.

Queries: 100 chunks are picked at random (seed 14); for each, one of its sentences is reworded
the way a user would ask from memory rather than quote: content words are swapped for
synonyms from a fixed table of programming vocabulary (function -> callable, raise -> throw...),
every other remaining content word is dropped, and the rest is shuffled. The label is the
chunk the sentence came from. The queries share some words with their target, but not its
phrasing, and BM25 has to rely on the words that survive.

    python bench/make_memory_data.py   # deterministic for a given Python version
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from pydoc_data.topics import topics

OUT = Path(__file__).with_name("data") / "memory_recall.json"
MAX_CHARS, MIN_CHARS = 600, 120
SYNONYMS = {
    "function": "callable",
    "functions": "callables",
    "return": "give back",
    "returns": "gives back",
    "raise": "throw",
    "raised": "thrown",
    "raises": "throws",
    "exception": "error condition",
    "exceptions": "error conditions",
    "object": "value",
    "objects": "values",
    "list": "array",
    "lists": "arrays",
    "string": "text",
    "strings": "texts",
    "attribute": "field",
    "attributes": "fields",
    "method": "member routine",
    "methods": "member routines",
    "class": "type",
    "classes": "types",
    "argument": "parameter",
    "arguments": "parameters",
    "variable": "name binding",
    "variables": "name bindings",
    "dictionary": "mapping",
    "statement": "instruction",
    "statements": "instructions",
    "expression": "formula",
    "expressions": "formulas",
    "evaluated": "computed",
    "evaluates": "computes",
    "execution": "running",
    "executed": "run",
    "integer": "whole number",
    "integers": "whole numbers",
    "sequence": "series",
    "sequences": "series",
    "module": "file of code",
    "modules": "files of code",
    "loop": "iteration",
    "iterator": "stepper",
    "called": "invoked",
    "call": "invocation",
    "defined": "declared",
    "definition": "declaration",
    "value": "result",
    "values": "results",
    "keyword": "reserved word",
    "operator": "symbol",
    "operators": "symbols",
    "instance": "occurrence",
    "instances": "occurrences",
    "scope": "visibility",
    "namespace": "name table",
    "assignment": "binding",
    "assigned": "bound",
    "operand": "input",
    "operands": "inputs",
    "block": "suite of lines",
    "code": "program text",
    "error": "failure",
    "true": "yes",
    "false": "no",
    "empty": "blank",
    "number": "count",
    "numbers": "counts",
    "type": "kind",
    "types": "kinds",
    "name": "identifier",
    "names": "identifiers",
    "first": "initial",
    "following": "next",
    "specified": "given",
    "used": "employed",
    "use": "employ",
}
STOP = set(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "is",
        "are",
        "be",
        "by",
        "for",
        "and",
        "or",
        "as",
        "that",
        "this",
        "it",
        "its",
        "with",
        "on",
        "at",
        "from",
        "which",
        "when",
        "if",
        "then",
        "than",
        "not",
        "no",
        "can",
        "may",
        "must",
        "will",
        "also",
        "into",
        "such",
        "these",
        "those",
        "there",
        "their",
        "they",
        "has",
        "have",
        "had",
        "was",
        "were",
        "been",
        "any",
        "all",
        "each",
        "other",
        "only",
    ]
)


def chunks() -> list[dict[str, object]]:
    out = []
    for topic in sorted(topics):
        pieces: list[str] = []
        for para in re.split(r"\n\s*\n", topics[topic]):
            text = " ".join(line.strip() for line in para.splitlines()).strip()
            code = sum(c in "()[]{}=:>" for c in text) > len(text) / 12
            if len(text) < MIN_CHARS or code or text.startswith(">>>"):
                continue
            current = ""
            for sentence in re.split(r"(?<=[.!?])\s+", text):
                if current and len(current) + len(sentence) > MAX_CHARS:
                    pieces.append(current)
                    current = ""
                current = f"{current} {sentence}".strip()
            if len(current) >= MIN_CHARS:
                pieces.append(current)
        for n, piece in enumerate(pieces, 1):
            out.append(
                {
                    "id": f"{topic}-{n}",
                    "title": f"{topic} ({n})",
                    "tags": [topic],
                    "content": piece[:MAX_CHARS],
                }
            )
    return out


def reworded(sentence: str, rng: random.Random) -> str:
    words = [w for w in re.findall(r"[A-Za-z_]+", sentence.lower()) if w not in STOP]
    swapped = [SYNONYMS.get(w, w) for w in words]
    kept = [w for i, w in enumerate(swapped) if w in SYNONYMS.values() or i % 2 == 0]
    rng.shuffle(kept)
    return " ".join(kept[:14])


def main() -> None:
    rng = random.Random(14)
    memories = chunks()
    queries = []
    for memory in rng.sample(memories, 400):
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", str(memory["content"])) if len(s) > 60]
        if not sentences:
            continue
        query = reworded(rng.choice(sentences), rng)
        if len(query.split()) >= 4:
            queries.append({"query": query, "target": memory["id"]})
        if len(queries) == 100:
            break
    OUT.parent.mkdir(exist_ok=True)
    data = {"source": "pydoc_data.topics", "memories": memories, "queries": queries}
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n")
    print(f"{len(memories)} memories, {len(queries)} queries -> {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
