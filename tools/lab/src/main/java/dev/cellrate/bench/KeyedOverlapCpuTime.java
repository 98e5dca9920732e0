package dev.cellrate.bench;

import java.util.SplittableRandom;

import dev.cellrate.KeyedRateLimiter;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import dev.cellrate.TestFronts;
import dev.cellrate.table.SlotTable;
import dev.cellrate.table.TableLayout;

/**
 * Where a keyed decision's time goes against its random-CAS floor, in CPU time of the thread ({@link PairedRounds}):
 * the floor and the keyed decision (long keys, {@code expectedKeys(keys)}, the admitting limit, caller time), each
 * on a uniform stream of the table's keys; the floor also <em>serialised</em> (on its own array of the same
 * footprint, the next key's index depends on the value the previous CAS found, so no two misses overlap); and the
 * keyed decision on a stream of only the keys that sit in their home line (no key that spilled past it).
 * <p>
 * What it shows: on a table larger than the caches, a loop of independent decisions runs several decisions' misses
 * at once, as many as fit in the core's out-of-order window; the serialised floor shows how many. A decision's cost
 * then grows with its instruction count (fewer decisions fit in the window) and with every miss it cannot start
 * before the previous one resolves (a key past its home line reads the next lines after the home line arrived).
 * <p>
 * Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar
 * dev.cellrate.bench.KeyedOverlapCpuTime [rounds] [keys ...]} (default 7 rounds, 1,000,000 keys).
 */
public final class KeyedOverlapCpuTime
{
    private static final int OPS = 2_000_000;
    private static final int STREAM = 1 << 20;
    private static final String[] NAMES = {
        "floor", "floor serialised", "keyed", "keyed home-line keys"};

    private final CellrateKeyedTarget cellrate;
    private final RandomCasTarget randomCas;
    private final long[] all = new long[STREAM];
    private final long[] home = new long[STREAM];
    private final double homeShare;
    private final long serialAddress;
    private final long serialSlots;
    private long nowNs = 1;

    private KeyedOverlapCpuTime(final int keyCount)
    {
        cellrate = new CellrateKeyedTarget(keyCount);
        randomCas = new RandomCasTarget(keyCount);
        final KeyedRateLimiter limiter = cellrate.limiter();
        final SlotTable table = TestFronts.tableOf(limiter);
        final long[] homeKeys = new long[keyCount];
        int homeCount = 0;
        for (int i = 0; i < keyCount; i++)
        {
            final long key = KeyStream.longKey(i);
            cellrate.decideLong(key, null, 0);
            randomCas.decideLong(key, null, 0);
            if (inHomeLine(table, table.keyWord(key)))
            {
                homeKeys[homeCount++] = key;
            }
        }
        homeShare = homeCount / (double)keyCount;
        serialSlots = RandomCasTarget.slotsFor(keyCount);
        serialAddress = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            (int)(serialSlots * RandomCasTarget.SLOT_LENGTH), 64)).addressOffset();
        final SplittableRandom random = new SplittableRandom(20_240_601L);
        for (int i = 0; i < STREAM; i++)
        {
            all[i] = KeyStream.longKey(random.nextInt(keyCount));
            home[i] = homeKeys[random.nextInt(homeCount)];
        }
    }

    /** Whether the key's slot is one of the four of its home line (the table's public geometry and layout). */
    private static boolean inHomeLine(final SlotTable table, final long keyWord)
    {
        final int slotsPerShard = table.slotCount() / table.shardCount();
        final int shard = (int)(keyWord >>> TableLayout.SHARD_SHIFT) & (table.shardCount() - 1);
        final int homeSlot = shard * slotsPerShard + TableLayout.homeIndex(keyWord, Math.max(1, slotsPerShard / 4)) * 4;
        final int offset = table.slotIndexOf(keyWord) - homeSlot;
        return offset >= 0 && offset < 4;
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
            final KeyedOverlapCpuTime work = new KeyedOverlapCpuTime(keyCount);
            final PairedRounds measured = PairedRounds.measure(NAMES.length, 2, rounds, w -> OPS, work::run);
            System.out.printf("%,d keys, %.1f%% in their home line%n", keyCount, 100 * work.homeShare);
            measured.printCpuNs(NAMES, 22, 7);
            final double floor = measured.median(0);
            System.out.printf("keys %d: keyed / floor %.2fx, home-line keys / floor %.2fx; floor serialised / "
                + "floor %.1fx (sink %d)%n", keyCount, measured.median(2) / floor, measured.median(3) / floor,
                measured.median(1) / floor, measured.sink() & 1);
            System.gc();
        }
    }

    private long run(final int workload)
    {
        switch (workload)
        {
            case 0:
                return floor();
            case 1:
                return floorSerialised();
            case 2:
                return keyed(all);
            default:
                return keyed(home);
        }
    }

    // one method per workload, each call site bound to one final class
    private long floor()
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += randomCas.decideLong(all[i & (STREAM - 1)], null, nowNs++);
        }
        return sink;
    }

    private long floorSerialised()
    {
        long sink = 0;
        long found = 0;
        for (int i = 0; i < OPS; i++)
        {
            // the next key's index waits for the value the previous CAS found (a TAT, far below 2^40)
            final long hash = RandomCasTarget.mix(all[(i + (int)(found >>> 40)) & (STREAM - 1)]);
            final long tatAddress = serialAddress + (((hash & 0xFFFF_FFFFL) * serialSlots) >>> 32)
                * RandomCasTarget.SLOT_LENGTH + RandomCasTarget.TAT_OFFSET;
            final long tatNs = UnsafeApi.getLongAcquire(null, tatAddress);
            found = UnsafeApi.compareAndExchangeLong(null, tatAddress, tatNs, Math.max(tatNs, nowNs++) + 1);
            sink += found == tatNs ? 0 : 1;
        }
        return sink;
    }

    private long keyed(final long[] stream)
    {
        long sink = 0;
        for (int i = 0; i < OPS; i++)
        {
            sink += cellrate.decideLong(stream[i & (STREAM - 1)], null, nowNs++);
        }
        return sink;
    }
}
