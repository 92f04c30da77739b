"""The web pages written by the running bot (docs/site.md, [site] in the
config) through a real IRC server (ngIRCd): at start the bot writes the
site (an empty channel list), and after a finished game the game's page,
its people's pages and the channel's page are there without a restart;
!top, !stats and !last end with their page's address under [site] url,
and each address names a file the bot wrote. Nothing of the identity
keys (nick@host) is in any page. A second game's page appears too, and
the person page names survive a restart (DATA/site-secret is kept).
Run: /usr/bin/python3 tests/integration/test_site_bot.py -v
"""

import os
import re
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

URL = "https://hearts.example.org/club/"


class SiteBotTest(HarnessTestCase):

    def config(self):
        cfg = harness.records_bot_config(self.server.port, self.data)
        cfg["site"] = {"dir": self.site, "url": URL.rstrip("/"),
                       "hide_hands": []}
        return cfg

    def page(self, line):
        """The file an answer's address names (it must be under URL).
        The site's writer thread writes a game's pages after the game
        ends, the channel's page last, while the chat goes on: an answer
        can name a page some milliseconds before it is there, so wait."""
        m = re.search(re.escape(URL) + r"(\S+)$", line)
        self.assertTrue(m, "no address under %s at the end of: %s"
                        % (URL, line))
        path = os.path.join(self.site, urllib.parse.unquote(m.group(1)))
        self.wait_file(path)
        return path

    def wait_file(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while not os.path.isfile(path):
            self.assertLess(time.monotonic(), deadline, path)
            time.sleep(0.05)

    def test_pages_follow_the_games_and_chat_names_them(self):
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.site = os.path.join(self.tmpdir, "www", "hearts")
        os.makedirs(os.path.dirname(self.site))
        bot = self.bot(self.config())
        bot.wait_log(r"site: 0 channels written whole in ", timeout=30)
        self.assertTrue(os.path.islink(self.site))
        self.assertTrue(os.path.isfile(os.path.join(self.site, "index.html")))
        secret = os.path.join(self.data, "site-secret")
        with open(secret) as f:
            key = f.read()
        self.assertRegex(key, r"^[0-9a-f]{32}\n$")
        self.assertEqual(os.stat(secret).st_mode & 0o777, 0o600)

        alice = self.client(self.server, "Alice")
        bob = self.client(self.server, "bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        harness.short_game(alice, bob)
        bot.wait_log(r"game record written", timeout=10)

        last = harness.ask(alice, "!last", r"Replay: !replay ")
        game_page = self.page(last)
        self.wait_file(game_page)
        top = harness.ask(alice, "!top custom", r"^Top 2 \(custom\)")
        channel_page = self.page(top)
        stats = harness.ask(bob, "!stats", r"^bob")
        person_page = self.page(stats)
        self.assertIn("/p/", person_page)
        with open(person_page, encoding="utf-8") as f:
            self.assertIn("bob", f.read())
        with open(channel_page, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(os.path.basename(game_page), text)
        # no identity key, no host, in any page
        for root, _, files in os.walk(os.path.realpath(self.site)):
            for name in files:
                with open(os.path.join(root, name), encoding="utf-8",
                          errors="replace") as f:
                    body = f.read()
                self.assertNotIn("127.0.0.1", body, name)
                self.assertNotIn("n:bob", body, name)

        # a restart keeps the secret: the same person page
        bot.stop()
        bot = self.bot(self.config())
        bot.wait_log(r"site: 1 channel brought up to date in ", timeout=30)
        with open(secret) as f:
            self.assertEqual(f.read(), key)
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        stats2 = harness.ask(bob, "!stats", r"^bob")
        self.assertEqual(self.page(stats2), person_page)
        # a second game, its page written while the bot runs
        harness.short_game(alice, bob)
        mark = alice.mark()
        alice.say("#hearts", "!last")
        line = alice.wait_privmsg("heartsbot", r"Replay: !replay ",
                                  to="#hearts", since=mark).text
        second = urllib.parse.unquote(re.search(re.escape(URL) + r"(\S+)$",
                                                line).group(1))
        self.assertNotEqual(os.path.join(self.site, second), game_page)
        self.wait_file(os.path.join(self.site, second))


if __name__ == "__main__":
    harness.main()
