"""A slow disk does not slow the table: the real bot on a real IRC server
(ngIRCd), with every fsync() of the bot's made to wait FSYNC_MS first
(tests/support/slow_fsync.c, preloaded), as one can on a busy or
networked disk.

bob plays one hand with three `easy` computer players. A table's journal
gets a line at each card, written before the card is announced; were the
lines synced on the bot's loop, each of bob's cards would wait for at
least four fsyncs (his card and the three computers') before his next
turn: at least 4 x FSYNC_MS. Asserted: from each of bob's cards to his
next turn, the median is under 2 x FSYNC_MS (the loop hands the fsyncs
to the syncer's thread, bot/syncer.h), the slow fsyncs were in effect
(the shim's line in the bot's log), and the game's record, written at
its end, replays through the engine. And a journal whose fsyncs fail
(EIO) is given up, the table told once, the game played to its end.

Measured on the 2-core test machine with FSYNC_MS = 40: median 0.6-0.9
ms with the syncer; 163 ms with the fsyncs on the loop (the build before
it).

Run: /usr/bin/python3 tests/integration/test_slow_disk.py -v
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, Player, Prompt, play_game  # noqa: E402

FSYNC_MS = 40
RULES = "standard hands=1 tie=share pass_cycle=hold"


def shim_path():
    """$HEARTS_SLOW_FSYNC (CTest sets it), else the build tree's."""
    given = os.environ.get("HEARTS_SLOW_FSYNC")
    path = given or os.path.join(harness.REPO, "build", "tests",
                                 "libhearts_slow_fsync.so")
    return path if os.path.isfile(path) else None


class SlowDiskTest(HarnessTestCase):

    def slow_bot(self, fail=None):
        """The bot with slow fsyncs (and failing ones for paths holding
        `fail`), bob at #hearts: (bot, data dir, bob)."""
        shim = shim_path()
        if shim is None:
            self.skipTest("no slow fsync library: build the tests "
                          "(target hearts_slow_fsync)")
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        # the sanitizers' runtime wants to be loaded first; the shim is
        # not sanitized and only wraps fsync
        asan = os.environ.get("ASAN_OPTIONS", "")
        env = {"LD_PRELOAD": shim, "HEARTS_TEST_FSYNC_MS": str(FSYNC_MS),
               "ASAN_OPTIONS": (asan + ":" if asan else "")
               + "verify_asan_link_order=0"}
        if fail:
            env["HEARTS_TEST_FSYNC_FAIL"] = fail
        bot = self.bot(harness.records_bot_config(server.port, data),
                       env=env)
        bot.wait_log(r"slow_fsync: every fsync waits %d ms" % FSYNC_MS,
                     timeout=10)
        bob = self.client(server, "bob")
        bob.join("#hearts")
        return bot, data, bob

    def play_one_hand(self, bob):
        """bob and three easy computers play a one-hand game: (the mark
        before !start, bob's Player)."""
        start, begins = harness.start_table([bob], RULES)
        self.assertEqual(begins.text.count("(easy)"), 3, begins.text)
        pb = Player(bob)

        def game_over():
            return bob.find(r"Game over!", frm="heartsbot", to="#hearts",
                            since=start)

        play_game([pb], game_over, timeout=120)
        return start, pb

    def assert_archived(self, bot, data):
        bot.wait_log(r"game record written", timeout=10)
        self.assertEqual(len(harness.read_records(data)), 1)
        rc, out = harness.replay(harness.archive_path(data))
        self.assertEqual(rc, 0, out)

    def test_slow_fsyncs_do_not_delay_the_next_turn(self):
        bot, data, bob = self.slow_bot()
        start, pb = self.play_one_hand(bob)

        turns = [ev.msg.time for ev in pb.events if isinstance(ev, Prompt)]
        plays = [t for t, _, what, _ in pb.actions if what == "play"]
        waits = []
        for t in plays:
            later = [p for p in turns if p > t]
            if later:
                waits.append(later[0] - t)
        waits.sort()
        figures = ("%d waits from bob's card to his next turn: median "
                   "%.1f ms, longest %.1f ms (fsyncs made %d ms slower)"
                   % (len(waits), 1000 * statistics.median(waits),
                      1000 * waits[-1], FSYNC_MS))
        print("\n" + figures, file=sys.stderr)
        self.assertGreaterEqual(len(waits), 10, figures)
        self.assertLess(statistics.median(waits), 2 * FSYNC_MS / 1000,
                        figures)

        self.assert_archived(bot, data)
        self.assertNotIn("not synced", bot.log())
        self.assertEqual(bot.stop(), 0)

    def test_a_journal_that_cannot_be_synced_is_given_up(self):
        """Every fsync of a journal fails (EIO), after its line was
        written and announced: the bot logs it, gives the journal up (no
        journal file is left), tells the channel once that the game will
        not survive a restart, and the game goes on to its end and is
        archived (the archive's fsyncs work)."""
        bot, data, bob = self.slow_bot(fail="journal-")
        start, pb = self.play_one_hand(bob)
        lost = [m.text for m in bob.privmsgs_from("heartsbot", to="#hearts",
                                                  since=start)
                if "can't be kept" in m.text]
        self.assertEqual(
            lost, ["This game can't be kept: the data directory cannot be "
                   "written. It goes on, but will not survive a restart."])
        self.assert_archived(bot, data)
        log = bot.log()
        self.assertIn("not synced to disk: ", log)
        self.assertIn("Input/output error", log)
        self.assertIn("journal given up", log)
        self.assertEqual(harness.journals_in(data), [])
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
