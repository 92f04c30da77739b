"""The admins' commands through the real bot and a real IRC server
(ngIRCd): an admin hands a player's seat to a computer from a private
message (the game pauses: nobody is left at the table), ends the paused
game privately by naming its channel, and reloads the config from the
channel, hearing whether it worked; someone else is refused; the bot
logs each admin action with who did it.
Run: /usr/bin/python3 tests/integration/test_admin.py -v
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}


class AdminTest(HarnessTestCase):

    def test_seat_end_and_reload_from_chat(self):
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        cfg = harness.bot_config(
            server.port, data, irc=FAST_IRC,
            bot=dict(harness.NO_ANSWER_LIMITS, colors=False,
                     admins=["boss!*@*"]),
            game={"turn_timeout": 3600, "unattended_pause": 0})
        bot = self.bot(cfg)
        alice = self.client(server, "alice", user="alice")
        boss = self.client(server, "boss", user="boss")
        for c in (alice, boss):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        alice.say("#hearts", "!hearts standard")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        alice.say("#hearts", "!start")
        alice.wait_privmsg("heartsbot", r"^The game begins", to="#hearts")

        # alice is no admin
        mark = alice.mark()
        alice.say("heartsbot", "end #hearts")
        alice.wait_privmsg("heartsbot", r"^Only an admin can do that\.$",
                           since=mark)

        mark = boss.mark()
        boss.say("heartsbot", "seat alice computer")
        boss.wait_privmsg("heartsbot", r"^boss hands alice's seat to a "
                          r"computer player", to="#hearts", since=mark)
        boss.wait_privmsg("heartsbot", r"^Nobody is at the table, so the "
                          r"game pauses", to="#hearts", since=mark)
        alice.wait_privmsg("heartsbot", r"^An admin handed your seat at "
                           r"#hearts to a computer player")
        bot.wait_log(r"info table #hearts: admin boss \(~?boss@\S+\) hands "
                     r"alice's seat to a computer player")

        mark = boss.mark()
        boss.say("heartsbot", "end #hearts")
        boss.wait_privmsg("heartsbot", r"^The game at #hearts ends "
                          r"unscored\.$", since=mark)
        boss.wait_privmsg("heartsbot", r"^An admin, boss, ends the game: it "
                          r"ends unscored\.", to="#hearts", since=mark)
        bot.wait_log(r"info table #hearts: admin boss \(~?boss@\S+\) ends "
                     r"the game \(paused\)")

        # a reload from the channel, then one of a broken file
        mark = boss.mark()
        boss.say("#hearts", "!reload")
        boss.wait_privmsg("heartsbot", r"^The configuration is reloaded",
                          since=mark)
        bot.wait_log(r"info configuration reloaded from ")
        path = os.path.join(self.tmpdir, "heartsbot.toml")
        with open(path, "a") as f:
            f.write("\n[game]\nturn_timeout = -1\n")
        mark = boss.mark()
        boss.say("#hearts", "!reload")
        boss.wait_privmsg("heartsbot", r"^The configuration was not reloaded "
                          r"\(the running one stays\): .*heartsbot\.toml:\d+:"
                          r"\d+: ", since=mark)
        self.assertTrue(bot.alive())


if __name__ == "__main__":
    harness.main()
