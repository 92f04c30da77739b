"""!notify through the real bot and a real IRC server (ngIRCd): people
who asked to be called when a table opens are named in the channel line
(an IRC mention is the nick in the line), once; who did not ask, who
left the channel and the opener are not. The choice survives a restart
of the bot, and the people already in the channel when the bot comes
back (seen in its NAMES reply) are called.
Run: /usr/bin/python3 tests/integration/test_notify.py -v
"""

import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
CALL = r"you asked to be called"


class NotifyTest(HarnessTestCase):

    def setUp(self):
        super().setUp()
        self.server = self.ngircd()
        self.data = os.path.join(self.tmpdir, "data")
        self.cfg = harness.bot_config(
            self.server.port, self.data,
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False), irc=FAST_IRC)
        self.bot_ = self.bot(self.cfg)

    def people(self, nicks):
        clients = [self.client(self.server, n, user=n) for n in nicks]
        for c in clients:
            c.join("#hearts")
            c.wait_member("heartsbot", "#hearts", timeout=20)
        return clients

    def notify(self, client, word, answer):
        mark = client.mark()
        client.say("#hearts", "!notify " + word)
        return client.wait_privmsg("heartsbot", answer, to=client.nick(),
                                   since=mark, timeout=15)

    def restart(self):
        self.bot_.signal(signal.SIGTERM)
        self.assertIsNotNone(self.bot_.wait(15))
        self.bot_ = self.bot(self.cfg)

    def test_called_once_present_only(self):
        alice, bob, carol, dave = self.people(
            ["alice", "bob", "carol", "dave"])
        self.notify(bob, "on", r"^From now on I call you when a table opens")
        self.notify(dave, "on", r"^From now on I call you")
        self.notify(bob, "", r"^I call you when a table opens here")
        self.notify(carol, "", r"^I do not call you")
        dave.part("#hearts")
        time.sleep(0.5)
        mark = carol.mark()
        alice.say("#hearts", "!hearts")
        call = carol.wait_privmsg("heartsbot", CALL, to="#hearts",
                                  since=mark, timeout=15).text
        self.assertRegex(call, r"^alice opens a Hearts table \(standard "
                               r"for 4\): bob — you asked to be called\. "
                               r"!join to sit down\.$")
        for nick in ("carol", "dave", "alice,"):
            self.assertNotIn(nick, call)
        # the table shown again, a seat taken: no second call
        alice.say("#hearts", "!hearts")
        bob.say("#hearts", "!join")
        bob.wait_privmsg("heartsbot", r"^bob sits down", to="#hearts",
                         since=mark, timeout=15)
        time.sleep(1.0)
        calls = [m for m in carol.privmsgs_from("heartsbot", to="#hearts",
                                                since=mark)
                 if re.search(CALL, m.text)]
        self.assertEqual(len(calls), 1)

    def test_remembered_across_a_restart(self):
        alice, bob, carol = self.people(["alice", "bob", "carol"])
        self.notify(bob, "on", r"^From now on I call you")
        self.notify(carol, "on", r"^From now on I call you")
        self.notify(carol, "off", r"^I no longer call you")
        mark = carol.mark()
        self.restart()
        # bob and carol were in the channel before the bot came back: it
        # knows them from its NAMES reply
        carol.wait_join("heartsbot", "#hearts", since=mark, timeout=30)
        time.sleep(1.0)
        mark = carol.mark()
        alice.say("#hearts", "!hearts")
        call = carol.wait_privmsg("heartsbot", CALL, to="#hearts",
                                  since=mark, timeout=15).text
        self.assertIn(": bob — ", call)
        self.assertNotIn("carol", call)
        path = os.path.join(os.path.dirname(harness.archive_path(self.data)),
                            "notify.jsonl")
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertRegex(lines[0], r'^\{"format":"heartsbot-notify/1",'
                                   r'"key":"n:bob@[^"]+","nick":"bob"\}$')
        self.assertRegex(lines[-1], r'^\{"format":"heartsbot-notify/1",'
                                    r'"key":"n:carol@[^"]+"\}$')


if __name__ == "__main__":
    harness.main()
