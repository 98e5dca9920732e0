package dev.cellrate.table.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.KeyedRateLimiterBuilder;
import dev.cellrate.table.KeyHash;
import dev.cellrate.table.TableLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The mapped table's promises, each with real processes ({@link TrafficChild} in child JVMs) and checked exactly
 * against GCRA over every admission any process recorded ({@link AdmissionLog}): two processes share one table,
 * a process killed with {@code kill -9} and restarted gives no key more than the bound, and holders killed inside
 * the shard lock lose and duplicate no slot.
 */
final class MappedTableProofTest
{
    @TempDir
    Path directory;

    /** Two JVMs, 2 threads each, on one file: every key within the exact GCRA bound over both. */
    @Test
    void twoProcessesShareOneTableWithinTheBound() throws Exception
    {
        final Path file = directory.resolve("shared.table");
        TrafficChild.slow(file); // created here, so both children open the same file
        // Each JVM runs 2.5 s, and on until it admitted at least 200 of the 256 keys (a loaded host may give it
        // little of those 2.5 s), so at least 144 keys are admitted in both, whatever the scheduling.
        try (ChildJvm a = ChildJvm.start(null, TrafficChild.class, "traffic", file.toString(), logs("a"), "256", "2", "2500", "200");
            ChildJvm b = ChildJvm.start(null, TrafficChild.class, "traffic", file.toString(), logs("b"), "256", "2", "2500", "200"))
        {
            a.awaitLine("DONE");
            b.awaitLine("DONE");
            assertEquals(0, a.exitCode());
            assertEquals(0, b.exitCode());
        }
        final Map<Long, List<Long>> byKey = new HashMap<>();
        final Set<Long> keysOfA = keysOf(read(byKey, "a-0", "a-1"));
        final Set<Long> keysOfB = keysOf(read(byKey, "b-0", "b-1"));
        assertWithinBound(byKey, TrafficChild.SLOW);
        keysOfA.retainAll(keysOfB);
        assertTrue(keysOfA.size() > 32, "many keys were admitted in both processes: " + keysOfA.size());
        final Limit slow = TrafficChild.SLOW;
        final TableFile view = TableFile.open(file, new TableSpec(TableFileLayout.KIND_KEYED_RATE_LIMITER,
            new long[] {slow.emissionIntervalNs(), slow.toleranceNs()}, 0, KeyedRateLimiterBuilder.DEFAULT_IDLE_GRACE_NS, 0, 4, 1024, 512), null);
        final Map<Long, Integer> slotsByWord = slotsByWord(view, 4);
        for (final long key : byKey.keySet())
        {
            assertEquals(1, slotsByWord.getOrDefault(keyWord(view, key), 0), "key " + key + " is in the file, once");
        }
    }

    /**
     * A JVM spends keys' bursts, is killed with {@code kill -9} mid-traffic, and a new JVM continues on the file:
     * no key gets more than GCRA allows over both lives.
     */
    @Test
    void aProcessKilledAndRestartedGivesNoKeyMoreThanTheBound() throws Exception
    {
        final Path file = directory.resolve("restart.table");
        try (ChildJvm first = ChildJvm.start(null, TrafficChild.class, "traffic", file.toString(), logs("first"), "256", "2", "20000"))
        {
            first.awaitLine("READY");
            Thread.sleep(1000);
            // Mid-traffic, once it spent at least half of every burst on average (at most 60 s on a loaded host).
            final long deadlineNs = System.nanoTime() + 60_000_000_000L;
            while (read(new HashMap<>(), "first-0", "first-1").size() < 256 * 5 && System.nanoTime() - deadlineNs < 0)
            {
                Thread.sleep(50);
            }
            first.kill();
        }
        try (ChildJvm second = ChildJvm.start(null, TrafficChild.class, "traffic", file.toString(), logs("second"), "256", "2", "1500", "1"))
        {
            second.awaitLine("DONE");
            assertEquals(0, second.exitCode());
        }
        final Map<Long, List<Long>> byKey = new HashMap<>();
        final int firstLife = read(byKey, "first-0", "first-1").size();
        final int secondLife = read(byKey, "second-0", "second-1").size();
        assertTrue(firstLife >= 256 * 5, "the first life spent at least half of every burst on average: " + firstLife);
        assertTrue(secondLife > 0, "the second life admitted what refilled: " + secondLife);
        assertWithinBound(byKey, TrafficChild.SLOW);
    }

    /**
     * Child JVMs inserting new keys from 2 threads are killed with {@code destroyForcibly} at random points,
     * round after round (at least 4, and until 2 of them died holding a shard lock, at most 12), each kill sent
     * when this JVM sees a shard lock word name the child; the next round's inserts take over the locks the dead left held. In the end every key a
     * child recorded as admitted is in exactly one slot, no key word is in two slots, and each shard's live-key
     * count matches its slots.
     */
    @Test
    void holdersKilledInsideTheLockLoseAndDuplicateNoSlot() throws Exception
    {
        final Path file = directory.resolve("storm.table");
        TrafficChild.storm(file);
        final SplittableRandom random = new SplittableRandom(26);
        // At least 4 rounds, and on until 2 children died holding a lock (at most 12 rounds).
        int rounds = 0;
        int killedHolding = 0;
        for (int round = 0; round < 12 && (round < 4 || killedHolding < 2); round++, rounds++)
        {
            try (ChildJvm child = ChildJvm.start(null, TrafficChild.class, "inserts", file.toString(), logs("r" + round),
                Integer.toString(round * 50_000), "50000", "2"))
            {
                child.awaitLine("READY");
                Thread.sleep(20 + random.nextInt(100));
                final long pid = child.process.pid();
                awaitHeldBy(file, pid, 200); // aim the kill at a moment the child holds a lock
                child.kill();
                killedHolding += heldBy(file, pid);
            }
        }
        final KeyedRateLimiter limiter = TrafficChild.storm(file);
        // Takes every shard's lock: takes over any the dead left held.
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> limiter.sweep(System.nanoTime(), 1 << 20));
        final TableFile view = TableFile.open(file, specOf(file), null);
        final Map<Long, Integer> slotsByWord = slotsByWord(view, 16);
        long live = 0;
        for (final int slots : slotsByWord.values())
        {
            live += slots;
        }
        long counted = 0;
        for (int shard = 0; shard < 16; shard++)
        {
            counted += view.table.getLong(TableLayout.shardHeaderOffset(shard) + TableLayout.LIVE_KEYS_OFFSET);
            assertEquals(0, view.table.getLong(TableLayout.shardHeaderOffset(shard)), "every lock free");
        }
        assertEquals(live, counted, "the live-key counts match the slots");
        for (final Map.Entry<Long, Integer> entry : slotsByWord.entrySet())
        {
            assertEquals(1, entry.getValue(), "key word " + entry.getKey() + " in one slot");
        }
        int recorded = 0;
        for (int round = 0; round < rounds; round++)
        {
            for (final long[] entry : AdmissionLog.read(directory.resolve("r" + round + "-0.log")))
            {
                assertEquals(1, slotsByWord.getOrDefault(keyWord(view, entry[1]), 0), "key " + entry[1] + " kept");
                recorded++;
            }
            for (final long[] entry : AdmissionLog.read(directory.resolve("r" + round + "-1.log")))
            {
                assertEquals(1, slotsByWord.getOrDefault(keyWord(view, entry[1]), 0), "key " + entry[1] + " kept");
                recorded++;
            }
        }
        System.out.println("[holdersKilledInsideTheLock] " + rounds + " kills, " + killedHolding +
            " while holding a shard lock; " + recorded + " inserts recorded, " + live + " live keys");
        assertTrue(recorded > 0);
        assertTrue(killedHolding >= 1, "at least one child died holding a shard lock: " + killedHolding);
    }

    /** @return every key word in the file's slots, with the number of slots holding it. */
    private static Map<Long, Integer> slotsByWord(final TableFile view, final int shardCount)
    {
        final Map<Long, Integer> slotsByWord = new HashMap<>();
        for (int offset = TableLayout.slotsOffset(shardCount); offset < view.table.capacity(); offset += TableLayout.SLOT_LENGTH)
        {
            final long word = view.table.getLong(offset);
            if (TableLayout.EMPTY_KEY != word && TableLayout.TOMBSTONE_KEY != word)
            {
                slotsByWord.merge(word, 1, Integer::sum);
            }
        }
        return slotsByWord;
    }

    /** @return the key word of a long key under the file's secret (what the limiter stores). */
    private static long keyWord(final TableFile view, final long key)
    {
        return KeyHash.mixLong(key, KeyHash.longKeySeed(view.secret0, view.secret1));
    }

    /** Spin (at most {@code millis}) until a shard lock of the file names the process. */
    private static void awaitHeldBy(final Path file, final long pid, final long millis)
    {
        final TableFile view = TableFile.open(file, specOf(file), null);
        final long endNs = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() - endNs < 0)
        {
            for (int shard = 0; shard < 16; shard++)
            {
                final long word = view.table.getLongVolatile(TableLayout.shardHeaderOffset(shard));
                if (0 != word && LockHolder.processId(word) == pid)
                {
                    return;
                }
            }
        }
    }

    private static int heldBy(final Path file, final long pid)
    {
        final TableFile view = TableFile.open(file, specOf(file), null);
        int held = 0;
        for (int shard = 0; shard < 16; shard++)
        {
            final long word = view.table.getLongVolatile(TableLayout.shardHeaderOffset(shard));
            held += 0 != word && LockHolder.processId(word) == pid ? 1 : 0;
        }
        return held;
    }

    private static TableSpec specOf(final Path file)
    {
        final Limit limit = TrafficChild.SLOW;
        return new TableSpec(TableFileLayout.KIND_KEYED_RATE_LIMITER,
            new long[] {limit.emissionIntervalNs(), limit.toleranceNs()}, 0, 3_600_000_000_000L, 0, 16, 1 << 16, 512);
    }

    /**
     * Exact GCRA bound for unit costs, whatever the order the admissions' CASes landed in: any k admissions at
     * times within [a, b] need {@code (k - 1) T <= b - a + tau}. Over a key's sorted times this is
     * {@code t_j - j T + tau >= t_i - i T} for all i &lt; j.
     */
    static void assertWithinBound(final Map<Long, List<Long>> byKey, final Limit limit)
    {
        final long tNs = limit.emissionIntervalNs();
        final long tauNs = limit.toleranceNs();
        for (final Map.Entry<Long, List<Long>> entry : byKey.entrySet())
        {
            final List<Long> times = entry.getValue();
            times.sort(null);
            long highest = Long.MIN_VALUE;
            int highestAt = -1;
            for (int j = 0; j < times.size(); j++)
            {
                final long u = times.get(j) - j * tNs;
                if (j > 0)
                {
                    final int i = highestAt;
                    assertTrue(u + tauNs >= highest, "key " + entry.getKey() + ": " + (j - i + 1) +
                        " admissions within " + (times.get(j) - times.get(i)) + " ns, GCRA allows " +
                        (1 + (times.get(j) - times.get(i) + tauNs) / tNs));
                }
                if (u > highest)
                {
                    highest = u;
                    highestAt = j;
                }
            }
        }
    }

    private List<long[]> read(final Map<Long, List<Long>> byKey, final String... names) throws Exception
    {
        final List<long[]> all = new ArrayList<>();
        for (final String name : names)
        {
            for (final long[] entry : AdmissionLog.read(directory.resolve(name + ".log")))
            {
                byKey.computeIfAbsent(entry[1], key -> new ArrayList<>()).add(entry[0]);
                all.add(entry);
            }
        }
        return all;
    }

    private static Set<Long> keysOf(final List<long[]> entries)
    {
        final Set<Long> keys = new HashSet<>();
        for (final long[] entry : entries)
        {
            keys.add(entry[1]);
        }
        return keys;
    }

    private String logs(final String name)
    {
        return directory.resolve(name).toString();
    }
}
