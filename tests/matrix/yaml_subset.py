"""A reader for the part of YAML that application-service registration
files use, for the Matrix test homeserver (Python 3.11 standard library
only: Debian's PyYAML is not assumed).

Synapse reads a registration with PyYAML's safe_load. This reader gives
the same values for what such files hold, and refuses the rest with
"NAME:LINE: what":

- block mappings and block sequences, nested by indentation (spaces; a
  sequence may stand at its key's indentation, as PyYAML allows);
- flow collections on one line: [], {}, [a, "b"], {exclusive: true,
  regex: "x"};
- plain scalars, resolved as PyYAML's YAML 1.1 resolver does (null, ~, an
  empty value: None; true/false/yes/no/on/off in their three spellings:
  booleans; integers, floats), "double-quoted" scalars with YAML's escapes,
  'single-quoted' ones ('' is a quote);
- comments, blank lines, a leading "---" and a trailing "...".

Refused: anchors, aliases, tags, block scalars (| and >), scalars or flow
collections over several lines, several documents, tabs in indentation.
A key given twice keeps its last value, as PyYAML does.
"""

import re


class YamlError(ValueError):
    """A file this reader refuses; str(e) is "NAME:LINE: what"."""


_NULL = ("", "~", "null", "Null", "NULL")
_TRUE = ("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
_FALSE = ("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)")
_OCT = re.compile(r"[-+]?0[0-7_]+")
_HEX = re.compile(r"[-+]?0x[0-9a-fA-F_]+")
_BIN = re.compile(r"[-+]?0b[01_]+")
_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?")
_INF = (".inf", ".Inf", ".INF")
_NAN = (".nan", ".NaN", ".NAN")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t",
            "n": "\n", "v": "\v", "f": "\f", "r": "\r", "e": "\x1b",
            " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
            "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_INDICATORS = "&*!|>%@`"
# a plain scalar inside a flow collection: up to a ',', a bracket, a ': '
# (or ':' before the end of the collection) or a comment
_FLOW_PLAIN = re.compile(r"[^,\[\]{}#]*?"
                         r"(?=\s*(?:[,\[\]{}]|: |:$|:[,\]}]| #|$))")


def resolve(text):
    """A plain scalar's value, as PyYAML's resolver types it."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.fullmatch(text):
        return int(text.replace("_", ""))
    if _HEX.fullmatch(text):
        return int(text.replace("_", ""), 16)
    if _BIN.fullmatch(text):
        return int(text.replace("_", "").replace("0b", "", 1), 2)
    if _OCT.fullmatch(text):
        return int(text.replace("_", ""), 8)
    if _FLOAT.fullmatch(text) and text not in (".", "+.", "-."):
        return float(text.replace("_", ""))
    if text.lstrip("+-") in _INF:
        return float("-inf") if text.startswith("-") else float("inf")
    if text in _NAN:
        return float("nan")
    return text


class _Line:
    def __init__(self, number, indent, text):
        self.number = number
        self.indent = indent
        self.text = text


class _Reader:
    def __init__(self, text, name):
        self.name = name
        self.lines = []
        for number, raw in enumerate(text.split("\n"), 1):
            raw = raw.rstrip("\r")
            body = raw.lstrip(" ")
            if body.startswith("\t"):
                self.fail(number, "a tab in the indentation")
            if body == "" or body.startswith("#"):
                continue
            self.lines.append(_Line(number, len(raw) - len(body),
                                    body.rstrip(" \t")))
        if self.lines and self.lines[0].text == "---" \
                and self.lines[0].indent == 0:
            del self.lines[0]
        if self.lines and self.lines[-1].text == "..." \
                and self.lines[-1].indent == 0:
            del self.lines[-1]
        for line in self.lines:
            if line.indent == 0 and line.text in ("---", "..."):
                self.fail(line.number, "several documents in one file")

    def fail(self, number, what):
        raise YamlError("%s:%d: %s" % (self.name, number, what))

    def document(self):
        if not self.lines:
            return None
        first = self.lines[0]
        value, i = self.block(0, first.indent)
        if i < len(self.lines):
            self.fail(self.lines[i].number, "bad indentation")
        return value

    # -- block collections -------------------------------------------------

    def block(self, i, indent):
        """The collection or scalar starting at line i, whose lines stand at
        `indent`; returns (value, index of the next line)."""
        line = self.lines[i]
        if _is_item(line.text):
            return self.sequence(i, line.indent)
        key = self.split_key(line)
        if key is None:
            value = self.inline(line, line.text)
            if i + 1 < len(self.lines) and \
                    self.lines[i + 1].indent > indent:
                self.fail(self.lines[i + 1].number,
                          "a scalar over several lines is not supported")
            return value, i + 1
        return self.mapping(i, line.indent)

    def mapping(self, i, indent):
        out = {}
        while i < len(self.lines):
            line = self.lines[i]
            if line.indent < indent:
                break
            if line.indent > indent:
                self.fail(line.number, "bad indentation")
            if _is_item(line.text):
                self.fail(line.number, "a sequence item where a mapping "
                          "key was expected")
            split = self.split_key(line)
            if split is None:
                self.fail(line.number, "expected 'key: value'")
            key, rest = split
            i += 1
            if rest == "":
                value = None
                if i < len(self.lines):
                    nxt = self.lines[i]
                    if nxt.indent > indent or (
                            nxt.indent == indent and _is_item(nxt.text)):
                        value, i = self.block(i, nxt.indent)
            else:
                value = self.inline(line, rest)
                if i < len(self.lines) and self.lines[i].indent > indent:
                    self.fail(self.lines[i].number,
                              "a value over several lines is not supported")
            try:
                out[key] = value
            except TypeError:
                self.fail(line.number, "a key must be a scalar")
        return out, i

    def sequence(self, i, indent):
        out = []
        while i < len(self.lines):
            line = self.lines[i]
            if line.indent < indent or (line.indent == indent
                                        and not _is_item(line.text)):
                break
            if line.indent > indent:
                self.fail(line.number, "bad indentation")
            rest = line.text[1:].lstrip(" ")
            if rest == "" or rest.startswith("#"):
                i += 1
                value = None
                if i < len(self.lines) and self.lines[i].indent > indent:
                    value, i = self.block(i, self.lines[i].indent)
                out.append(value)
                continue
            # "- key: value" starts a mapping whose keys stand where "key"
            # stands; "- - x" a nested sequence. Go on as if the item's
            # text were a line of its own at that column.
            column = indent + len(line.text) - len(rest)
            self.lines[i] = _Line(line.number, column, rest)
            value, i = self.block(i, column)
            out.append(value)
        return out, i

    # -- one line ------------------------------------------------------------

    def split_key(self, line):
        """(key, rest of the line) when the line is "key: ...", else None."""
        text = line.text
        if text[0] in "\"'":
            key, end = self.quoted(line, text, 0)
            rest = text[end:].lstrip(" ")
            if not rest.startswith(":"):
                return None
            rest = rest[1:]
            if rest and rest[0] != " ":
                self.fail(line.number, "expected a space after ':'")
            return key, _rest(rest)
        if text[0] in "[{" or text[0] in _INDICATORS:
            return None
        m = re.search(r":(?: |$)", text)
        if m is None:
            return None
        comment = re.search(r"(?:^| )#", text)
        if comment is not None and comment.start() < m.start():
            return None
        key = resolve(text[:m.start()].rstrip(" "))
        return key, _rest(text[m.end():])

    def inline(self, line, text):
        """A value that stands on one line: a flow collection or a
        scalar, then nothing but a comment."""
        c = text[0]
        if c in "[{":
            value, end = self.flow(line, text, 0)
        elif c in "\"'":
            value, end = self.quoted(line, text, 0)
        elif c in _INDICATORS:
            self.fail(line.number, "'%s' (anchors, aliases, tags, block "
                      "scalars) is not supported" % c)
        else:
            plain = _strip_comment(text)
            if re.search(r": |:$", plain):
                self.fail(line.number, "a mapping value is not allowed here")
            return resolve(plain)
        rest = text[end:].strip(" ")
        if rest and not rest.startswith("#"):
            self.fail(line.number, "unexpected text after a value: %r"
                      % rest)
        return value

    def quoted(self, line, text, start):
        """A quoted scalar at text[start]; (value, index after it)."""
        q = text[start]
        out = []
        i = start + 1
        while i < len(text):
            c = text[i]
            if q == "'" and c == "'":
                if text[i + 1:i + 2] == "'":
                    out.append("'")
                    i += 2
                    continue
                return "".join(out), i + 1
            if q == '"' and c == '"':
                return "".join(out), i + 1
            if q == '"' and c == "\\":
                e = text[i + 1:i + 2]
                if e in _ESCAPES:
                    out.append(_ESCAPES[e])
                    i += 2
                    continue
                if e in _HEX_ESCAPES:
                    n = _HEX_ESCAPES[e]
                    digits = text[i + 2:i + 2 + n]
                    if not re.fullmatch("[0-9a-fA-F]{%d}" % n, digits):
                        self.fail(line.number, "bad escape \\%s%s"
                                  % (e, digits))
                    out.append(chr(int(digits, 16)))
                    i += 2 + n
                    continue
                self.fail(line.number, "unknown escape \\%s" % e)
            out.append(c)
            i += 1
        self.fail(line.number, "a quoted scalar over several lines is not "
                  "supported (or its closing %s is missing)" % q)

    def flow(self, line, text, i):
        """A flow collection or scalar at text[i] (spaces skipped first);
        (value, index after it)."""
        while i < len(text) and text[i] == " ":
            i += 1
        if i >= len(text):
            self.fail(line.number, "a flow collection over several lines "
                      "is not supported (or its end is missing)")
        c = text[i]
        if c in "\"'":
            return self.quoted(line, text, i)
        if c in "[{":
            close = "]" if c == "[" else "}"
            out = [] if c == "[" else {}
            i += 1
            while True:
                i = _skip(text, i)
                if text[i:i + 1] == close:
                    return out, i + 1
                value, i = self.flow(line, text, i)
                if c == "[":
                    out.append(value)
                else:
                    i = _skip(text, i)
                    if text[i:i + 1] != ":":
                        self.fail(line.number,
                                  "expected ':' in a flow mapping")
                    key = value
                    value, i = self.flow(line, text, i + 1)
                    try:
                        out[key] = value
                    except TypeError:
                        self.fail(line.number, "a key must be a scalar")
                i = self.flow_next(line, text, i, close)
        if c in _INDICATORS or c in "]},#":
            self.fail(line.number, "unexpected %r in a flow collection" % c)
        m = _FLOW_PLAIN.match(text, i)
        if m is None:
            self.fail(line.number, "unexpected text in a flow collection: "
                      "%r" % text[i:])
        return resolve(m.group(0).strip(" ")), m.end()

    def flow_next(self, line, text, i, close):
        i = _skip(text, i)
        c = text[i:i + 1]
        if c == ",":
            return i + 1
        if c == close:
            return i
        if c == "":
            self.fail(line.number, "a flow collection over several lines "
                      "is not supported (or its end is missing)")
        self.fail(line.number, "expected ',' or '%s' in a flow collection"
                  % close)


def _skip(text, i):
    while i < len(text) and text[i] == " ":
        i += 1
    return i


def _is_item(text):
    return text == "-" or text.startswith("- ")


def _rest(text):
    """What follows a key's colon: "" when only a comment."""
    text = text.strip(" ")
    return "" if text.startswith("#") else text


def _strip_comment(text):
    m = re.search(r"(?:^| )#", text)
    return text[:m.start()].rstrip(" ") if m else text


def loads(text, name="<string>"):
    """The value of a YAML document (see the module's comment for the part
    of YAML read); YamlError when it is outside that part."""
    return _Reader(text, name).document()


def load_file(path, max_bytes=1 << 20):
    """loads() of a file (UTF-8, at most max_bytes); YamlError when it
    cannot be read or parsed."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise YamlError("%s: cannot read: %s" % (path, e.strerror))
    if len(data) > max_bytes:
        raise YamlError("%s: larger than %d bytes" % (path, max_bytes))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise YamlError("%s: not UTF-8" % path)
    if text.startswith("\ufeff"):
        text = text[1:]
    return loads(text, path)
