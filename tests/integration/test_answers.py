"""Where the real bot's answers go on a real IRC server (ngIRCd): the
answer to one person's channel command (!help, !rules, the open table,
"only the opener", a repeated !status, a near miss of a command) is a
NOTICE to that person by default, and a PRIVMSG where the [[irc]] says
answers = "privmsg"; hands and the answers to private commands are
PRIVMSGs either way; the channel hears none of it, and another bot's
command gets nothing.
Run: /usr/bin/python3 tests/integration/test_answers.py -v
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, irc_eq, is_channel  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}


class AnswersTest(HarnessTestCase):

    def start(self, irc):
        self.server = self.ngircd()
        self.botproc = self.bot(harness.bot_config(
            self.server.port, os.path.join(self.tmpdir, "data"),
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False,
                     channel_repeat=30),
            irc=dict(FAST_IRC, **irc),
            game={"turn_timeout": 3600}))
        self.alice = self.client(self.server, "alice")
        self.bob = self.client(self.server, "bob")
        for c in (self.alice, self.bob):
            c.join("#hearts")
        self.alice.wait_member("heartsbot", "#hearts", timeout=15)

    def answer(self, who, send, match):
        """Sends (a callable) and returns the bot's line to `who` (not in
        the channel) that matches."""
        mark = who.mark()
        send()
        m = who.wait_for(lambda m: m.command in ("PRIVMSG", "NOTICE")
                         and irc_eq(m.nick, "heartsbot")
                         and not is_channel(m.target)
                         and match in m.text, since=mark)
        self.assertTrue(irc_eq(m.target, who.nick()), m.raw)
        return m

    def check(self, command):
        alice, bob = self.alice, self.bob
        start = bob.mark()

        def chan(who, text):
            return lambda: who.say("#hearts", text)

        alice.say("#hearts", "!hearts")
        alice.wait_privmsg("heartsbot", "opens a Hearts table", to="#hearts")
        answers = [
            (alice, chan(alice, "!help"), "Hearts: !hearts opens a table"),
            (bob, chan(bob, "!rules"), "standard for 4 players"),
            (bob, chan(bob, "!hearts"), "A table is open here"),
            (bob, chan(bob, "!h"), "Hearts: !hearts opens a table"),
            (bob, chan(bob, "!hlep"), "did you mean '!help'?"),
        ]
        for who, send, match in answers:
            self.assertEqual(self.answer(who, send, match).command, command)
        bob.say("#hearts", "!join")
        bob.wait_privmsg("heartsbot", "bob sits down", to="#hearts")
        m = self.answer(bob, chan(bob, "!start"),
                        "Only alice, who opened the table")
        self.assertEqual(m.command, command)
        # the channel heard !status once; bob's repeat comes to him
        alice.say("#hearts", "!status")
        alice.wait_privmsg("heartsbot", "^Table at #hearts", to="#hearts")
        m = self.answer(bob, chan(bob, "!status"), "Table at #hearts")
        self.assertEqual(m.command, command)
        # a private command is answered by a private message
        m = self.answer(bob, lambda: bob.say("heartsbot", "rules"),
                        "standard for 4 players")
        self.assertEqual(m.command, "PRIVMSG")
        # another bot's command: nothing; the channel heard none of the
        # answers above
        mark = bob.mark()
        bob.say("#hearts", "!weather")
        self.answer(bob, lambda: bob.say("heartsbot", "help"), "Hearts:")
        self.assertEqual(
            [x.raw for x in bob.privmsgs_from("heartsbot", since=mark)
             if "weather" in x.text], [])
        said = [x.text for x in bob.privmsgs_from("heartsbot", to="#hearts",
                                                   since=start)]
        for text in said:
            for _, _, match in answers:
                self.assertNotIn(match, text)
        self.assertEqual(sum(t.startswith("Table at") for t in said), 1)
        # hands come by private message, whatever answers says
        alice.say("#hearts", "!start")
        hand = alice.wait_privmsg("heartsbot", "Your cards:", to="alice")
        self.assertEqual(hand.command, "PRIVMSG")
        self.assertEqual(self.botproc.stop(), 0)

    def test_answers_by_notice(self):
        self.start({})
        self.check("NOTICE")

    def test_answers_by_privmsg_where_configured(self):
        self.start({"answers": "privmsg"})
        self.check("PRIVMSG")


if __name__ == "__main__":
    harness.main()
