package dev.cellrate.bench;

import java.util.SplittableRandom;

import org.agrona.UnsafeApi;

import static dev.cellrate.bench.EmulatedTable.LINE4;
import static dev.cellrate.bench.EmulatedTable.PAIR8;
import static dev.cellrate.bench.EmulatedTable.PREFERRED4;
import static dev.cellrate.bench.EmulatedTable.SPLIT8;
import static dev.cellrate.bench.EmulatedTable.TAG7;
import static dev.cellrate.bench.EmulatedTable.bucketOf;
import static dev.cellrate.bench.EmulatedTable.insert;
import static dev.cellrate.bench.EmulatedTable.preferredOffset;
import static dev.cellrate.bench.EmulatedTable.preferredShares;
import static dev.cellrate.bench.EmulatedTable.probe;
import static dev.cellrate.bench.EmulatedTable.tagOf;
import static dev.cellrate.bench.EmulatedTable.word;

/**
 * Candidate slot layouts for the keyed table, emulated and timed against the engine and the random-CAS floor in CPU
 * time of the thread ({@link PairedRounds}: every round runs every workload once, in one JVM). All workloads decide
 * the same uniform stream of the same present long keys ({@code KeyStream.longKey(0 .. keys-1)}, as
 * {@link KeyedCpuTime}), one decision per key, with the admitting limit (increment 1, a ceiling no key reaches) and
 * caller time.
 * <p>
 * Workloads:
 * <ul>
 *     <li>{@code floor}: {@link RandomCasTarget}, hash then read-then-CAS of a random 16-byte slot over the
 *     engine's footprint;</li>
 *     <li>{@code engine}: {@code KeyedRateLimiter.tryAcquire(long, 1, now)}, {@code expectedKeys(keys)};</li>
 *     <li>{@code line4}: the engine's layout emulated (64-byte lines of four [key word][TAT] slots, the engine's
 *     slot count, inserts take the first free slot from the home line on, a predicted branch per slot, spilled
 *     keys probed line after line);</li>
 *     <li>{@code line4 load 0.5}: the same with 1.5 times the slots (load 0.5: 32 B per key instead of 21.3);</li>
 *     <li>{@code pair8}: 128-byte buckets (two adjacent lines) of eight [key][TAT] slots, the same memory as
 *     {@code line4}, a predicted branch per slot;</li>
 *     <li>{@code pair8 split}: 128-byte buckets whose first line holds the eight key words and whose second the
 *     eight TATs (the key scan reads one line; the TAT is on the other);</li>
 *     <li>{@code tag7}: 128-byte buckets: the first line a tag word (seven 8-bit fingerprints) and seven TATs, the
 *     second the seven key words and a spare word; one load and one SWAR compare pick the candidate slot, its key
 *     word confirms it (a second candidate, another key of the bucket with the same tag, goes the general
 *     way). Same memory as {@code line4} (buckets = slots / 8, so seven keys share what eight slots
 *     of today's layout hold: load 0.86);</li>
 *     <li>{@code tag7 load 0.75}: the same at the engine's load (14% more memory: 24.4 B per key);</li>
 *     <li>{@code line4 slot known}: {@code line4} with each key's slot address read from an array beside the key
 *     stream (no scan, no spill): what the rest of a decision costs, the bound of any layout that keeps the
 *     key word beside its TAT;</li>
 *     <li>{@code line4 branchless}: {@code line4} with the slot selected without a branch (an OR of masked
 *     addresses);</li>
 *     <li>{@code line4 preferred}: {@code line4} where an insert takes the key's preferred slot (two bits of its
 *     word) if it is free, and a lookup first tries that slot (one predicted branch, an address from the key word
 *     alone); {@code line4 preferred+evict}: the same, and an insert also takes its preferred slot from a key that
 *     is not in its own (which moves on), so as many keys as possible sit in their preferred slot;</li>
 * </ul>
 * Every emulated decision is the engine's fast path: the TAT (acquire), GCRA in three operations, the fresh-slot
 * test, the key word again (acquire), the ceiling, the CAS. The emulations hash with {@link RandomCasTarget#mix}
 * (the floor's mixer), have one shard and no API layer; the {@code engine} row carries those.
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Xmx3g -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.LayoutCpuTime [rounds] [keys ...]} (default 7 rounds, 1,000,000 keys); {@code -Dlayouts=0,2,11}
 * runs only those rows (indices in the order above, the floor first). Prints per key count
 * the median CPU ns per decision with its range, the share of keys outside their home bucket per layout, and each
 * row's median ratio to the floor.
 */
public final class LayoutCpuTime
{
    private static final int OPS = 2_000_000;
    private static final int STREAM = 1 << 20;
    private static final long INCREMENT = 1;
    private static final long CEILING = (1L << 61) + 1;
    private static final long FRESH_SLOT_TAT_NS = Long.MIN_VALUE + 1;
    private static final long ONES = 0x0101_0101_0101_0101L;
    /** The high bit of each of the seven tag bytes (byte 7 of the tag word is not a tag). */
    private static final long TAG_HIGHS = 0x0080_8080_8080_8080L;
    private static final String[] NAMES = {
        "floor", "engine", "line4", "line4 load 0.5", "pair8", "pair8 split", "tag7", "tag7 load 0.75",
        "line4 slot known", "line4 branchless", "line4 preferred", "line4 preferred+evict"};

    private final RandomCasTarget floor;
    private final CellrateKeyedTarget engine;
    private final EmulatedTable line4;
    private final EmulatedTable line4Half;
    private final EmulatedTable pair8;
    private final EmulatedTable pair8Split;
    private final EmulatedTable tag7;
    private final EmulatedTable tag7Loose;
    private final EmulatedTable line4Preferred;
    private final EmulatedTable line4Evicting;
    private final long[] stream = new long[STREAM];
    /** The address of each stream key's slot in {@link #line4}. */
    private final long[] line4Slots = new long[STREAM];
    /** 0, but not a constant to the compiler: keeps a load whose value is otherwise unused. */
    private long zero;
    private long nowNs = 1;

    private LayoutCpuTime(final int keyCount)
    {
        floor = new RandomCasTarget(keyCount);
        engine = new CellrateKeyedTarget(keyCount);
        final long slots = RandomCasTarget.slotsFor(keyCount);
        line4 = new EmulatedTable(LINE4, slots / 4, 64, 4);
        line4Half = new EmulatedTable(LINE4, slots * 3 / 8, 64, 4);
        pair8 = new EmulatedTable(PAIR8, slots / 8, 128, 8);
        pair8Split = new EmulatedTable(SPLIT8, slots / 8, 128, 8);
        tag7 = new EmulatedTable(TAG7, slots / 8, 128, 7);
        tag7Loose = new EmulatedTable(TAG7, (slots + 6) / 7, 128, 7);
        line4Preferred = new EmulatedTable(PREFERRED4, slots / 4, 64, 4);
        line4Evicting = new EmulatedTable(PREFERRED4, slots / 4, 64, 4);
        line4Evicting.evicts = true;
        final EmulatedTable[] all = {line4, line4Half, pair8, pair8Split, tag7, tag7Loose, line4Preferred, line4Evicting};
        for (int i = 0; i < keyCount; i++)
        {
            final long key = KeyStream.longKey(i);
            floor.decideLong(key, null, 0);
            engine.decideLong(key, null, 0);
            final long word = word(key);
            for (final EmulatedTable table : all)
            {
                insert(table, word);
            }
        }
        final SplittableRandom random = new SplittableRandom(20_240_601L);
        for (int i = 0; i < STREAM; i++)
        {
            stream[i] = KeyStream.longKey(random.nextInt(keyCount));
            line4Slots[i] = probe(line4, word(stream[i]));
        }
    }

    /**
     * @param args optional round count (default 7), then key counts (default 1,000,000).
     */
    public static void main(final String[] args)
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        for (int a = 1; a < Math.max(2, args.length); a++)
        {
            final int keyCount = args.length > a ? Integer.parseInt(args[a]) : 1_000_000;
            final LayoutCpuTime work = new LayoutCpuTime(keyCount);
            // -Dlayouts=0,2,11 runs those workloads only (indices into NAMES; the floor, 0, must be the first)
            final int[] chosen = java.util.Arrays.stream(System.getProperty("layouts", "").split(","))
                .filter(x -> !x.isBlank()).mapToInt(Integer::parseInt).toArray();
            final int[] runs = chosen.length > 0 ? chosen : java.util.stream.IntStream.range(0, NAMES.length).toArray();
            final String[] names = java.util.Arrays.stream(runs).mapToObj(w -> NAMES[w]).toArray(String[]::new);
            final PairedRounds measured = PairedRounds.measure(runs.length, 2, rounds, w -> OPS, w -> work.run(runs[w]));
            System.out.printf("%,d keys (load before the run: %s)%n", keyCount, loadAverage());
            measured.printCpuNs(names, 21, 7);
            final EmulatedTable[] tables = {work.line4, work.line4Half, work.pair8, work.pair8Split, work.tag7,
                work.tag7Loose};
            System.out.println("line4 preferred       " + preferredShares(work.line4Preferred));
            System.out.println("line4 preferred+evict " + preferredShares(work.line4Evicting));
            for (int t = 0; t < tables.length; t++)
            {
                final EmulatedTable table = tables[t];
                System.out.printf("%-21s %5.1f%% of keys outside their home bucket, %.1f B per key, %d dropped%n",
                    NAMES[t + 2], 100.0 * table.spilled / table.placed, table.bytes / (double)keyCount, table.dropped);
            }
            final double floorNs = measured.median(0);
            final StringBuilder ratios = new StringBuilder("keys " + keyCount + ": / floor");
            for (int w = 1; w < runs.length; w++)
            {
                ratios.append(String.format(" | %s %.2fx", names[w], measured.median(w) / floorNs));
            }
            System.out.println(ratios + " (sink " + (measured.sink() & 1) + ")");
            // every decision of every workload admits (the sum of its codes is 0): the emulations find every key
            final StringBuilder sums = new StringBuilder("code sums (all 0 when every key was found and admitted):");
            for (int w = 0; w < runs.length; w++)
            {
                sums.append(' ').append(work.run(runs[w]));
            }
            System.out.println(sums);
            System.gc();
        }
    }

    private static String loadAverage()
    {
        return String.format("%.2f", java.lang.management.ManagementFactory.getOperatingSystemMXBean()
            .getSystemLoadAverage());
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return floor();
            case 1:
                return engine();
            case 2:
                return line4(line4);
            case 3:
                return line4(line4Half);
            case 4:
                return pair8(pair8);
            case 5:
                return split8(pair8Split);
            case 6:
                return tag7(tag7);
            case 7:
                return tag7(tag7Loose);
            case 8:
                return line4Known();
            case 9:
                return line4Branchless(line4);
            case 10:
                return line4Preferred(line4Preferred);
            default:
                return line4Preferred(line4Evicting);
        }
    }

    // one loop per workload, each bound to one target
    private long floor()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += floor.decideLong(stream[i & (STREAM - 1)], null, nowNs++);
        }
        return sink;
    }

    private long engine()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += engine.decideLong(stream[i & (STREAM - 1)], null, nowNs++);
        }
        return sink;
    }

    private long line4(final EmulatedTable table)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long line = table.address + (bucketOf(table, word) << 6);
            final long slot;
            if (UnsafeApi.getLong(null, line) == word)
            {
                slot = line;
            }
            else if (UnsafeApi.getLong(null, line + 16) == word)
            {
                slot = line + 16;
            }
            else if (UnsafeApi.getLong(null, line + 32) == word)
            {
                slot = line + 32;
            }
            else if (UnsafeApi.getLong(null, line + 48) == word)
            {
                slot = line + 48;
            }
            else
            {
                slot = probe(table, word);
            }
            sink += decide(slot, slot + 8, word, nowNs++);
        }
        return sink;
    }

    /** {@link #line4} with the slot's address known in advance (no scan): the cost of the rest of a decision. */
    private long line4Known()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long slot = line4Slots[i & (STREAM - 1)];
            sink += decide(slot, slot + 8, word, nowNs++);
        }
        return sink;
    }

    /** {@link #line4} with the slot selected without a branch (an OR of masked addresses). */
    private long line4Branchless(final EmulatedTable table)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long line = table.address + (bucketOf(table, word) << 6);
            long slot = (line & matchBits(UnsafeApi.getLong(null, line), word))
                | ((line + 16) & matchBits(UnsafeApi.getLong(null, line + 16), word))
                | ((line + 32) & matchBits(UnsafeApi.getLong(null, line + 32), word))
                | ((line + 48) & matchBits(UnsafeApi.getLong(null, line + 48), word));
            if (0 == slot)
            {
                slot = probe(table, word);
            }
            sink += decide(slot, slot + 8, word, nowNs++);
        }
        return sink;
    }

    private static long matchBits(final long a, final long b)
    {
        final long x = a ^ b;
        return ((x - 1) & ~x) >> 63;
    }

    /**
     * A line of four slots where a key is inserted into its preferred slot (two bits of its word) when that is
     * free: one predicted branch on the preferred slot, whose address depends on the key word alone, then the
     * general lookup.
     */
    private long line4Preferred(final EmulatedTable table)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long preferred = table.address + (bucketOf(table, word) << 6) + preferredOffset(word);
            final long slot = UnsafeApi.getLong(null, preferred) == word ? preferred : probe(table, word);
            sink += decide(slot, slot + 8, word, nowNs++);
        }
        return sink;
    }

    private long pair8(final EmulatedTable table)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long bucket = table.address + (bucketOf(table, word) << 7);
            long slot = 0;
            for (int s = 0; s < 8; s++)
            {
                if (UnsafeApi.getLong(null, bucket + 16L * s) == word)
                {
                    slot = bucket + 16L * s;
                    break;
                }
            }
            if (0 == slot)
            {
                slot = probe(table, word);
            }
            sink += decide(slot, slot + 8, word, nowNs++);
        }
        return sink;
    }

    private long split8(final EmulatedTable table)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long bucket = table.address + (bucketOf(table, word) << 7);
            long keyAt = 0;
            for (int s = 0; s < 8; s++)
            {
                if (UnsafeApi.getLong(null, bucket + 8L * s) == word)
                {
                    keyAt = bucket + 8L * s;
                    break;
                }
            }
            if (0 == keyAt)
            {
                keyAt = probe(table, word);
            }
            // the TAT is 64 bytes after its key word, in the bucket's second line
            sink += decide(keyAt, keyAt + 64, word, nowNs++);
        }
        return sink;
    }

    private long tag7(final EmulatedTable table)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            final long word = word(stream[i & (STREAM - 1)]);
            final long bucket = table.address + (bucketOf(table, word) << 7);
            // the key line's spare word (the overflow count), read at once so the second line's miss starts with
            // the first's
            final long overflow = UnsafeApi.getLong(null, bucket + 120);
            final long x = UnsafeApi.getLong(null, bucket) ^ (tagOf(word) * ONES);
            final long candidates = (x - ONES) & ~x & TAG_HIGHS;
            // the first candidate, without a branch on which; a second candidate (another key with the same tag
            // before it, 7 in 256 per key) goes the general way
            final long first = bucket + 64 + (Long.numberOfTrailingZeros(candidates) >>> 3) * 8L;
            long keyAt = 0 != candidates && UnsafeApi.getLong(null, first) == word ? first : 0;
            if (0 == keyAt)
            {
                keyAt = 0 == overflow && 0 == candidates ? 0 : probe(table, word);
            }
            // key at bucket + 64 + 8 s, its TAT at bucket + 8 + 8 s
            sink += decide(keyAt, keyAt - 56, word, nowNs++) + (overflow & zero);
        }
        return sink;
    }

    /**
     * The engine's fast path on a slot: the TAT (acquire), GCRA, the fresh-slot test, the key again (acquire), the
     * ceiling, the CAS. 0 admitted, a positive retry-after, -1 for the general path (none here: every key is
     * present, no CAS is contended).
     */
    private static long decide(final long keyAt, final long tatAt, final long word, final long nowNs)
    {
        if (0 == keyAt)
        {
            return -1;
        }
        final long tatNs = UnsafeApi.getLongAcquire(null, tatAt);
        final long baseNs = Math.max(tatNs, nowNs);
        final long nextTatNs = baseNs + INCREMENT;
        final long dueNs = nextTatNs - nowNs;
        if (nextTatNs > baseNs && dueNs > 0 && tatNs > FRESH_SLOT_TAT_NS
            && UnsafeApi.getLongAcquire(null, keyAt) == word)
        {
            if (dueNs > CEILING)
            {
                return dueNs - CEILING;
            }
            if (UnsafeApi.compareAndExchangeLong(null, tatAt, tatNs, nextTatNs) == tatNs)
            {
                return 0;
            }
        }
        return -1;
    }
}
