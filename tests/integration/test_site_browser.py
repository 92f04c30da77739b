"""The web site (docs/site.md) in a real browser: `heartsbot --write-site
CONFIG SITE_DIR` writes the site of a data directory whose archive was
made by the record writer (`hearts-sim play --records`) and whose
results name the players with hostile names; headless Chromium (Debian's
`chromium`) loads its pages from disk, and the test checks what it
rendered: the names are text (no element or attribute was injected, no
script of theirs ran: the title a name would set is not set), the site's
own script ran where it is allowed, no key or host is anywhere, and a
screenshot at a phone's width is a real rendering (its size, and many
colours, not a blank page). Skipped when chromium is not installed."""

import html
import json
import os
import re
import shutil
import struct
import subprocess
import unittest
import zlib

import harness
from harness import HarnessTestCase

HOSTILE = [
    "<script>document.title='pwned'</script>",
    "\"><img src=x onerror=\"document.title='pwned2'\">",
    "javascript:alert(1)",
    "\u202eevil\u202dname",
    "a&b<c>d'e\"f",
    "<b id=injected>bold</b>",
    "W" * 63,
]
HOST = "198.51.100.7"


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def png_info(path):
    """Width, height and the number of distinct colours of an 8-bit RGB
    or RGBA PNG (what Chromium writes), decoded here: zlib and the five
    row filters."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    i = 0
    for _ in range(height):
        ftype = raw[i]
        row = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = row[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                row[x] = (row[x] + a) & 255
            elif ftype == 2:
                row[x] = (row[x] + b) & 255
            elif ftype == 3:
                row[x] = (row[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[x] = (row[x] + pred) & 255
        for x in range(0, stride, bpp * 7):
            colours.add(bytes(row[x:x + 3]))
        prev = row
    return width, height, len(colours)


class SiteBrowserTest(HarnessTestCase):
    def setUp(self):
        super().setUp()
        self.chromium = chromium()
        if self.chromium is None:
            self.skipTest("chromium is not installed (apt-get install "
                          "chromium): the site's browser test needs it")
        if harness.bot_binary() is None:
            self.skipTest("build/heartsbot is not built")
        sim = os.environ.get("HEARTS_SIM") or os.path.join(
            os.path.dirname(harness.bot_binary()), "hearts-sim")
        if not os.path.exists(sim):
            self.skipTest("hearts-sim is not built")
        self.data = os.path.join(self.tmpdir, "data")
        room = os.path.join(self.data, "local", "%23hearts")
        os.makedirs(room)
        records = os.path.join(self.tmpdir, "records.jsonl")
        subprocess.run([sim, "play", "--preset", "standard", "--games", "4",
                        "--seed", "5", "--seats",
                        "random,random,random,random", "--records", records],
                       check=True, stdout=subprocess.DEVNULL, timeout=120)
        self.archive(room, records)
        self.conf = os.path.join(self.tmpdir, "bot.toml")
        with open(self.conf, "w") as f:
            f.write('[bot]\ndata_dir = "%s"\n' % self.data)
        self.site = os.path.join(self.tmpdir, "site")
        out = subprocess.run([harness.bot_binary(), "--write-site", self.conf,
                              self.site], capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("site of 1 channel written", out.stdout)

    def archive(self, room, records):
        """archive.jsonl from the writer's records, and results.jsonl
        seating the hostile names (keys with a host) on them."""
        with open(records, "rb") as f:
            lines = [l.rstrip(b"\n") for l in f if l.strip()]
        offset = 0
        with open(os.path.join(room, "archive.jsonl"), "wb") as a, \
                open(os.path.join(room, "results.jsonl"), "w") as r:
            for i, line in enumerate(lines):
                a.write(line + b"\n")
                seats = []
                for k in range(4):
                    p = (i + k) % len(HOSTILE)
                    seats.append({"name": HOSTILE[p],
                                  "key": "n:evil%d@%s" % (p, HOST),
                                  "computer": False, "left": False})
                r.write(json.dumps({
                    "format": "heartsbot-results/2",
                    "game": "%016x" % (0xc0de00 + i),
                    "time": 1764600000 + 600 * i, "preset": "standard",
                    "custom": False, "finished": True, "offset": offset,
                    "record": "%016x" % fnv1a64(line), "seats": seats}) + "\n")
                offset += len(line) + 1

    def url(self, rel):
        return "file://" + "/".join(
            p.replace("%", "%25") for p in os.path.join(self.site, rel)
            .split("/"))

    def dom(self, rel):
        out = subprocess.run([self.chromium, "--headless", "--no-sandbox",
                              "--disable-gpu", "--virtual-time-budget=2000",
                              "--dump-dom", self.url(rel)],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("</html>", out.stdout)
        return out.stdout

    def pages(self):
        base = os.path.join("local", "%23hearts")
        person = sorted(os.listdir(os.path.join(self.site, base, "p")))[0]
        game = sorted(os.listdir(os.path.join(self.site, base, "g")))[0]
        return [os.path.join(base, "index.html"),
                os.path.join(base, "p", person),
                os.path.join(base, "g", game)]

    def test_hostile_names_render_as_text(self):
        seen = set()
        for rel in self.pages():
            dom = self.dom(rel)
            # no name's script ran: the title is the one the page was
            # written with (a person's page names them in it, so the text
            # "document.title='pwned'" may be there, escaped)
            title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
            with open(os.path.join(self.site, rel), encoding="utf-8") as f:
                written = re.search(r"<title>(.*?)</title>", f.read(),
                                    re.S).group(1)
            self.assertEqual(html.unescape(title), html.unescape(written),
                             rel)
            self.assertNotIn(html.unescape(title).strip(),
                             ("pwned", "pwned2"), rel)
            self.assertNotIn("<img", dom, rel)
            self.assertNotIn("id=\"injected\"", dom, rel)
            self.assertNotIn("<b id", dom, rel)
            self.assertNotIn("onerror", re.sub(r">[^<]*<", "><", dom), rel)
            self.assertNotIn(HOST, dom, rel)
            self.assertNotIn("n:evil", dom, rel)
            self.assertNotIn("\u202e", dom, rel)
            for s in re.findall(r"<script[^>]*>", dom):
                self.assertRegex(s, r'^<script src="(\.\./)*replay\.js" '
                                    r'defer(="")?>$', rel)
            for name in HOSTILE:
                shown = name.replace("\u202e", "").replace("\u202d", "")
                if len(shown) > 32:
                    shown = shown[:32]
                if html.escape(shown, quote=False) in dom:
                    seen.add(name)
            if "/g/" in rel:
                # the site's own script ran (the stepper's buttons)
                self.assertIn("aria-label=\"next hand\"", dom)
        self.assertEqual(len(seen), len(HOSTILE), seen)

    def test_phone_screenshot_is_a_rendering(self):
        for rel in self.pages()[::2]:
            png = os.path.join(self.tmpdir, "shot.png")
            if os.path.exists(png):
                os.unlink(png)
            out = subprocess.run([self.chromium, "--headless", "--no-sandbox",
                                  "--disable-gpu", "--hide-scrollbars",
                                  "--screenshot=" + png,
                                  "--window-size=412,900", self.url(rel)],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr[-2000:])
            w, h, colours = png_info(png)
            self.assertEqual((w, h), (412, 900), rel)
            self.assertGreater(colours, 8, rel)


if __name__ == "__main__":
    harness.main()
